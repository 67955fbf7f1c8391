"""verify's jobs on a real Dask cluster: a distributed.LocalCluster of 2 worker processes.

The same tournament tables and the same checks as on this machine, whatever the
workers; a worker killed in the middle of a tournament; workers that refuse to run
unsandboxed or on files other than the client's; one-line errors on the command line.
"""
from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from distributed import Client, LocalCluster
from maze_koth import run_tournament

from verify.commands.cache import check_key
from verify.commands.check import CheckOptions, check, results_cache
from verify.commands.jobs import build_program, load_checks, run_case
from verify.commands.progress import Progress
from verify.contests.maze.model import ANY_SIZE
from verify.contests.maze.play import MazeLimits
from verify.contests.maze.tournament import TOURNAMENT, Contestant, MazeJob, TournamentResult, board_of
from verify.entries import load_entry
from verify.executors import dask as dask_executor
from verify.executors.dask import (
    DaskExecutor,
    OtherVerify,
    UnsandboxedWorker,
    on_worker,
    read_source_digest,
    worker_isolation,
)
from verify.files import folder_digest
from verify.grading import Grader, LocalRunner
from verify.grading.executor import ExecutorError
from verify.pipeline.execute import case_jobs
from verify.pipeline.guard import WorkerMismatch
from verify.pipeline.plan import CheckPlan
from verify.pipeline.tournament import SentJob, play_job
from verify.reports.tournament import render_markdown, render_table
from verify.results import CaseResult
from verify.runner import Limits
from verify.settings import Settings
from verify.verdict import Status, Verdict

ROOT = Path(__file__).resolve().parents[2]
MAZE = ROOT / "submissions" / "maze"
LIMITS = MazeLimits(architect=Limits(wall_time=5.0, cpu_time=5.0, memory=512 << 20, output=1 << 20),
                    step_timeout=2.0, sizes=ANY_SIZE)
ENTRIES = [MAZE / "theseus", MAZE / "minotaur", MAZE / "drunkard", ROOT / "tests" / "fixtures" / "maze" / "first-move"]
SIZES, SEEDS = [6, 8], [1, 2]


def local_cluster(**worker_options) -> LocalCluster:
    # its HTTP server on a free port: two clusters of one test run never contend for 8787
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                        **worker_options)


@pytest.fixture(scope="module")
def cluster():
    with local_cluster() as started:
        yield started


@pytest.fixture(scope="module")
def executor(cluster):
    connected = DaskExecutor(cluster.scheduler_address)
    yield connected
    connected.close()


def contestants() -> list[Contestant]:
    return [Contestant(entry.name, entry.options) for entry in map(load_entry, ENTRIES)]


def tournament(grader: Grader, **options) -> TournamentResult:
    return run_tournament(grader, contestants(), SIZES, SEEDS, jobs=2, limits=LIMITS, patience=3, **options)


def tables(result: TournamentResult) -> tuple[str, str, str]:
    """What a tournament reports, byte for byte (the architects' wall times aside: they are measures)."""
    data = result.to_json()
    for maze in data["mazes"]:
        maze.pop("wall_time")
    return render_table(board_of(result)), render_markdown(board_of(result)), json.dumps(data, sort_keys=True)


@pytest.fixture(scope="module")
def local_tables():
    return tables(tournament(Grader(LocalRunner())))


def test_a_tournament_on_two_workers_gives_the_local_tables_byte_for_byte(executor, local_tables):
    assert executor.workers() == 2
    result = tournament(Grader(LocalRunner(), executor))
    assert tables(result) == local_tables
    assert len(result.matches) == sum(len(result.opponents(key[0])) for key, built in result.mazes.items()
                                      if built.maze is not None) > 0
    assert executor.isolation("here") == LocalRunner().isolation


