"""The executor seam: threads here against a Dask LocalCluster of 2 workers. Prints figures; asserts nothing.

    python3 tests/benchmarks/bench_cluster.py [--sizes 15,20] [--seeds 1,2] [--noop 400] [--rounds 1]

1. Scheduling overhead: ``--noop`` jobs that do nothing, through the local executor
   and through the cluster (2 worker processes, 1 thread each): milliseconds per job.
2. The bundled maze entries' tournament (submissions/maze) at ``--sizes`` and
   ``--seeds``, with the local executor (2 threads) and on the cluster, alternating
   for ``--rounds``: wall times, their ratio, and whether the tables are identical.
   The cluster's scheduler sends a worker one job per thread
   (``distributed.scheduler.worker-saturation`` 1.0, as docs/cluster.md advises):
   walks differ in length by 100x, and a long one queued behind another on a busy
   worker would leave the other idle.
3. The per-job costs measured in the local run (a maze; a walk per step, by solver
   mode) and, from them, the paper estimate for 200 entries (architect + solver each)
   at sizes 15..50 and 3 seeds on 1, 10 and 100 workers, and the number of workers at
   which the scheduler, not the workers, sets the pace.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import dask  # noqa: E402
from distributed import LocalCluster  # noqa: E402
from maze_koth import run_tournament  # noqa: E402

from verify.contests.maze.play import MazeLimits  # noqa: E402
from verify.contests.maze.tournament import Contestant, MatchJob, MazeJob, board_of  # noqa: E402
from verify.entries import find_entries, load_entry  # noqa: E402
from verify.executors.dask import DaskExecutor  # noqa: E402
from verify.grading import Grader, LocalRunner  # noqa: E402
from verify.grading.executor import Executor, LocalExecutor  # noqa: E402
from verify.reports.tournament import render_table  # noqa: E402

ENTRIES = 200
SIZES = range(15, 51)
SEEDS = 3


def nothing(grader: Any, item: int) -> int:
    return item


def per_job_ms(executor: Executor, jobs: int) -> float:
    executor.map(nothing, list(range(20)), grader=None, parallel=2)          # warm: connections, imports
    start = time.perf_counter()
    executor.map(nothing, list(range(jobs)), grader=None, parallel=2)
    return (time.perf_counter() - start) / jobs * 1000


class TimingGrader(Grader):
    """A local grader that keeps each job's wall time and item (for the per-job costs)."""

    def __init__(self) -> None:
        super().__init__(LocalRunner(), LocalExecutor())
        self.timed: list[tuple[Any, Any, float]] = []

    def map(self, job: Callable[..., Any], items: Sequence[Any], parallel: int,
            on_done: Callable[[int, Any], None] | None = None) -> list[Any]:
        def timed(grader: Grader, item: Any) -> tuple[Any, float]:
            start = time.perf_counter()
            return job(grader, item), time.perf_counter() - start

        results = self.executor.map(timed, items, grader=self, parallel=parallel)
        self.timed += [(item, result, seconds) for item, (result, seconds) in zip(items, results, strict=True)]
        outcomes = [result for result, _ in results]
        for index, outcome in enumerate(outcomes):
            if on_done is not None:
                on_done(index, outcome)
        return outcomes


