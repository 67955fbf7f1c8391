"""The one registry of output formats: each format's name, the files named for it, and for
each report that has it the function that writes it (by import path: loaded only when used,
so that the command line's options can list the formats without importing a renderer).

A report is one kind of output (a check's report, a leaderboard, a tournament's standings,
the languages, the cache); every renderer of one kind takes the same arguments. The command
line's ``--format`` of a report offers exactly the formats that have it, an unknown one is a
usage error (one line, exit 2), and ``--output FILE`` / ``--check FILE`` name theirs by suffix.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.errors import VerifyError

CHECK, RANK, KOTH, LANGS, CACHE = "check", "rank", "koth", "langs", "cache info"


@dataclass(frozen=True)
class Format:
    """One output format and the reports written in it (report kind -> "module:function")."""

    name: str
    title: str                                   # as a sentence names it ("verify rank writes no XML")
    suffixes: tuple[str, ...]                    # files named so are written in it (the first: its own)
    renderers: Mapping[str, str] = field(default_factory=dict)


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("table", "text table", (".txt",), {
        CHECK: "verify.reports.checks:table_report",
        RANK: "verify.reports.leaderboard:rank_table",
        KOTH: "verify.reports.tournament:render_table",
        LANGS: "verify.reports.languages:languages_table",
        CACHE: "verify.reports.cache:cache_table",
    }),
    Format("json", "JSON", (".json",), {
        CHECK: "verify.reports.checks:json_report",
        RANK: "verify.reports.leaderboard:rank_json",
        KOTH: "verify.reports.tournament:render_json",
        LANGS: "verify.reports.languages:languages_json",
        CACHE: "verify.reports.cache:cache_json",
    }),
    Format("junit", "XML", (".xml",), {
        CHECK: "verify.reports.checks:junit_report",
    }),
    Format("markdown", "Markdown", (".md", ".markdown"), {
        CHECK: "verify.reports.checks:markdown_report",
        RANK: "verify.reports.leaderboard:rank_markdown",
        KOTH: "verify.reports.tournament:render_markdown",
    }),
)}


class UnknownFormat(VerifyError):
    """A format the report does not have: a usage error (one line, exit 2)."""


def formats_of(report: str) -> list[str]:
    """The names of the formats ``report`` is written in, in the registry's order."""
    return [name for name, found in FORMATS.items() if report in found.renderers]


def unknown_format(report: str, name: str) -> UnknownFormat:
    """The error for a format ``report`` does not have."""
    return UnknownFormat(f"--format: {name!r} is not a format of verify {report} "
                         f"(its formats: {', '.join(formats_of(report))})")


def checked_format(report: str, name: str) -> str:
    """``name`` when ``report`` has that format; else an UnknownFormat naming the ones it has."""
    if report not in FORMATS.get(name, Format("", "", ())).renderers:
        raise unknown_format(report, name)
    return name


def renderer(report: str, name: str) -> Callable[..., str]:
    """The function that writes ``report`` in format ``name``."""
    module, _, function = FORMATS[checked_format(report, name)].renderers[report].partition(":")
    found: Callable[..., str] = getattr(importlib.import_module(module), function)
    return found


def render(report: str, name: str, *args: Any, **options: Any) -> str:
    """``report`` written in format ``name``."""
    return renderer(report, name)(*args, **options)


def format_of_file(report: str, path: Path) -> str | None:
    """The format a file's suffix names for ``report`` (None: a suffix no format claims); a
    VerifyError when its format is not one ``report`` is written in."""
    suffix = path.suffix.lower()
    found = next((f for f in FORMATS.values() if suffix in f.suffixes), None)
    if found is None:
        return None
    if report not in found.renderers:
        named = [FORMATS[name].suffixes[0] for name in formats_of(report)]
        files = ", ".join(named[:-1]) + f" or {named[-1]}" if len(named) > 1 else named[0]
        raise VerifyError(f"{str(path)!r}: verify {report} writes no {found.title} (its formats: "
                          f"{', '.join(formats_of(report))}; name a {files} file, or give --format)")
    return found.name
