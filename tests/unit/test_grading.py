"""The grading core over a fake runner: every way a run ends maps to one verdict, in one place."""
from __future__ import annotations

import signal
from pathlib import Path

import pytest

from verify.contests.contract import BatchTask, InteractiveTask, Reply, TestCase
from verify.errors import VerifyError
from verify.grading import FakeRun, FakeRunner, Grader, build_failure, grade_batch, grade_case, grade_interactive
from verify.grading.interactive import asker
from verify.runner import CompileError, Limits, MissingInterpreter, Program
from verify.verdict import Status, Verdict

LIMITS = Limits(wall_time=2.0, cpu_time=1.0, memory=64 << 20, output=1 << 10, processes=8)


PROGRAM = Program("python", Path("/entries/x/prog.py"))


class Expect:
    """A judge that accepts exactly ``expected`` and rejects the first differing chunk at once."""

    def __init__(self, expected: bytes = b"ok\n"):
        self.expected, self.seen = expected, b""

    def feed(self, chunk: bytes) -> Verdict | None:
        self.seen += chunk
        if not self.expected.startswith(self.seen):
            return Verdict.wrong(f"differs at byte {len(self.seen) - len(chunk)}")
        return None

    def finish(self) -> Verdict:
        return Verdict.accept() if self.seen == self.expected else Verdict.wrong("too short")


def grade(run: FakeRun, strict: bool = False, judge=Expect) -> Verdict:
    runner = FakeRunner({"prog.py": lambda stdin, args: run})
    return grade_batch(runner, BatchTask("case", PROGRAM, b"", judge, strict_exit=strict), LIMITS).verdict


@pytest.mark.parametrize("run, status, message", [
    (FakeRun(b"ok\n"), Status.ACCEPTED, ""),
    (FakeRun(b"no\n"), Status.WRONG, "differs at byte 0"),
    (FakeRun(b"o"), Status.WRONG, "too short"),
    (FakeRun(b"ok\n", limit="output"), Status.OUTPUT_LIMIT, "printed more than 1 KiB"),
    (FakeRun(b"o", limit="time", wall_time=2.0), Status.TIME_LIMIT, "still running after 2 s (wall time)"),
    (FakeRun(b"o", limit="time", wall_time=1.2), Status.TIME_LIMIT, "used more than 1 s of CPU time"),
    (FakeRun(b"", limit="memory", peak_memory=70 << 20), Status.MEMORY_LIMIT,
     "the memory limit (64 MiB) stopped it: the kernel refused or reclaimed memory beyond it"
     " (largest sample seen 70 MiB)"),
    (FakeRun(b"", limit="processes", stderr="fork: retry\nno more"), Status.RUNTIME_ERROR,
     "hit the process limit (8 processes): no more"),
    (FakeRun(b"ok\n", signal=signal.SIGSEGV, stderr="core"), Status.RUNTIME_ERROR, "killed by SIGSEGV: core"),
    (FakeRun(b"o", exit_code=3, stderr="trace\nboom"), Status.RUNTIME_ERROR, "exit code 3: boom"),
])
def test_every_ending_of_a_run_has_one_verdict(run, status, message):
    verdict = grade(run)
    assert (verdict.status, verdict.message) == (status, message)


def test_a_rejection_while_streaming_wins_over_a_limit_hit_afterwards():
    assert grade(FakeRun(b"nope", limit="time", wall_time=5)).status is Status.WRONG


def test_a_non_zero_exit_after_an_accepted_output_is_a_warning_unless_strict():
    lenient = grade(FakeRun(b"ok\n", exit_code=1))
    assert lenient.accepted and lenient.warnings == ["exited with code 1 after a complete output"]
    strict = grade(FakeRun(b"ok\n", exit_code=1), strict=True)
    assert strict.status is Status.RUNTIME_ERROR and strict.message == "exit code 1"


class Crashing:
    def __init__(self, where: str):
        if where == "init":
            raise KeyError("init")
        self.where = where

    def feed(self, chunk: bytes) -> Verdict | None:
        if self.where == "feed":
            raise ZeroDivisionError("feed")
        return None

    def finish(self) -> Verdict:
        raise VerifyError("the case is broken") if self.where == "finish-input" else RuntimeError("finish")


@pytest.mark.parametrize("where, message", [
    ("init", "the judge failed: KeyError: 'init'"), ("feed", "the judge failed: ZeroDivisionError: feed"),
    ("finish", "the judge failed: RuntimeError: finish"), ("finish-input", "the case is broken"),
])
def test_a_crashing_judge_is_a_judge_error_never_the_entrys_fault(where, message):
    verdict = grade(FakeRun(b"ok\n"), judge=lambda: Crashing(where))
    assert verdict.status is Status.JUDGE_ERROR and verdict.message == message


