"""A greedy shrinker: smaller inputs that still fail the same way.

Given an input that fails, the contest's ``steps(value)`` proposes smaller
variants (fewer rows, fewer givens, smaller values...), biggest cut first. The
first variant that still fails (``fails(variant)`` is True: the same failure
class) replaces the input, and the proposals start over from it; when no single
step keeps the failure, the input is minimal for those steps. A variant that
passed once is not run again (runs are taken to be deterministic). Pure: ``fails``
is the only seam, so the shrinker is tested with plain predicates.

``fails`` may be evaluated for several variants at once (``batch``): the first
failing one *in proposal order* wins, so a parallel shrink takes exactly the
steps a sequential one does.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Generic, TypeVar

T = TypeVar("T")

Judge = Callable[[Sequence[T]], Sequence[bool]]
"""Whether each variant still fails the same way (in order; evaluated in any order)."""


@dataclass(frozen=True)
class Shrunk(Generic[T]):
    value: T
    steps: int       # variants accepted
    tries: int       # variants run
    exhausted: bool  # stopped by the budget of tries, not because no step kept the failure


def shrink(value: T, steps: Callable[[T], Iterable[T]], fails: Judge[T], *, batch: int = 1,
           max_tries: int = 2000) -> Shrunk[T]:
    """The smallest ``value`` greedy steps reach while ``fails`` holds (see the module)."""
    tries = accepted = 0
    known: set[T] = {value}     # variants that passed, and every value accepted so far
    while True:
        proposals = (variant for variant in steps(value) if variant not in known)
        found = None
        while found is None:
            room = max_tries - tries
            if room <= 0:
                return Shrunk(value, accepted, tries, exhausted=True)
            chunk = list(islice(proposals, min(batch, room)))
            if not chunk:
                return Shrunk(value, accepted, tries, exhausted=False)
            tries += len(chunk)
            verdicts = fails(chunk)
            found = next((variant for variant, failed in zip(chunk, verdicts, strict=True) if failed), None)
            known.update(variant for variant, failed in zip(chunk, verdicts, strict=True) if not failed)
        value = found
        known.add(value)
        accepted += 1


def one_at_a_time(fails: Callable[[T], bool]) -> Judge[T]:
    """A batch judge from a predicate of one variant."""
    return lambda variants: [fails(v) for v in variants]
