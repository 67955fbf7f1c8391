"""What the desert keeps of a case beside its input (the contract's case payload)."""
from __future__ import annotations

from dataclasses import dataclass

from verify.contests.contract import TestCase
from verify.contests.desert.map import DesertMap


@dataclass(frozen=True)
class DesertCase:
    """A case's map, parsed when the case was made; for an entry's demo map, the first
    violations of the demo rule (``more_trivial``: there are more than those)."""

    map: DesertMap
    trivial: tuple[str, ...] = ()
    more_trivial: bool = False


def case_map(case: TestCase[DesertCase]) -> DesertMap:
    """The map of a case: parsed when the case was made, else from its input."""
    if case.payload is not None:
        return case.payload.map
    return DesertMap.parse(case.input, source=case.name)
