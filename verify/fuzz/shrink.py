"""A greedy shrinker: smaller inputs that still fail the same way.

Given an input that fails, the contest's ``steps(value)`` proposes smaller
variants (fewer rows, fewer givens, smaller values...), biggest cut first. The
first variant that still fails (``fails(variant)`` is True: the same failure
class) replaces the input, and the proposals start over from it; when no single
step keeps the failure, the input is minimal for those steps. A variant that
passed once is not run again (runs are taken to be deterministic). Pure: ``fails``
is the only seam, so the shrinker is tested with plain predicates.

``fails`` may be evaluated for several variants at once (``batch``): the first
failing one *in proposal order* wins, and only the variants up to it count, so a
parallel shrink takes exactly the steps (and counts the tries) a sequential one
does; the variants run past it are wasted work, or found again in a caller's cache.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
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
    tries: int       # variants judged (as one at a time would)
    exhausted: bool  # stopped by the budget of tries, not because no step kept the failure


def shrink(value: T, steps: Callable[[T], Iterable[T]], fails: Judge[T], *, batch: int = 1,
           max_tries: int = 2000) -> Shrunk[T]:
    """The smallest ``value`` greedy steps reach while ``fails`` holds (see the module)."""
    tries = accepted = 0
    known: set[T] = {value}     # variants that passed, and every value accepted so far
    while True:
        proposals = _new(steps(value), known)
        found = None
        while found is None:
            room = max_tries - tries
            if room <= 0:
                return Shrunk(value, accepted, tries, exhausted=True)
            chunk = list(islice(proposals, min(batch, room)))
            if not chunk:
                return Shrunk(value, accepted, tries, exhausted=False)
            verdicts = list(fails(chunk))
            # what a one-at-a-time shrink would have run: up to the first failing variant
            used = next((i + 1 for i, failed in enumerate(verdicts) if failed), len(chunk))
            tries += used
            known.update(variant for variant, failed in zip(chunk[:used], verdicts[:used], strict=True)
                         if not failed)
            found = chunk[used - 1] if verdicts[used - 1] else None
        value = found
        known.add(value)
        accepted += 1


def _new(proposals: Iterable[T], known: set[T]) -> Iterator[T]:
    """The proposals not known, each once (lazily: a proposal may be costly to make)."""
    offered: set[T] = set()
    for variant in proposals:
        if variant not in known and variant not in offered:
            offered.add(variant)
            yield variant


def one_at_a_time(fails: Callable[[T], bool]) -> Judge[T]:
    """A batch judge from a predicate of one variant."""
    return lambda variants: [fails(v) for v in variants]
