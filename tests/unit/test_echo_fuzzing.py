"""The echo contest's fuzzer (tests/fixtures/echo-contest/verify_echo/fuzzing.py), pure and
through the core's fuzz driver over the FakeRunner: generated inputs, the shrink steps, the
failure class read from the judge, and a flawed entry's failure found and shrunk to its core.
(tests/e2e/test_contests_external.py runs ``verify fuzz`` itself on the fixture's entries.)"""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
from echo_contest import PACKAGE_FOLDER, EchoJudge, install  # noqa: E402
from verify_echo.fuzzing import (  # noqa: E402
    DEFAULT_MAX_BYTES,
    EchoFuzzer,
    failure_kind,
    parse,
    random_input,
    shrink_steps,
)

from verify.contests.contract import FuzzBudget, TestCase  # noqa: E402
from verify.entries import load_entry  # noqa: E402
from verify.errors import InputError  # noqa: E402
from verify.fuzz import fuzz  # noqa: E402
from verify.fuzz.driver import input_rng  # noqa: E402
from verify.fuzz.shrink import one_at_a_time, shrink  # noqa: E402
from verify.fuzz.target import EntryTarget, contest_fuzzer  # noqa: E402
from verify.grading import FakeRun, FakeRunner  # noqa: E402
from verify.runner import Limits  # noqa: E402
from verify.verdict import Status, Verdict  # noqa: E402

ENTRIES = PACKAGE_FOLDER / "submissions" / "echo"


@pytest.fixture(autouse=True)
def echo(monkeypatch):
    install(monkeypatch)


def generated(count: int, max_bytes: int = DEFAULT_MAX_BYTES) -> list[bytes]:
    return [random_input(input_rng(0, index), max_bytes) for index in range(count)]


def test_inputs_are_ascii_within_the_budget_and_the_same_for_a_seed():
    inputs = generated(300, 40)
    assert all(value.isascii() and len(value) <= 40 for value in inputs)
    assert inputs == generated(300, 40)
    assert b"" in inputs
    assert any(b"\r" in value for value in inputs) and any(b"\n\n" in value for value in inputs)
    assert any(b"\0" in value for value in inputs)
    assert any(value and not value.endswith(b"\n") for value in inputs)


def test_the_first_steps_cut_the_most():
    steps = list(shrink_steps(b"abcd"))
    assert steps[:3] == [b"", b"cd", b"ab"]
    assert all(len(step) < 4 for step in steps[:7]) and b"aaaa" in steps


def test_a_shrink_keeps_what_the_failure_needs_with_the_plainest_bytes():
    value = b"one\ttwo\r\nthree\n" * 4
    assert shrink(value, shrink_steps, one_at_a_time(lambda v: len(v) > 20)).value == b"a" * 21
    assert shrink(value, shrink_steps, one_at_a_time(lambda v: b"\r" in v)).value == b"\r"
    assert shrink(b"", shrink_steps, one_at_a_time(lambda v: True)).steps == 0


def judged(expected: bytes, output: bytes) -> Verdict:
    judge = EchoJudge(expected)
    return judge.feed(output) or judge.finish()


def test_the_failure_class_is_read_from_the_judge():
    assert failure_kind(judged(b"abc", b"ab")) == "wrong: ends early"
    assert failure_kind(judged(b"abc", b"abd")) == "wrong: differs"
    assert failure_kind(judged(b"abc", b"abcd")) == "wrong: goes on"
    assert failure_kind(Verdict(Status.TIME_LIMIT, "still running after 5 s")) == "time limit"
    assert EchoFuzzer(None).kind_slug("wrong: ends early") == "ends-early"


def test_a_saved_input_reads_back_and_a_bad_one_is_named():
    fuzzer = EchoFuzzer(None)
    value = b"tab\there\r\n\0"
    assert parse(fuzzer.file_text(value).encode(), "saved.txt") == value
    assert fuzzer.show(value) == "'tab\\there\\r\\n\\x00'"
    with pytest.raises(InputError, match="^saved.txt: an echo fuzz input is ASCII$"):
        parse("café".encode(), "saved.txt")


def test_a_generated_case_is_its_own_expected_output():
    entry = load_entry(ENTRIES / "cat-python")
    fuzzer = contest_fuzzer(entry, FuzzBudget(max_size=8))
    assert fuzzer.budget.startswith("ASCII inputs up to 8 bytes")
    case = fuzzer.work(b"hi\n", "fuzz-0-1")
    assert isinstance(case, TestCase) and (case.name, case.input) == ("fuzz-0-1", b"hi\n")
    judge = entry.contest.judge(entry.options, case)
    assert judge.feed(b"hi\n") is None and judge.finish().accepted
    rejected = entry.contest.judge(entry.options, case).feed(b"hi\r")
    assert rejected is not None and rejected.message == "output differs at byte 2"


def test_the_driver_finds_the_short_read_and_shrinks_it_to_33_bytes():
    """The flawed sample entry reads at most 32 characters: the smallest failing input is 33
    bytes, plain; the bundled cases (all shorter) never show it."""
    entry = load_entry(ENTRIES / "short-read")
    runner = FakeRunner({"short.py": lambda stdin, args: FakeRun(stdout=stdin[:32])})
    target = EntryTarget(entry, runner, Limits(wall_time=5), contest_fuzzer(entry))
    result = fuzz(target, seed=0, runs=20)
    assert result.finding is not None
    assert result.finding.kind == "wrong: ends early"
    assert result.finding.minimal == b"a" * 33
    assert result.finding.verdict.message == "output ends at byte 32, expected 33 bytes"


def test_a_correct_echo_survives_the_driver():
    entry = load_entry(ENTRIES / "cat-python")
    runner = FakeRunner({"cat.py": lambda stdin, args: FakeRun(stdout=stdin)})
    result = fuzz(EntryTarget(entry, runner, Limits(wall_time=5), contest_fuzzer(entry)), seed=3, runs=200)
    assert result.finding is None and result.runs == 200
    assert len(runner.runs) == 200


def test_inputs_differ_from_one_another():
    assert len(set(generated(100))) > 90
    rng = random.Random(1)
    assert random_input(rng, 0) == b""
