"""An entry's ``[arrows]`` table, checked: the options every part of the contest is given."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArrowsOptions:
    arrows: str = "english"   # the arrow names the entry reads and prints: "english" or "dutch"
