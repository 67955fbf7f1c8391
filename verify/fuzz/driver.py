"""The fuzz loop: inputs from a seed, the entry run on each, the first failure shrunk.

Input ``i`` of seed ``K`` comes from its own ``random.Random`` (seeded with both), so
a run is the same whatever ``jobs`` is: inputs run ``jobs`` at a time and the first
failure *in input order* is the one shrunk; the shrink, too, takes the first failing
variant in proposal order (:mod:`.shrink`). With a budget in runs the whole search
is deterministic for a deterministic entry; a budget in seconds stops starting new
inputs when it runs out.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from verify.fuzz.shrink import Shrunk, shrink
from verify.fuzz.target import Target
from verify.verdict import Verdict

DEFAULT_RUNS = 100
MAX_SHRINK_TRIES = 2000


def input_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"verify fuzz {seed} {index}")


@dataclass
class Finding:
    """The first failure found, and its shrunk form."""

    index: int                 # which input failed (0-based): ``--runs index+1`` reproduces it
    original: Any
    minimal: Any
    kind: str                  # the failure class the shrink kept
    verdict: Verdict           # the minimal input's verdict
    shrunk: Shrunk[Any]


@dataclass
class FuzzResult:
    runs: int                  # inputs run (before the failure, and the failing one)
    elapsed: float
    finding: Finding | None

    @property
    def failed(self) -> bool:
        return self.finding is not None


class Verdicts:
    """Runs the target on inputs, ``jobs`` at a time, remembering each verdict."""

    def __init__(self, target: Target, jobs: int):
        self.target, self.jobs = target, jobs
        self.known: dict[Hashable, Verdict] = {}
        self.pool = ThreadPoolExecutor(max_workers=jobs)

    def of(self, values: Sequence[Hashable]) -> list[Verdict]:
        todo = [v for v in dict.fromkeys(values) if v not in self.known]
        for value, verdict in zip(todo, self.pool.map(self.target.run, todo), strict=True):
            self.known[value] = verdict
        return [self.known[v] for v in values]

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def fuzz(target: Target, *, seed: int = 0, runs: int | None = None, seconds: float | None = None,
         jobs: int = 1, ignore: Collection[str] = (), clock: Callable[[], float] = time.monotonic,
         on_input: Callable[[int], None] | None = None) -> FuzzResult:
    """Run ``target`` on generated inputs until one fails or the budget (``runs`` inputs, or
    ``seconds``; neither: DEFAULT_RUNS inputs) is spent; shrink the failure found.
    ``ignore``: failure classes that do not count (a known weakness, while looking for others)."""
    if runs is None and seconds is None:
        runs = DEFAULT_RUNS
    started = clock()
    verdicts = Verdicts(target, jobs)
    try:
        index = 0
        while (runs is None or index < runs) and (seconds is None or clock() - started < seconds):
            count = jobs if runs is None else min(jobs, runs - index)
            values = [target.generate(input_rng(seed, index + k)) for k in range(count)]
            for offset, verdict in enumerate(verdicts.of(values)):
                if not verdict.accepted and target.kind(verdict) not in ignore:
                    finding = _shrink(target, verdicts, index + offset, values[offset], verdict)
                    return FuzzResult(index + offset + 1, clock() - started, finding)
            index += count
            verdicts.known.clear()      # passing inputs are never asked again: keep memory flat under --time
            if on_input is not None:
                on_input(index)
        return FuzzResult(index, clock() - started, None)
    finally:
        verdicts.close()


def _shrink(target: Target, verdicts: Verdicts, index: int, value: Hashable, verdict: Verdict) -> Finding:
    kind = target.kind(verdict)

    def same_failure(variants: Sequence[Hashable]) -> list[bool]:
        return [not v.accepted and target.kind(v) == kind for v in verdicts.of(variants)]

    shrunk = shrink(value, target.steps, same_failure, batch=verdicts.jobs, max_tries=MAX_SHRINK_TRIES)
    return Finding(index, value, shrunk.value, kind, verdicts.of([shrunk.value])[0], shrunk)
