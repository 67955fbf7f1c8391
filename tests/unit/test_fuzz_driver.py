"""The fuzz loop with a target that starts no process: budgets, order, ignore, determinism."""
from __future__ import annotations

import itertools
import random

from verify.fuzz.driver import fuzz
from verify.verdict import Status, Verdict


class Numbers:
    """Inputs are integers 0..999; those at least ``threshold`` fail ("too big"), multiples
    of 7 above 500 fail otherwise ("sevens"). Shrinks by one less and by halving."""

    label, budget = "numbers", "integers 0..999"

    def __init__(self, threshold: int = 900):
        self.threshold = threshold
        self.ran: list[int] = []

    def programs(self):
        return []

    def generate(self, rng: random.Random) -> int:
        return rng.randrange(1000)

    def steps(self, value: int):
        return [value // 2, value - 1] if value else []

    def run(self, value: int) -> Verdict:
        self.ran.append(value)
        if value >= self.threshold:
            return Verdict.wrong("too big", failure="big")
        if value > 500 and value % 7 == 0:
            return Verdict(Status.RUNTIME_ERROR, "sevens")
        return Verdict.accept()

    def kind(self, verdict: Verdict) -> str:
        return f"{verdict.status}: {verdict.stats['failure']}" if verdict.stats.get("failure") else str(verdict.status)


def test_the_first_failure_is_shrunk_within_its_class():
    result = fuzz(Numbers(), seed=1, runs=500)
    finding = result.finding
    assert finding is not None and result.runs == finding.index + 1
    if finding.kind == "wrong: big":
        assert finding.minimal == 900
    else:
        assert finding.kind == "runtime error" and finding.minimal % 7 == 0 and finding.minimal > 500


def test_the_same_seed_and_runs_give_the_same_finding_whatever_the_jobs():
    found = [fuzz(Numbers(), seed=seed, runs=300, jobs=jobs).finding for seed in (1, 2) for jobs in (1, 3)]
    pairs = [(f.index, f.original, f.minimal, f.kind, f.shrunk.tries) for f in found]
    assert pairs[0] == pairs[1] and pairs[2] == pairs[3]


def test_nothing_failing_within_the_budget_of_runs():
    target = Numbers(threshold=10**6)
    result = fuzz(target, seed=0, runs=3, jobs=2)
    assert result.finding is None and result.runs == 3 and len(target.ran) == 3 and not result.failed


def test_an_ignored_class_does_not_count():
    result = fuzz(Numbers(), seed=1, runs=500, ignore=("runtime error",))
    assert result.finding is not None and result.finding.kind == "wrong: big" and result.finding.minimal == 900


def test_a_budget_in_seconds_stops_starting_inputs():
    ticks = itertools.count()
    target = Numbers(threshold=10**6)
    result = fuzz(target, seed=0, seconds=5, clock=lambda: float(next(ticks)))
    assert result.finding is None and 1 <= result.runs <= 5