def estimate(grader: TimingGrader, measured_sizes: list[int], overhead_ms: float) -> None:
    """Per-job costs of the local run, and the paper estimate for ENTRIES entries.

    A walk costs its steps times the cost of a step in its solver's mode (a process per
    step, or a line to a persistent process); half the solvers are taken per step, half
    persistent (as the bundled entries). Steps per walk at the smallest size measured,
    scaled as size^2 (a solver that visits each cell a bounded number of times) and, as
    a bound, size^3 (the step limit's growth), never above the step limit size^3."""
    timed = [(getattr(item, "job", item), record, seconds) for item, record, seconds in grader.timed]
    mazes = [seconds for item, _, seconds in timed if isinstance(item, MazeJob)]
    steps: dict[tuple[bool, int], list[int]] = defaultdict(list)
    per_step: dict[bool, list[float]] = defaultdict(list)
    for item, record, seconds in timed:
        if isinstance(item, MatchJob) and record["steps_taken"]:
            persistent = item.solver.options.persistent
            steps[(persistent, item.maze_key[1])].append(record["steps_taken"])
            per_step[persistent].append(seconds / record["steps_taken"])
    maze_cost = statistics.fmean(mazes)
    step_cost = {mode: statistics.median(values) for mode, values in per_step.items()}
    name = {False: "per-step", True: "persistent"}
    print(f"\nper-job costs measured here (local run): a maze {maze_cost * 1000:.0f} ms; a step "
          + ", ".join(f"{name[mode]} {cost * 1000:.2f} ms" for mode, cost in sorted(step_cost.items()))
          + "; steps per walk " + ", ".join(f"{name[mode]} size {size}: {statistics.fmean(values):.0f}"
                                            for (mode, size), values in sorted(steps.items())))
    low = min(measured_sizes)
    base = {mode: statistics.fmean(steps[(mode, low)]) for mode in step_cost if steps[(mode, low)]}
    mazes_total = ENTRIES * SEEDS * len(SIZES)
    walks = mazes_total * (ENTRIES - 1)
    jobs = mazes_total + walks
    scheduler = jobs * overhead_ms / 1000
    print(f"paper estimate, {ENTRIES} entries, sizes {SIZES.start}..{SIZES.stop - 1}, {SEEDS} seeds: "
          f"{mazes_total} mazes + {walks} walks = {jobs} jobs; the scheduler at {overhead_ms:.2f} ms per job "
          f"(measured above: an upper bound) needs {scheduler / 3600:.1f} h for them all")
    for exponent in (2, 3):
        work = 0.0
        for size in SIZES:
            walk = statistics.fmean(min(size ** 3, base[mode] * (size / low) ** exponent) * step_cost[mode]
                                    for mode in base)
            work += ENTRIES * SEEDS * (maze_cost + (ENTRIES - 1) * walk)
        mean_job = work / jobs
        times = ", ".join(f"{workers} workers {max(work / workers, scheduler) / 86400:,.1f} days"
                          for workers in (1, 10, 100))
        print(f"  steps ~ size^{exponent}: {work / 3600:,.0f} worker-hours (mean job {mean_job:.2f} s): {times}; "
              f"the scheduler sets the pace beyond ~{mean_job * 1000 / overhead_ms:,.0f} workers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="15,20")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--noop", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=1)
    options = parser.parse_args()
    sizes = [int(s) for s in options.sizes.split(",")]
    seeds = [int(s) for s in options.seeds.split(",")]
    contestants = [Contestant(e.name, e.options) for e in map(load_entry, find_entries(ROOT / "submissions", "maze"))]
    print(f"tournament: {', '.join(c.name for c in contestants)}; sizes {sizes}, seeds {seeds} "
          "(the machine is shared with other work: compare the two columns of one round)")
    dask.config.set({"distributed.scheduler.worker-saturation": 1.0})
    timing = TimingGrader()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        cluster_executor = DaskExecutor(cluster.scheduler_address)
        try:
            local_ms, cluster_ms = per_job_ms(LocalExecutor(), options.noop), per_job_ms(cluster_executor, options.noop)
            print(f"scheduling overhead, {options.noop} empty jobs: local threads {local_ms:.3f} ms per job, "
                  f"cluster of 2 workers {cluster_ms:.2f} ms per job")
            ratios = []
            for round_number in range(1, options.rounds + 1):
                start = time.perf_counter()
                local = run_tournament(timing if round_number == 1 else Grader(LocalRunner()), contestants, sizes,
                                       seeds, jobs=2, limits=MazeLimits())
                local_seconds = time.perf_counter() - start
                start = time.perf_counter()
                remote = run_tournament(Grader(LocalRunner(), cluster_executor), contestants, sizes, seeds, jobs=2,
                                        limits=MazeLimits())
                cluster_seconds = time.perf_counter() - start
                jobs = len(local.mazes) + len(local.matches)
                ratios.append(cluster_seconds / local_seconds)
                print(f"round {round_number}: {jobs} jobs ({len(local.mazes)} mazes, {len(local.matches)} walks): "
                      f"local executor (2 threads) {local_seconds:.1f} s, cluster of 2 workers "
                      f"{cluster_seconds:.1f} s, cluster / local = {ratios[-1]:.2f}; difference per job "
                      f"{(cluster_seconds - local_seconds) / jobs * 1000:+.0f} ms; identical tables: "
                      f"{'yes' if render_table(board_of(local)) == render_table(board_of(remote)) else 'NO'}")
        finally:
            cluster_executor.close()
    if len(ratios) > 1:
        print(f"median cluster / local over {len(ratios)} rounds: {statistics.median(ratios):.2f}")
    estimate(timing, sizes, cluster_ms)


if __name__ == "__main__":
    main()
