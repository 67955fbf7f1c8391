"""Prepare once, run many: a program is prepared once per runner (per build key) and a step
of a match only runs what was prepared (it reads no file, checks no flag, hashes nothing)."""
from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from verify.contests.contract import BatchTask, Reply
from verify.contests.maze.match import Match
from verify.contests.maze.model import ANY_SIZE, parse_maze
from verify.entries import load_entry
from verify.errors import JudgeFailure, VerifyError
from verify.grading import FakeRun, FakeRunner, LocalRunner, build_failure, grade_batch
from verify.grading.fake import FakePrepared
from verify.grading.interactive import asker
from verify.grading.memo import PreparedMemo
from verify.runner import CompileError, Limits, Program, artefacts
from verify.runner import build as build_module
from verify.verdict import Status, Verdict

ROOT = Path(__file__).resolve().parent.parent
FIRST_MOVE = ROOT / "tests" / "fixtures" / "maze" / "first-move"
LIMITS = Limits(wall_time=10.0, cpu_time=10.0, memory=256 << 20, output=1 << 20)
PROGRAM = Program("python", Path("/entries/x/prog.py"))
SPEC_5X5 = parse_maze("5\n4 2\n0 2\n00001011101110001100\n10100110000100010010\n", ANY_SIZE)
PRINTS = '#include <stdio.h>\nint main(void){puts("%s");return 0;}\n'


class Says:
    """A judge accepting exactly ``expected``."""

    def __init__(self, expected: bytes):
        self.expected, self.seen = expected, b""

    def feed(self, chunk: bytes) -> Verdict | None:
        self.seen += chunk
        return None

    def finish(self) -> Verdict:
        return Verdict.accept() if self.seen == self.expected else Verdict.wrong(f"got {self.seen!r}")


def judged(expected: bytes):
    return lambda: Says(expected)


# --- the grading core over the fake runner: who calls prepare, how often ---------------------

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


def test_a_runner_runs_only_what_it_prepared(tmp_path, default_isolation):
    fake = FakeRunner({"prog.py": lambda stdin, args: FakeRun(b"ok\n")})
    source = tmp_path / "prog.py"
    source.write_text("print('ok')\n")
    local_prepared = build_module.prepare(Program("python", source), isolation=default_isolation,
                                          cache=tmp_path / "cache")
    with pytest.raises(TypeError, match="FakeRunner runs what it prepared"):
        fake.run(local_prepared, stdin=b"", args=(), limits=LIMITS)     # type: ignore[arg-type]
    with LocalRunner(cache=tmp_path / "cache") as local, pytest.raises(TypeError, match="LocalRunner runs what"):
        local.run(FakePrepared(PROGRAM, lambda stdin, args: FakeRun()), stdin=b"", args=(), limits=LIMITS)


# --- the memo a runner keeps ------------------------------------------------------------------

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


# --- the local runner: real builds and runs ---------------------------------------------------

class Counted:
    """Counts the calls of the build's steps that read files, check flags or hash."""

    def __init__(self, monkeypatch, cache: Path):
        self.calls: dict[str, int] = {}
        for name in ("recipe", "_read_source", "_digest", "_compile"):
            self._count(monkeypatch, build_module, name)
        self._count(monkeypatch, build_module, "flag_paths")
        real_intact = artefacts.is_intact

        def is_intact(path: Path) -> bool:
            if path.is_relative_to(cache):
                self.calls["is_intact"] = self.calls.get("is_intact", 0) + 1
            return real_intact(path)

        monkeypatch.setattr(artefacts, "is_intact", is_intact)
        monkeypatch.setattr("verify.grading.runners.recipe", build_module.recipe)   # (counted: the module's)

    def _count(self, monkeypatch, module, name: str) -> None:
        real = getattr(module, name)

        def counted(*args, **kwargs):
            self.calls[name] = self.calls.get(name, 0) + 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)


@pytest.fixture
def local(tmp_path, default_isolation):
    with LocalRunner(default_isolation, cache=tmp_path / "cache") as runner:
        yield runner


@pytest.mark.parametrize("persistent", [False, True])
def test_a_maze_match_on_a_local_runner_prepares_its_solver_once(tmp_path, local, monkeypatch, persistent):
    counted = Counted(monkeypatch, tmp_path / "cache")
    solver = load_entry(FIRST_MOVE).options.solver               # a C solver: built, then run
    log: list[dict] = []
    with asker(local, solver, persistent, LIMITS, 5.0) as ask:
        Match(SPEC_5X5, limit=4).play(ask, log.append)
    steps = [record for record in log if record["type"] == "step"]
    assert len(steps) == 4 and not any("failure" in step for step in steps)
    assert counted.calls == {"recipe": 1, "flag_paths": 1, "_read_source": 1, "_digest": 1, "_compile": 1,
                             "is_intact": 1}


def c_program(tmp_path, name: str, text: str) -> tuple[Path, Program]:
    """A C program of its own entry folder under ``tmp_path``: its source, and the program."""
    source = tmp_path / "entry" / name
    source.parent.mkdir()
    source.write_text(text)
    return source, Program("c", source)


def test_a_checks_jobs_build_and_check_the_artefact_once_and_see_a_changed_source(tmp_path, local, monkeypatch):
    counted = Counted(monkeypatch, tmp_path / "cache")
    source, program = c_program(tmp_path, "say.c", PRINTS % "one")
    assert build_failure(local, program) is None
    for _ in range(3):                      # the case jobs: plain data, each naming its program again
        assert grade_batch(local, BatchTask("case", program, b"", judged(b"one\n")), LIMITS).verdict.accepted
    assert (counted.calls["_compile"], counted.calls["is_intact"], counted.calls["recipe"]) == (1, 1, 4)
    source.write_text(PRINTS % "two")       # a new key: built, and run, again
    assert grade_batch(local, BatchTask("case", program, b"", judged(b"two\n")), LIMITS).verdict.accepted
    assert counted.calls["_compile"] == 2


def test_a_program_that_does_not_build_is_compiled_once_per_runner(tmp_path, local, monkeypatch):
    counted = Counted(monkeypatch, tmp_path / "cache")
    source, program = c_program(tmp_path, "bad.c", "int main(void) { return nope; }\n")
    failure = build_failure(local, program)
    assert failure is not None and failure.status is Status.COMPILE_ERROR
    again = grade_batch(local, BatchTask("case", program, b"", judged(b"")), LIMITS).verdict
    assert (again.status, again.message) == (failure.status, failure.message)
    assert counted.calls["_compile"] == 1


def test_an_artefact_removed_from_the_cache_is_built_again(tmp_path, local, monkeypatch):
    counted = Counted(monkeypatch, tmp_path / "cache")
    source, program = c_program(tmp_path, "say.c", PRINTS % "here")
    first = local.prepare(program)
    assert first.build is not None
    shutil.rmtree(first.build)              # (`verify cache` between two jobs of a long-lived worker)
    assert grade_batch(local, BatchTask("case", program, b"", judged(b"here\n")), LIMITS).verdict.accepted
    assert counted.calls["_compile"] == 2
