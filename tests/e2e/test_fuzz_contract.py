"""Fuzzing through the contest contract: a contest without generated inputs says so in one
line; a contest outside the package that brings a :class:`Fuzzer` is fuzzed and shrunk
like the built-in ones (the echo contest, with inputs of its own)."""
from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
from echo_contest import EchoContest, install, write_entry  # noqa: E402

from verify import contests  # noqa: E402
from verify.contests.contract import Contest, FuzzBudget, Fuzzer, TestCase  # noqa: E402
from verify.entries import load_entry  # noqa: E402
from verify.errors import VerifyError  # noqa: E402
from verify.fuzz import fuzz, target_for  # noqa: E402
from verify.grading import LocalRunner  # noqa: E402
from verify.runner import Limits  # noqa: E402
from verify.verdict import Verdict  # noqa: E402

LIMITS = Limits(wall_time=5.0, cpu_time=5.0)


class LineFuzzer(Fuzzer):
    """Lines of letters; shrunk by dropping a letter."""

    budget = "lines of up to 12 letters"

    def generate(self, rng: random.Random) -> str:
        return "".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 12)))

    def shrink_steps(self, value: str) -> Iterator[str]:
        return (value[:i] + value[i + 1:] for i in range(len(value)))

    def work(self, value: str, name: str) -> TestCase:
        data = (value + "\n").encode()
        return TestCase(name, data, None, (value,), payload=data)

    def failure_kind(self, verdict: Verdict) -> str:
        return str(verdict.status)

    def show(self, value: str) -> str:
        return value

    def parse(self, data: bytes, source: str) -> str:
        return data.decode().strip()

    def size(self, value: str) -> dict[str, int]:
        return {"letters": len(value)}


class FuzzedEcho(EchoContest):
    def fuzzer(self, options, budget: FuzzBudget) -> Fuzzer:
        return LineFuzzer()


class EchoWithoutInputs(EchoContest):
    """The echo contest without its fuzzer: the contract's default, no generated inputs."""

    fuzzer = Contest.fuzzer


def test_a_contest_without_generated_inputs_cannot_be_fuzzed(monkeypatch, tmp_path):
    install(monkeypatch)
    contests.add(EchoWithoutInputs())
    entry = load_entry(write_entry(tmp_path / "cat", "cat.py", "import sys\nsys.stdout.write(sys.stdin.read())\n"))
    with pytest.raises(VerifyError, match="^echo generates no inputs: its entries cannot be fuzzed$"):
        target_for(entry, LocalRunner(), LIMITS)


def test_a_contest_of_its_own_is_fuzzed_and_shrunk_through_its_fuzzer(monkeypatch, tmp_path):
    monkeypatch.setattr(contests, "_loaders", None)
    monkeypatch.setattr(contests, "_loaded", {})
    contests.add(FuzzedEcho())
    # echoes its input, except that it drops every "x": the smallest failing line is "x"
    source = "import sys\nsys.stdout.write(sys.stdin.read().replace('x', ''))\n"
    entry = load_entry(write_entry(tmp_path / "no-x", "cat.py", source))
    result = fuzz(target_for(entry, LocalRunner(), LIMITS), seed=1, runs=30)
    assert result.finding is not None
    assert result.finding.minimal == "x"
