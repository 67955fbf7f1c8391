"""Sandboxes built ahead (warm.py, `ahead=True`): what they gain on a per-step solver step.

    python tests/benchmarks/bench_runner_ahead.py [--runs 200] [--block 10]

A maze solver in per-step mode is started once per step with the state on stdin and
prints one move: the shortest runs a judge makes, where the sandbox's set-up weighs
most. A tiny Python and a tiny C program of that kind are each run `--runs` times with
`ahead=True` and as many times with `ahead=False`, both under bubblewrap without a
cgroup per run (the same as --accounting rlimits; the only mode in which sandboxes can be
built ahead). The two settings alternate in blocks of `--block` runs, so that the load
others put on the machine hits both alike. Printed: median and mean wall time of one
`run_program` call, the CPU time this process and its reaped children used per run
(a sandbox built ahead is counted when it is reaped, a run or two later), and the
ratios ahead / not ahead.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from verify.runner import Limits, Program, RunResult, prepare, resolve_isolation, run_program
from verify.runner.pools import Pools

PYTHON_STEP = "import sys\nstate = sys.stdin.read()\nprint('N' if len(state) % 2 else 'E')\n"
C_STEP = ('#include <stdio.h>\nint main(void){char b[4096];size_t n=fread(b,1,sizeof b,stdin);'
          'puts(n%2?"N":"E");return 0;}\n')
STATE = b"#####\n#S..#\n#.#.#\n#..E#\n#####\n"


def children_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(program: Program, runs: int, block: int,
            run_one: Callable[[Program, bool], RunResult]) -> dict[bool, tuple[list[float], float]]:
    """{ahead: (wall time of each run, CPU seconds per run)}, the settings alternating by block."""
    walls: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, float] = {True: 0.0, False: 0.0}
    for ahead in (True, False):                      # warm-up: artefact, verify-init, page cache
        for _ in range(3):
            run_one(program, ahead)
    while len(walls[False]) < runs:
        for ahead in (True, False):
            cpu_before = children_cpu()
            for _ in range(block):
                start = time.perf_counter()
                result = run_one(program, ahead)
                walls[ahead].append(time.perf_counter() - start)
                assert result.exit_code == 0 and result.stdout in (b"N\n", b"E\n"), result
            cpu[ahead] += children_cpu() - cpu_before
    return {ahead: (walls[ahead], cpu[ahead] / len(walls[ahead])) for ahead in (True, False)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--block", type=int, default=10)
    options = parser.parse_args()
    built_ahead = Pools(forkserver=False)             # (as root it would take ahead=True: bench_per_step.py)
    chosen = resolve_isolation("bwrap", cgroups=False)
    print(f"isolation {chosen.name}; load average before {os.getloadavg()[0]:.2f}; cores {os.cpu_count()}")
    limits = Limits(wall_time=10, cpu_time=10)

    def run_one(program: Program, ahead: bool) -> RunResult:
        return run_program(program, stdin=STATE, limits=limits, isolation=chosen, ahead=ahead, pools=built_ahead)

    with tempfile.TemporaryDirectory(prefix="bench-ahead-") as folder:
        os.chmod(folder, 0o755)
        for language, name, text in (("python", "step.py", PYTHON_STEP), ("c", "step.c", C_STEP)):
            source = Path(folder) / language / name
            source.parent.mkdir()
            os.chmod(source.parent, 0o755)
            source.write_text(text)
            program = Program(language, source)
            prepare(program, isolation=chosen)
            found = measure(program, options.runs, options.block, run_one)
            (on, on_cpu), (off, off_cpu) = found[True], found[False]
            print(f"  {language:6s} ahead off: median {statistics.median(off) * 1000:6.2f} ms, "
                  f"mean {statistics.mean(off) * 1000:6.2f} ms, CPU {off_cpu * 1000:6.2f} ms/run")
            print(f"  {language:6s} ahead on:  median {statistics.median(on) * 1000:6.2f} ms, "
                  f"mean {statistics.mean(on) * 1000:6.2f} ms, CPU {on_cpu * 1000:6.2f} ms/run")
            print(f"  {language:6s} on / off:  median {statistics.median(on) / statistics.median(off):.3f}, "
                  f"mean {statistics.mean(on) / statistics.mean(off):.3f}, CPU {on_cpu / off_cpu:.3f} "
                  f"({len(on)} + {len(off)} runs)")
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