def test_a_worker_killed_mid_tournament_has_its_jobs_run_again_and_the_tables_are_whole(local_tables):
    killed: list[str] = []
    with local_cluster() as started:
        executor = DaskExecutor(started.scheduler_address)

        def kill_a_busy_worker(message: str) -> None:
            if killed or "'s maze" not in message:           # during the matches, once
                return
            busy = [address for address, keys in executor.client.processing().items() if keys]
            assert busy, "no job in flight to lose"
            pid = executor.client.run(os.getpid, workers=[busy[0]])[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(busy[0])

        try:
            result = tournament(Grader(LocalRunner(), executor), progress=kill_a_busy_worker)
        finally:
            executor.close()
    assert killed
    assert tables(result) == local_tables


def test_results_come_in_the_jobs_order_with_few_jobs_in_flight(executor, monkeypatch):
    monkeypatch.setattr(dask_executor, "IN_FLIGHT", 3)      # the next job submitted as one finishes
    forfeits = [SentJob(TOURNAMENT, MazeJob("nobody", None, 5, seed, LIMITS, "no architect"), None, ())
                for seed in range(20)]
    done: list[int] = []
    records = executor.map(play_job, forfeits, grader=None, parallel=1, on_done=lambda index, record: done.append(index))
    assert [record["seed"] for record in records] == list(range(20))
    assert sorted(done) == list(range(20)) and records[0]["forfeit"] == "no architect"


def test_a_job_over_its_limits_is_a_verdict_not_a_lost_job(executor):
    sleeper = load_entry(ROOT / "tests" / "fixtures" / "maze" / "sleeper").options.architect
    quick = replace(LIMITS, architect=Limits(wall_time=0.5, cpu_time=0.5, memory=512 << 20, output=1 << 20))
    job = SentJob(TOURNAMENT, MazeJob("sleeper", sleeper, 5, 1, quick, None), None,
                  ((sleeper.folder, folder_digest(sleeper.folder)),))
    (remote,) = executor.map(play_job, [job], grader=None, parallel=1)
    local = play_job(Grader(LocalRunner()), job)
    assert remote["forfeit"].startswith("time limit: still running after 0.5 s")
    assert {k: v for k, v in remote.items() if k != "wall_time"} == {k: v for k, v in local.items() if k != "wall_time"}


def test_a_check_on_two_workers_matches_the_local_one_and_lands_in_the_cache(executor, tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    cases = tmp_path / "testcases"                 # on the filesystem the workers share
    cases.mkdir()
    for name in ("g03-3x3.txt", "g06-6x6-a.txt", "spec-puzzle-1.txt"):
        (cases / name).write_bytes((ROOT / "testcases" / "arrows" / name).read_bytes())
    runner = LocalRunner()
    paths = [ROOT / "submissions" / "arrows" / "c-gaps", MAZE / "minotaur"]

    def verdicts(report: str) -> list[tuple[str, str, dict, str]]:
        return [(case["entry"], case["case"], case["verdict"], case["isolation"])
                for entry in json.loads(report)["entries"] for case in entry["cases"]]

    options = CheckOptions(jobs=2, fmt="json", testcases=cases)
    local, local_code = check(runner, paths, options, settings=Settings.from_environment(os.environ))
    remote, remote_code = check(runner, paths, options, settings=Settings.from_environment(os.environ),
                                executor=executor)
    assert (remote_code, verdicts(remote)) == (local_code, verdicts(local))
    assert [case for entry, case, _, _ in verdicts(remote) if entry == "arrows/c-gaps"] == [
        "g03-3x3", "g06-6x6-a", "spec-puzzle-1"]
    # `verify rank` looks each check up under the key it computes here: the cluster's results are found
    for loaded in load_checks(paths, cases):
        stored = results_cache(Settings.from_environment(os.environ)).load(check_key(loaded, Limits(), runner.isolation, cases))
        assert stored is not None and stored.label == loaded.label and stored.passed


def test_a_worker_finding_other_files_than_the_client_refuses(executor):
    (loaded,) = load_checks([MAZE / "theseus"], None)
    (job, *_) = case_jobs(CheckPlan((loaded,), Limits()))
    assert on_worker_result(executor, job).entry == "maze/theseus"
    with pytest.raises(WorkerMismatch, match="the entry's files differ from the ones the check loaded"):
        on_worker_result(executor, replace(job, digest="0" * 64))
    with pytest.raises(WorkerMismatch, match="the cases a worker finds differ"):
        on_worker_result(executor, replace(job, task_digest="0" * 64))
    architect = load_entry(MAZE / "minotaur").options.architect
    job = MazeJob("minotaur", architect, 5, 1, LIMITS, None)
    with pytest.raises(WorkerMismatch, match="the entry's files differ from the ones the tournament loaded"):
        executor.map(play_job, [SentJob(TOURNAMENT, job, None, ((architect.folder, "0" * 64),))], grader=None,
                     parallel=1)


def test_a_worker_refuses_the_jobs_of_a_client_with_another_verify(executor):
    program = load_entry(MAZE / "drunkard").options.solver
    future = executor.client.submit(on_worker, build_program, program, "0" * 64, pure=False)
    with pytest.raises(OtherVerify, match="runs another verify than the client's"):
        future.result()


def on_worker_result(executor: DaskExecutor, job):
    """One check job through the cluster (pickled: the worker re-creates its task)."""
    return executor.map(run_case, [job], grader=None, parallel=1)[0]


def test_workers_refuse_to_run_unsandboxed():
    with local_cluster(env={"VERIFY_SANDBOX": "none"}) as started:
        with pytest.raises(ExecutorError, match=r"worker tcp://.*: refuses to run entries without bubblewrap "
                                                r"\(its isolation: no sandbox"):
            DaskExecutor(started.scheduler_address)
        with Client(started.scheduler_address, set_as_default=False) as client:
            assert all(name.startswith("refused: ") for name in client.run(worker_isolation).values())
            (program,) = [load_entry(MAZE / "drunkard").options.solver]
            with pytest.raises(UnsandboxedWorker, match="refuses to run entries without bubblewrap"):
                client.submit(on_worker, build_program, program, read_source_digest(), pure=False).result()


QUICK_CONNECT = {"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}   # Dask's own setting: no scheduler, fail soon


def verify_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **QUICK_CONNECT, **(env or {})})


@pytest.mark.parametrize("args, env, message", [
    (["koth", "maze", "--cluster", "tcp://127.0.0.1:9", "--sizes", "6", "--size-range", "2..50"], {},
     "cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'"),
    (["koth", "maze", "--cluster", "not an address", "--sizes", "6", "--size-range", "2..50"], {},
     "cannot reach a Dask scheduler at 'not an address'"),
    (["check", "submissions/maze/theseus", "--sandbox", "none"], {"VERIFY_CLUSTER": "tcp://127.0.0.1:9"},
     "--cluster runs entries only in the workers' sandbox: it cannot be combined with --sandbox none"),
    (["koth", "maze", "--cluster", "tcp://127.0.0.1:9", "--sizes", "6", "--size-range", "2..50"],
     {"VERIFY_BLOCK_DASK": "1"}, "--cluster needs Dask: pip install 'verify[cluster]'"),
])
def test_cluster_errors_are_one_line_and_exit_2(args, env, message):
    if env.get("VERIFY_BLOCK_DASK"):      # Dask not installed: its import fails
        args = ["-c", "import sys; sys.modules['distributed'] = None; from verify.cli import run; "
                f"sys.argv[1:] = {args!r}; run()"]
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT), **QUICK_CONNECT})
    else:
        done = verify_cli(*args, env=env)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_help_names_the_cluster_option():
    for command in (["check", "--help"], ["koth", "maze", "--help"]):
        done = verify_cli(*command)
        assert done.returncode == 0 and "--cluster ADDRESS" in done.stdout and "VERIFY_CLUSTER" in done.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_cluster_shows_the_workers_connected(executor, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")          # room for every column
    stream = _Terminal()
    progress = Progress(stream, workers=executor.workers)
    progress.finished(0, CaseResult("maze/minotaur", "architect", Verdict(Status.ACCEPTED)), 3, 10)
    shown = stream.getvalue()
    progress.close()
    assert "3/10" in shown and "2 workers · maze/minotaur architect: ok" in shown


def test_a_workers_grader_is_kept_by_the_worker_and_closed_with_it():
    """One grader per worker, made at its first job, among the worker's plugins; closing the
    worker closes its runner (its fork servers and sandboxes built ahead with it)."""
    from verify.executors.dask_worker import PLUGIN
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as started:
        (worker,) = started.workers.values()
        grader = dask_executor.worker_grader(worker)
        assert dask_executor.worker_grader(worker) is grader and worker.plugins[PLUGIN].grader() is grader
        assert worker_isolation(worker) == grader.runner.isolation
        plugin = worker.plugins[PLUGIN]
    assert plugin._runner is None and PLUGIN not in worker.plugins
