"""Prepare once, run many, on a local runner: real builds and runs."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.unit.test_grading_prepare import LIMITS, PROGRAM
from verify.contests.contract import BatchTask
from verify.contests.maze.match import Match
from verify.contests.maze.model import ANY_SIZE, parse_maze
from verify.entries import load_entry
from verify.grading import FakeRun, FakeRunner, LocalRunner, build_failure, grade_batch
from verify.grading.fake import FakePrepared
from verify.grading.interactive import asker
from verify.runner import Program, artefacts
from verify.runner import build as build_module
from verify.verdict import Status, Verdict

ROOT = Path(__file__).resolve().parents[2]


FIRST_MOVE = ROOT / "tests" / "fixtures" / "maze" / "first-move"


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
