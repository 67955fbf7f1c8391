"""An entry's ``[desert]`` table, checked: the options every part of the contest is given."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verify.contests.desert.notation import STANDARD, Notation


@dataclass(frozen=True)
class DesertOptions:
    """An entry's ``[desert]`` section, checked."""

    notation: Notation = STANDARD
    order: str = "moves-first"
    deaths: str = "turns"
    demo: Path | None = None
    demo_bytes: bytes = field(default=b"", repr=False, compare=False)   # read once, when the entry loads
