"""Prepare once, run many: a program is prepared once per runner (per build key) and a step
of a match only runs what was prepared (it reads no file, checks no flag, hashes nothing)."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from verify.contests.contract import Reply
from verify.errors import JudgeFailure, VerifyError
from verify.grading import FakeRun, FakeRunner
from verify.grading.interactive import asker
from verify.grading.memo import PreparedMemo
from verify.runner import CompileError, Limits, Program

LIMITS = Limits(wall_time=10.0, cpu_time=10.0, memory=256 << 20, output=1 << 20)


PROGRAM = Program("python", Path("/entries/x/prog.py"))


@pytest.mark.parametrize("persistent", [False, True])
def test_a_match_prepares_its_program_once_whatever_its_steps_do(persistent):
    answers = iter([FakeRun(b"a\n"), FakeRun(b"", exit_code=1, stderr="died"), FakeRun(b"b\n"), FakeRun(b"c\n")])
    runner = FakeRunner({"prog.py": lambda stdin, args: next(answers)})
    with asker(runner, PROGRAM, persistent, LIMITS, 2.0) as ask:
        replies = [ask(b"s\n") for _ in range(4)]
    assert replies[0] == Reply("a") and replies[2:] == [Reply("b"), Reply("c")] and replies[1].failure
    assert runner.prepared == ["prog.py"] and len(runner.runs) == 4    # a crash and a restart prepare nothing


def test_a_match_whose_program_does_not_build_fails_each_step_with_its_error():
    runner = FakeRunner({}, broken={"prog.py": CompileError("prog.py:1: error: no")})
    with asker(runner, PROGRAM, False, LIMITS, 2.0) as ask:
        replies = [ask(b"s\n") for _ in range(2)]
    assert replies == [Reply(failure="compile error: prog.py:1: error: no")] * 2 and runner.runs == []


def test_the_memo_makes_each_key_once_and_keeps_a_build_error_but_not_the_judges_failure():
    memo: PreparedMemo[str] = PreparedMemo()
    made: list[str] = []

    def make(value: str):
        def made_now() -> str:
            made.append(value)
            if value == "broken":
                raise CompileError("it does not build", "log")
            if value == "judge":
                raise JudgeFailure("no sandbox here")
            if value == "os":
                raise OSError("too many open files")
            return value.upper()
        return made_now

    assert [memo.get("a", make("a")), memo.get("a", make("a")), memo.get("b", make("b"))] == ["A", "A", "B"]
    for _ in range(2):
        with pytest.raises(CompileError, match="it does not build") as raised:
            memo.get("broken", make("broken"))
        assert raised.value.log == "log"
    for failing, error in (("judge", JudgeFailure), ("os", OSError)):
        for _ in range(2):
            with pytest.raises(error):
                memo.get(failing, make(failing))
    assert made == ["a", "b", "broken", "judge", "judge", "os", "os"]
    assert memo.get("a", make("a"), usable=lambda kept: kept != "A") == "A" and made[-1] == "a"   # made again


def test_the_memo_keeps_at_most_its_limit_dropping_the_least_recently_used():
    memo: PreparedMemo[int] = PreparedMemo(limit=2)
    made: list[int] = []

    def make(value: int):
        return lambda: made.append(value) or value

    for key in (1, 2, 1, 3, 1, 2):         # 3 drops 2 (1 was used after it); 2 is made again
        memo.get(key, make(key))
    assert made == [1, 2, 3, 2] and len(memo) == 2


def test_two_threads_asking_for_the_same_program_share_one_build():
    memo: PreparedMemo[str] = PreparedMemo()
    started, release = threading.Event(), threading.Event()
    made: list[str] = []
    got: list[str] = []

    def slow() -> str:
        made.append("x")
        started.set()
        release.wait()
        return "X"

    first = threading.Thread(target=lambda: got.append(memo.get("x", slow)))
    first.start()
    started.wait()
    second = threading.Thread(target=lambda: got.append(memo.get("x", slow)))
    second.start()
    release.set()
    first.join()
    second.join()
    assert made == ["x"] and got == ["X", "X"]


def test_a_verify_error_kept_is_raised_again_without_growing_its_traceback():
    memo: PreparedMemo[str] = PreparedMemo()

    def broken() -> str:
        raise VerifyError("unknown language 'cobol'")

    depths = []
    for _ in range(3):
        with pytest.raises(VerifyError) as raised:
            memo.get("k", broken)
        tb, depth = raised.value.__traceback__, 0
        while tb is not None:
            tb, depth = tb.tb_next, depth + 1
        depths.append(depth)
    assert depths[1] == depths[2]
