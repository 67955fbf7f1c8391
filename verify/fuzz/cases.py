"""Fuzzed inputs as ordinary cases and tasks, for ``verify check --fuzz N``.

The inputs are the ones ``verify fuzz ENTRY --seed K`` tries first, in the same order
(input ``i`` is ``fuzz-K-i``), judged by the contest's own judge like any case: a failing
one is reproduced, and shrunk, by ``verify fuzz ENTRY --seed K --runs i+1``.
"""
from __future__ import annotations

from verify.challenges.contract import Task, TestCase
from verify.entries import Entry
from verify.errors import VerifyError
from verify.fuzz.driver import input_rng
from verify.fuzz.target import fuzzing_module


def fuzz_name(seed: int, index: int) -> str:
    return f"fuzz-{seed}-{index + 1}"


def fuzz_cases(entry: Entry, count: int, seed: int = 0) -> list[TestCase]:
    """``count`` generated cases for a code-golf entry (none when ``count`` is 0)."""
    if count <= 0:
        return []
    rules = fuzzing_module(entry.challenge.name)
    budget = rules.for_size(None)
    return [rules.to_case(rules.random_input(input_rng(seed, index), budget), fuzz_name(seed, index))
            for index in range(count)]


def fuzz_tasks(entry: Entry, count: int, seed: int = 0) -> list[Task]:
    """``count`` generated tasks for an entry with roles (the maze's architect and solver)."""
    if count <= 0:
        return []
    if entry.challenge.name != "maze":
        raise VerifyError(f"no fuzzing for {entry.challenge.name} entries (built in: desert, arrows, maze)")
    from dataclasses import replace
    rules = fuzzing_module("maze")
    settings = rules.MazeFuzzSettings()
    tasks: list[Task] = []
    for index in range(count):
        value = rules.random_input(input_rng(seed, index), settings, entry.options)
        tasks.append(replace(rules.task_for(value, entry.options, settings), name=fuzz_name(seed, index)))
    return tasks
