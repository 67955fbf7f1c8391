"""What every contest provides to the generic commands (check, rank, koth).

A contest is a folder under ``verify/challenges/`` whose ``__init__`` exposes
``CHALLENGE``, an instance of a :class:`Challenge` subclass, and optionally a
``cli`` module with ``register(main)`` adding its own click commands
(to the groups ``main.commands['judge']``, ``solve``, ``gen``, ``koth``, or to main).
A challenge never starts a process: the runner feeds it what a program printed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from verify.verdict import Verdict


@dataclass(frozen=True)
class TestCase:
    """One input a program is judged on."""

    __test__ = False  # not a pytest class

    name: str
    input: bytes                      # given on standard input
    path: Path | None = None          # where it came from, for reports
    args: tuple[str, ...] = ()        # given as command-line arguments when the entry asks
    meta: dict[str, Any] = field(default_factory=dict, compare=False)


class StreamJudge(Protocol):
    """Judges a program's stdout as it arrives; memory bounded by the state, not the output."""

    def feed(self, chunk: bytes) -> Verdict | None:
        """Take the next chunk. Return a verdict to stop the program early (a rejection), else None."""

    def finish(self) -> Verdict:
        """The program exited normally and its output ended: the final verdict."""


class Challenge:
    """Base class of a contest. Subclasses set the class attributes and override the methods."""

    name: str = ""
    title: str = ""
    scoring: str = "bytes"            # "bytes" (code golf) or "koth" (tournament)

    def testcases(self, root: Path) -> list[TestCase]:
        """The cases under ``root`` (normally ``testcases/<name>/``), in a stable order."""
        raise NotImplementedError

    def parse_options(self, entry_name: str, table: dict[str, Any], entry_dir: Path) -> Any:
        """Validate the contest's own section of entry.toml (``[<name>]``); raise EntryError naming the field."""
        return dict(table)

    def entry_cases(self, options: Any, entry_dir: Path) -> list[TestCase]:
        """Extra cases an entry brings with it (the desert's demo map); checked like the others."""
        return []

    def judge(self, options: Any, case: TestCase) -> StreamJudge:
        """A fresh judge for one run of an entry (with its parsed options) on one case."""
        raise NotImplementedError
