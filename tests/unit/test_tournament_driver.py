"""The core's King-of-the-Hill driver on a fake contest over the FakeRunner: no process starts.

The fake contest ("relay") has two stages: each entry is asked for a number, then each
entry is asked to add one to every other entry's number. The driver must build every
program first and say which cannot run, give each stage the results of the stages before
in the order they were scheduled (whatever order the costs made them run in), write each
job's log where the contest names it, report progress, refuse two entries of one name,
and guard the folders a job runs from."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from verify.contests.contract import (
    BatchTask,
    Board,
    Contest,
    Contestant,
    Grader,
    Scoring,
    Standing,
    Standings,
    Tournament,
    TournamentOption,
)
from verify.errors import VerifyError
from verify.grading import FakeRun, FakeRunner
from verify.grading import Grader as CoreGrader
from verify.pipeline.guard import WorkerMismatch
from verify.pipeline.tournament import SentJob, play_job, play_tournament
from verify.reports.tournament import render_markdown, render_table
from verify.runner import Limits, Program
from verify.verdict import Verdict

LIMITS = Limits(wall_time=1.0, cpu_time=1.0, memory=64 << 20, output=1 << 10)


class Kept:
    """A judge that keeps what the program printed."""

    def __init__(self) -> None:
        self.output = b""

    def feed(self, chunk: bytes) -> Verdict | None:
        self.output += chunk
        return None

    def finish(self) -> Verdict:
        return Verdict.accept("printed")


@dataclass(frozen=True)
class Ask:
    who: str
    program: Program
    stdin: bytes
    broken: str | None
    of: str = ""                      # stage 1: whose number is added to


def ask(grader: Grader, job: Ask) -> str:
    if job.broken:
        return f"broken: {job.broken}"
    judge = Kept()
    verdict, _ = grader.run_batch(BatchTask(job.who, job.program, job.stdin, lambda: judge, (), LIMITS))
    return judge.output.decode().strip() if verdict.accepted else f"failed: {verdict.summary()}"


class RelayTournament(Tournament[Program, int]):
    stages = 2
    options = (TournamentOption("--start", "The number stage 0 gives.", "0"),)
    seen: ClassVar[list[Sequence[Sequence[Any]]]] = []

    def parse_options(self, values: Mapping[str, str | None]) -> int:
        return int(values.get("start") or "0")

    def schedule(self, stage: int, contestants: Sequence[Contestant], options: int,
                 broken: Mapping[Program, str], earlier: Sequence[Sequence[Any]]) -> list[Ask]:
        self.seen.append([list(results) for results in earlier])
        if stage == 0:
            return [Ask(c.name, c.options, f"{options}\n".encode(), broken.get(c.options)) for c in contestants]
        numbers = dict(zip((c.name for c in contestants), earlier[0], strict=True))
        return [Ask(b.name, b.options, f"{numbers[a.name]}\n".encode(), broken.get(b.options), a.name)
                for a in contestants if numbers[a.name].isdigit() for b in contestants if a is not b]

    def play(self, grader: Grader, job: Ask, log: Path | None) -> str:
        answer = ask(grader, job)
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(json.dumps({"who": job.who, "of": job.of, "answer": answer}))
        return answer

    def programs(self, job: Ask) -> list[Program]:
        return [] if job.broken else [job.program]

    def describe(self, job: Ask, result: str) -> str:
        return f"{job.who} on {job.of or 'the start'}: {result}"

    def log_name(self, job: Ask) -> str:
        return f"{job.who}-{job.of or 'start'}.json"

    def cost(self, job: Ask) -> float:
        return float(len(job.who))         # the longest names first: not the scheduled order

    def standings(self, contestants: Sequence[Contestant], options: int,
                  results: Sequence[Sequence[Any]]) -> Standings:
        names = [c.name for c in contestants]
        numbers = dict(zip(names, results[0], strict=True))
        jobs = self.schedule(1, contestants, options, {}, [results[0]])
        right = {name: 0 for name in names}
        for job, answer in zip(jobs, results[1], strict=True):
            right[job.who] += answer == str(int(numbers[job.of]) + 1)
        board = sorted((Standing(n, right[n] / (len(names) - 1), len(names) - 1, {"number": numbers[n]})
                        for n in names), key=lambda s: (-(s.score or 0), s.name))
        return Standings("Relay", f"{len(results[1])} relays",
                         [Board("Players", "player", (("games", "relays"), ("number", "number")), board)],
                         record={"numbers": numbers}, result=results)


RELAY = RelayTournament()


class RelayContest(Contest):
    name = "relay"
    title = "Relay"
    scoring = Scoring.TOURNAMENT
    tournament = f"{__name__}:RELAY"

    def parse_options(self, entry: str, table: dict[str, Any], folder: Path) -> Program:
        raise NotImplementedError

    def programs(self, options: Program):
        return iter([options])


def adder(stdin: bytes, args: tuple[str, ...]) -> FakeRun:
    return FakeRun(f"{int(stdin) + 1}\n".encode())


def seven(stdin: bytes, args: tuple[str, ...]) -> FakeRun:
    return FakeRun(b"7\n")


def entrant(tmp_path: Path, name: str, source: str) -> Contestant:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    (folder / source).write_text("# scripted by the fake runner\n")
    return Contestant(name, Program("python", folder / source))


@pytest.fixture
def field(tmp_path):
    return [entrant(tmp_path, "ann", "adder.py"), entrant(tmp_path, "bartholomew", "seven.py"),
            entrant(tmp_path, "cy", "missing.py")]


def test_stages_builds_logs_and_progress(tmp_path, field):
    runner = FakeRunner({"adder.py": adder, "seven.py": seven}, broken={"missing.py": VerifyError("no such file")})
    lines: list[str] = []
    RELAY.seen.clear()
    standings = play_tournament(CoreGrader(runner), RelayContest(), field, 5, jobs=1, log_dir=tmp_path / "logs",
                                progress=lines.append)
    numbers, relays = standings.result
    # stage 0 in the scheduled order (the costs ran bartholomew first: one job at a time, progress in that order)
    assert numbers[:2] == ["6", "7"] and numbers[2].startswith("broken: could not run")
    assert RELAY.seen[0] == [] and RELAY.seen[1] == [numbers]
    # stage 1, over the numbers stage 0 gave (cy gave none): bartholomew always says 7, which is
    # ann's 6 plus one; ann adds one to bartholomew's 7; cy cannot run
    assert relays[0] == "7" and relays[2] == "8" and relays[1].startswith("broken") and relays[3].startswith("broken")
    board = {s.name: s for s in standings.boards[0].standings}
    assert board["ann"].score == 0.5 and board["bartholomew"].score == 0.5 and board["cy"].score == 0.0
    # every program built once, before any job ran; a broken one never ran
    assert [run for run in runner.runs if run[0] == "missing.py"] == []
    assert runner.runs[0][1] == b"5\n"
    assert len(lines) == 3 + 4 and lines[0].startswith("[1/3] bartholomew on the start: 7")
    assert lines[3].startswith("[1/4] bartholomew on ann: 7") and lines[-1].startswith("[4/4] ")
    assert json.loads((tmp_path / "logs" / "ann-bartholomew.json").read_text())["answer"] == "8"
    assert "Relay: 4 relays" in render_table(standings)
    assert "| player" in render_markdown(standings)


def test_two_entries_of_one_name_are_refused(tmp_path, field):
    with pytest.raises(VerifyError, match="two entries share a name: 'ann'"):
        play_tournament(CoreGrader(FakeRunner({})), RelayContest(), [field[0], field[0]], 0)


def test_a_contest_without_a_tournament_is_one_error(field):
    class Plain(RelayContest):
        tournament = ""

    with pytest.raises(VerifyError, match="relay entries do not meet in a tournament"):
        play_tournament(CoreGrader(FakeRunner({})), Plain(), field, 0)


def test_a_job_refuses_a_folder_that_is_not_the_one_loaded(tmp_path, field):
    runner = FakeRunner({"adder.py": adder})
    job = Ask("ann", field[0].options, b"1\n", None)
    folder = field[0].options.folder
    assert play_job(CoreGrader(runner), SentJob(RELAY, job, None, ())) == "2"
    with pytest.raises(WorkerMismatch, match="differ from the ones the tournament loaded"):
        play_job(CoreGrader(runner), SentJob(RELAY, job, None, ((folder, "0" * 64),)))
