"""Code-golf scores and leaderboards (the convention is written in docs/entries.md).

Score = the source file's bytes, exactly as stored (UTF-8 octets, a trailing newline
counts), plus a penalty for each interpreter flag: what the flag adds to the plain
invocation of the language.
- a flag of one dash and letters (``-n``, ``-l``, ``-F,``) joins the plain ``-e``
  (``perl -ne``), so it costs its length minus the dash: ``-n`` costs 1, ``-F,`` 2;
- any other flag (``--harmony``, ``-x y``, ``--stack-size=9``) is a word of its own:
  its length plus the separating space.
Ties: the entry first added to the repository (git) wins; then the name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from verify.entries import Entry
from verify.errors import EntryError
from verify.files import MAX_SOURCE_BYTES, FileRefused, read_entry_file

_BUNDLED_FLAG = re.compile(r"-[A-Za-z0-9][^\s=]*")


def flag_penalty(flag: str) -> int:
    if _BUNDLED_FLAG.fullmatch(flag) and not flag.startswith("--"):
        return len(flag) - 1
    return len(flag) + 1


@dataclass(frozen=True)
class Score:
    source_bytes: int
    penalty: int
    chars: int
    flags: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return self.source_bytes + self.penalty

    def header(self, language_name: str) -> str:
        """The contest's Markdown header: `# Perl -n, 254 + 1 = 255 bytes`."""
        title = " ".join([language_name, *self.flags])
        if self.penalty:
            return f"# {title}, {self.source_bytes} + {self.penalty} = {self.total} bytes"
        return f"# {title}, {self.total} bytes"


def score_source(source: bytes, flags: tuple[str, ...] = ()) -> Score:
    try:
        chars = len(source.decode("utf-8"))
    except UnicodeDecodeError:
        chars = len(source)  # not UTF-8: every byte is a character of its own
    return Score(len(source), sum(flag_penalty(f) for f in flags), chars, tuple(flags))


def score_entry(entry: Entry) -> Score:
    """The entry's score; its source is read as at load time (inside the folder, bounded):
    a source that has changed into something else since is an EntryError."""
    assert entry.source is not None
    try:
        source = read_entry_file(entry.folder, str(entry.source.relative_to(entry.folder)), MAX_SOURCE_BYTES)
    except FileRefused as error:
        raise EntryError(entry.label, "source", str(error)) from None
    return score_source(source, entry.flags)


@dataclass
class Standing:
    label: str
    name: str
    language: str
    score: Score | None
    passed: bool
    why_not: str = ""
    added: int | None = None
    rank: int | None = None
    cases: int = 0
    entry: Entry | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "entry": self.label, "name": self.name, "language": self.language,
                "bytes": self.score.source_bytes if self.score else None,
                "penalty": self.score.penalty if self.score else None,
                "score": self.score.total if self.score else None,
                "chars": self.score.chars if self.score else None,
                "flags": list(self.score.flags) if self.score else [],
                "passed": self.passed, "why_not": self.why_not, "cases": self.cases}


def rank_standings(standings: list[Standing]) -> list[Standing]:
    """Passing entries by (score, first added, name), ranked 1..n (ties share no rank: the
    earlier entry wins); the others after them, unranked."""
    def order(standing: Standing) -> tuple[int, float, str]:
        assert standing.score is not None
        return (standing.score.total, standing.added if standing.added is not None else float("inf"), standing.name)

    ranked = sorted((s for s in standings if s.passed and s.score), key=order)
    for place, standing in enumerate(ranked, 1):
        standing.rank = place
    others = sorted((s for s in standings if not (s.passed and s.score)), key=lambda s: s.label)
    return ranked + others
