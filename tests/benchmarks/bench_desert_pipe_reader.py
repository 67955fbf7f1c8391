"""The desert judge reading the run's pipe itself against the runner feeding it chunks.

In one process, alternated ``--rounds`` times: the entry alone (its command line as `verify`
builds it, no sandbox, stdout to /dev/null), then ``grade_case`` with the judge reading the
pipe (``DesertJudge.pipe_reader``: the compiled pump in the runner's thread), then
``grade_case`` with the runner reading the pipe and feeding the judge on its worker thread
(the pipe reader switched off). Prints, per way, the median and minimum wall seconds, the
median CPU seconds of this process (the judge, the runner) and of its children (the entry,
the sandbox), and the load average before and after; asserts that every run is accepted.

    python3 tests/benchmarks/bench_desert_pipe_reader.py [--entry recursive-c] [--case one-row-26] [--rounds 7]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entry", default="recursive-c", help="an entry of submissions/desert")
    parser.add_argument("--case", default="one-row-26", help="a case of testcases/desert")
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()

    from verify.contests.contract import TestCase
    from verify.contests.desert import judge as desert_judge
    from verify.entries import load_entry
    from verify.grading import LocalRunner, grade_case
    from verify.runner import Limits, prepare

    entry = load_entry(ROOT / "submissions" / "desert" / options.entry)
    program = entry.program
    assert program is not None
    limits = Limits(wall_time=120, cpu_time=120, memory=1 << 30, output=1 << 31)
    path = ROOT / "testcases" / "desert" / f"{options.case}.txt"
    map_bytes = path.read_bytes()
    case: TestCase[Any] = TestCase(options.case, map_bytes, path, (map_bytes.decode(),))
    runner = LocalRunner()
    argv = prepare(program, isolation=runner.resolved).argv([], limits)
    reader_of = desert_judge.DesertJudge.pipe_reader

    def timed(action) -> tuple[float, float, float]:
        before, started = cpu(), time.perf_counter()
        action()
        wall, after = time.perf_counter() - started, cpu()
        return wall, after[0] - before[0], after[1] - before[1]

    def alone() -> None:
        with open(os.devnull, "wb") as sink:
            subprocess.run(argv, input=map_bytes, stdout=sink, cwd=program.folder, check=True)

    def graded(piped: bool) -> None:
        desert_judge.DesertJudge.pipe_reader = reader_of if piped else (lambda self: None)  # type: ignore[method-assign]
        result = grade_case(runner, entry, case, limits)
        assert result.verdict.accepted, result.verdict.message

    graded(True)
    graded(False)                      # builds, loads the kernel, warms the caches
    ways = {"entry alone": alone, "judge reads the pipe": lambda: graded(True),
            "runner feeds the judge": lambda: graded(False)}
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in ways}
    print(f"{options.entry} on {options.case}, {options.rounds} rounds; load average {os.getloadavg()[:2]} at the start")
    for _ in range(options.rounds):
        for name, action in ways.items():
            times[name].append(timed(action))
    entry_median = statistics.median(t[0] for t in times["entry alone"])
    for name, values in times.items():
        median = statistics.median(t[0] for t in values)
        print(f"{name:<24} wall {statistics.median(t[0] for t in values):.3f} s (min {min(t[0] for t in values):.3f}), "
              f"{median / entry_median:.2f}x the entry; CPU: this process {statistics.median(t[1] for t in values):.3f} s, "
              f"children {statistics.median(t[2] for t in values):.3f} s")
    print(f"load average {os.getloadavg()[:2]} at the end")


if __name__ == "__main__":
    main()
