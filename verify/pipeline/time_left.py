"""How long the jobs of a tournament's stage still take, learned from the ones played so far.

Each job has the contest's cost (:meth:`~verify.contests.contract.Tournament.cost`, such as
a walk's step limit). A job still to play is expected to take the mean time of the jobs
of its cost played so far, or, for a cost not seen yet, the seconds per unit of cost of all of
them; the sum is divided by how many ran at once so far (the time the jobs took over the time
elapsed). Reused jobs are never given to it: they cost nothing.
"""
from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence


class TimeLeft:
    """The estimate over the jobs of one stage still to play, of ``costs``."""

    def __init__(self, costs: Sequence[float], clock: Callable[[], float] = time.monotonic) -> None:
        # costs that say nothing (all zero) count each job as one
        self._costs = [max(cost, 0.0) for cost in costs] if any(cost > 0 for cost in costs) else [1.0] * len(costs)
        self._clock = clock
        self._start = clock()
        self._left = set(range(len(costs)))
        self._seconds: dict[float, list[float]] = defaultdict(list)

    def done(self, index: int, seconds: float) -> None:
        """Job ``index`` (of the costs given) took ``seconds``."""
        self._left.discard(index)
        self._seconds[self._costs[index]].append(seconds)

    def seconds(self) -> float | None:
        """The seconds left, or None before any job finished."""
        if not self._seconds:
            return None
        if not self._left:
            return 0.0
        played = sum(sum(times) for times in self._seconds.values())
        per_cost = played / max(sum(cost * len(times) for cost, times in self._seconds.items()), 1e-9)
        expected = sum(_mean(self._seconds[cost]) if cost in self._seconds else cost * per_cost
                       for cost in (self._costs[index] for index in self._left))
        at_once = max(played / max(self._clock() - self._start, 1e-9), 1.0)
        return expected / at_once


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def shown(seconds: float) -> str:
    """``seconds`` for people, to a minute once past one: ``40 s``, ``12 min``, ``3 h 05 min``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"
