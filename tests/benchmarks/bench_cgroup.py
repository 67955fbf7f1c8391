"""What a cgroup per run costs, as ratios measured in one run (so a slow VM and a fast host
compare): cgroup v1 on a root v1 host, cgroup v2 wherever verify gets a folder of its own.

    python tests/benchmarks/bench_cgroup.py [--repeat N] [--runs M]

1. The group's own cycle, as a run does it: RunCgroup.create (folders, memory and process
   limits, the cgroup.procs descriptors), a forked child joining through them, usage(),
   kill_all() and remove(); against a bare fork and wait, interleaved. Medians in ms (of
   the whole and of each step) and their ratio.
2. A whole run: the same Python program (a CPU loop of about 0.3 s on the developers'
   machine) by run_program with a cgroup per run and with rlimits only, interleaved, in
   the same sandbox policy; medians and the cgroup's cost in % of the rlimits run.
The setup in use (v1 or v2, and the folder of the run groups) is printed first; nothing
is asserted.
"""
from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from verify.runner import Limits, Program, resolve_isolation, run_program  # noqa: E402
from verify.runner.cgroup import CgroupSetup, RunCgroup, probed_setup, unavailable_reason  # noqa: E402

BURN = "total = 0\nfor i in range(3_000_000):\n    total += i * i\nprint(total % 7)\n"


STEPS = ("create", "fork+join+wait", "usage", "kill_all", "remove")


def group_cycle(setup: CgroupSetup) -> list[float]:
    """The seconds of each of STEPS."""
    marks = [time.perf_counter()]
    group = RunCgroup.create(setup, 256 << 20, 64)
    marks.append(time.perf_counter())
    child = os.fork()
    if child == 0:
        try:
            for fd in group.procs_fds:
                os.write(fd, b"0")
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    marks.append(time.perf_counter())
    group.usage()
    marks.append(time.perf_counter())
    group.kill_all()
    marks.append(time.perf_counter())
    group.remove()
    marks.append(time.perf_counter())
    return [later - earlier for earlier, later in itertools.pairwise(marks)]


def bare_fork() -> float:
    start = time.perf_counter()
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
    return time.perf_counter() - start


def whole_runs(runs: int) -> None:
    policy = "auto"
    with_cgroup = resolve_isolation(policy, cgroups=True)
    without = resolve_isolation(policy, cgroups=False)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "burn.py"
        source.write_text(BURN)
        program = Program("python", source)
        limits = Limits(wall_time=120.0, cpu_time=60.0, memory=512 << 20)
        times: dict[str, list[float]] = {with_cgroup.name: [], without.name: []}
        for isolation in (with_cgroup, without):               # compile caches, warm the page cache
            run_program(program, limits=limits, isolation=isolation)
        for _ in range(runs):
            for isolation in (with_cgroup, without):
                start = time.perf_counter()
                result = run_program(program, limits=limits, isolation=isolation)
                times[isolation.name].append(time.perf_counter() - start)
                if result.exit_code != 0:
                    raise SystemExit(f"the Python run failed under {isolation.name}: {result}")
    cgroup_median = statistics.median(times[with_cgroup.name])
    rlimits_median = statistics.median(times[without.name])
    print(f"2. a whole run of a Python CPU loop, {runs} each, interleaved (medians):")
    print(f"   {with_cgroup.name}: {cgroup_median * 1000:.0f} ms")
    print(f"   {without.name}: {rlimits_median * 1000:.0f} ms")
    print(f"   the cgroup per run: {(cgroup_median / rlimits_median - 1) * 100:+.1f} % of the rlimits run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40, help="group cycles (and bare forks) to time")
    parser.add_argument("--runs", type=int, default=5, help="whole runs per accounting (0: skip)")
    options = parser.parse_args()
    setup = probed_setup()
    if setup is None:
        raise SystemExit(f"no cgroup per run here: {unavailable_reason()}")
    print(f"{setup.name}: run groups in {', '.join(str(folder) for folder in setup.parent_folders)}")
    steps: list[list[float]] = []
    forks: list[float] = []
    for _ in range(options.repeat):
        steps.append(group_cycle(setup))
        forks.append(bare_fork())
    cycles = [sum(times) for times in steps]
    cycle, fork = statistics.median(cycles), statistics.median(forks)
    print(f"1. group cycle (create, join, usage, kill, remove), {options.repeat} each, interleaved (medians):")
    print(f"   {setup.name} cycle: {cycle * 1000:.2f} ms (fastest {min(cycles) * 1000:.2f} ms)")
    print(f"   bare fork + wait: {fork * 1000:.2f} ms (fastest {min(forks) * 1000:.2f} ms)")
    print("   steps: " + ", ".join(f"{name} {statistics.median(t[i] for t in steps) * 1000:.2f}"
                                   for i, name in enumerate(STEPS)) + " ms")
    print(f"   the group alone (cycle - fork): {(cycle - fork) * 1000:.2f} ms; cycle / fork: {cycle / fork:.2f}")
    if options.runs > 0:
        whole_runs(options.runs)


if __name__ == "__main__":
    main()
