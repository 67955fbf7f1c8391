"""Fuzzed inputs as ordinary cases and tasks, for ``verify check --fuzz N``.

The inputs are the ones ``verify fuzz ENTRY --seed K`` tries first, in the same order
(input ``i`` is ``fuzz-K-i``), judged by the contest's own judge like any case: a failing
one is reproduced, and shrunk, by ``verify fuzz ENTRY --seed K --runs i+1``.
"""
from __future__ import annotations

from verify.contests.contract import Task, TestCase
from verify.entries import Entry
from verify.fuzz.driver import input_rng
from verify.fuzz.target import contest_fuzzer


def fuzz_name(seed: int, index: int) -> str:
    return f"fuzz-{seed}-{index + 1}"


def fuzz_cases(entry: Entry, count: int, seed: int = 0) -> list[TestCase]:
    """``count`` generated cases for a code-golf entry (none when ``count`` is 0)."""
    return [work for work in _generated(entry, count, seed) if isinstance(work, TestCase)]


def fuzz_tasks(entry: Entry, count: int, seed: int = 0) -> list[Task]:
    """``count`` generated tasks for an entry with roles (programs its contest's table declares)."""
    return [work for work in _generated(entry, count, seed) if not isinstance(work, TestCase)]


def _generated(entry: Entry, count: int, seed: int) -> list[TestCase | Task]:
    if count <= 0:
        return []
    fuzzer = contest_fuzzer(entry)
    return [fuzzer.work(fuzzer.generate(input_rng(seed, index)), fuzz_name(seed, index)) for index in range(count)]