@pytest.mark.parametrize("error, status", [
    (CompileError("prog.c:1: error", "log"), Status.COMPILE_ERROR),
    (MissingInterpreter("python: interpreter not found"), Status.JUDGE_ERROR),
    (VerifyError("unknown language"), Status.JUDGE_ERROR),
])
def test_a_program_that_cannot_start(error, status):
    runner = FakeRunner({}, broken={"prog.py": error})
    assert build_failure(runner, PROGRAM).status is status
    result = grade_batch(runner, BatchTask("case", PROGRAM, b"", Expect), LIMITS)
    assert result.verdict.status is status and result.verdict.message == str(error)
    assert Grader(runner).broken(PROGRAM) == f"could not run: {status}: {error}"


def _arrows_entry(folder: Path, arrows: str):
    from verify.entries import load_entry
    folder.mkdir()
    (folder / "a.py").write_text("pass\n")
    (folder / "entry.toml").write_text('contest = "arrows"\nlanguage = "python"\nsource = "a.py"\n'
                                       f'input = "args"\n[arrows]\narrows = "{arrows}"\n')
    return load_entry(folder)


def test_a_code_golf_case_goes_in_the_entrys_dialect_and_input_mode(tmp_path):
    puzzle = b"3\n1SE 0SW 0S\n0S 0N 0N\n0E 0NE 9\n"
    runner = FakeRunner({"a.py": lambda stdin, args: FakeRun(b"")})
    grade_case(runner, _arrows_entry(tmp_path / "dutch", "dutch"), TestCase("p", puzzle, None, (puzzle.decode(),)),
               LIMITS)
    ((_, stdin, args),) = runner.runs
    assert stdin == b"" and args == ("3\n1ZO 0ZW 0Z\n0Z 0N 0N\n0O 0NO 9\n",)    # as arguments, in Dutch
    huge = TestCase("huge", puzzle, None, ("x" * (128 << 10),))
    too_long = grade_case(runner, _arrows_entry(tmp_path / "english", "english"), huge, LIMITS).verdict
    assert too_long.status is Status.JUDGE_ERROR and 'needs input = "stdin"' in too_long.message
    assert len(runner.runs) == 1


def test_per_step_requests_each_start_a_program_and_fail_with_the_shared_wording():
    answers = iter([FakeRun(b"1 2\nignored\n"), FakeRun(b"", exit_code=2, stderr="bad"), FakeRun(b"  \n"),
                    FakeRun(b"late", limit="time", wall_time=2.0)])
    runner = FakeRunner({"prog.py": lambda stdin, args: next(answers)})
    with asker(runner, PROGRAM, False, LIMITS, 2.0) as ask:
        replies = [ask(b"state %d\n" % n) for n in range(4)]
    assert replies == [Reply("1 2"), Reply(failure="runtime error: exit code 2: bad"),
                       Reply(failure="no answer (empty output)"),
                       Reply(failure="time limit: still running after 2 s (wall time)")]
    assert [stdin for _, stdin, _ in runner.runs] == [b"state 0\n", b"state 1\n", b"state 2\n", b"state 3\n"]


def test_a_persistent_program_is_restarted_after_a_failure():
    answers = iter([FakeRun(b"a\n"), FakeRun(b"", exit_code=1, stderr="died"), FakeRun(b"b\n")])
    runner = FakeRunner({"prog.py": lambda stdin, args: next(answers)})
    with asker(runner, PROGRAM, True, LIMITS, 2.0) as ask:
        replies = [ask(b"s\n") for _ in range(3)]
        assert ask.restarts == 1    # type: ignore[union-attr]
    assert replies == [Reply("a"), Reply(failure="crash: the program crashed (exit code 1): died"), Reply("b")]


def test_an_interactive_task_plays_its_match_and_a_crashing_match_is_a_judge_error():
    runner = FakeRunner({"prog.py": lambda stdin, args: FakeRun(stdin.upper())})

    def play(ask):
        return Verdict.accept(ask(b"hi\n").line or "")

    result = grade_interactive(runner, InteractiveTask("walk", PROGRAM, play, False, LIMITS, 1.0), "maze/x")
    assert (result.entry, result.case, result.verdict.message) == ("maze/x", "walk", "HI")
    broken = grade_interactive(runner, InteractiveTask("walk", PROGRAM, lambda ask: 1 / 0, False, LIMITS, 1.0))
    assert broken.verdict.status is Status.JUDGE_ERROR and "ZeroDivisionError" in broken.verdict.message
