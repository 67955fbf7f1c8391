"""One per-step solver step: the grading core's step against the runner's ways and a bare spawn.

    python tests/benchmarks/bench_per_step.py [--runs 200] [--block 10] [--no-cgroup]

A maze solver in per-step mode is started once per step with the state on stdin and
prints one move. A tiny C, a tiny Python and a tiny Ruby program of that kind (the Ruby one
when `ruby` is installed) are each run `--runs` times in each of these ways, alternating in
blocks of `--block` runs so that the load others put on the machine hits them all alike:

- bare: `subprocess.run` of the same command line, no sandbox, no limits;
- alone: `run_prepared(..., ahead=False)`, a sandbox of its own per step (bubblewrap and,
  unless --no-cgroup, a cgroup per run);
- ahead: `run_prepared(..., ahead=True)`: as root, a step of the program's fork server
  (verify/runner/forkserver.py: the same limits, accounting and verdicts, the sandbox
  built once, the step's cgroup kept by the server, the next step built while this one
  runs); as a normal user, a sandbox built ahead (verify/runner/warm.py, rlimits only)
  or, where neither applies, a sandbox of its own (the line "ahead=True is served by"
  says which);
- fresh: `ahead` with the fork server's zygote turned off (`VERIFY_ZYGOTE=off`: a
  served Python step starts a fresh interpreter; a C or Ruby step is the same as `ahead`);
- step: a maze step as the grading core makes it, the per-step asker of one match
  (`verify.grading.interactive.PerStepAsker` over a `LocalRunner`, whose pools
  "ahead" uses too): that step plus whatever the grading core does around it;
- prepare: `prepare(program)` of a program already built, alone (no run): what a step
  costs on top when it prepares its program again.
- floor-bare, floor-ahead (C, as root with a C compiler): `bench_step_floor.c` serving one
  step at a time, its own timing: a fork and exec of the program in C, and the least a step
  with the fork server's namespaces costs (mount, IPC and PID namespaces, a tmpfs, pid 1 and
  the program's process, made ahead while the previous step runs), with no hardening,
  accounting or judge around it. What a served step may cost above `floor-ahead` is verify's.

Printed: median and mean wall time of one step each way, the ratios over bare, and the
mean CPU time verify's own process spent on a step (its threads; not the programs it
starts), which depends less on the load others put on the machine.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from verify.grading import LocalRunner
from verify.grading.interactive import PerStepAsker
from verify.runner import (
    Limits,
    Prepared,
    Program,
    cache_root,
    prepare,
    resolve_isolation,
    run_prepared,
)
from verify.runner.pools import Pools

PYTHON_STEP = "import sys\nstate = sys.stdin.read()\nprint('N' if len(state) % 2 else 'E')\n"
RUBY_STEP = 'state = $stdin.read\nputs(state.size.odd? ? "N" : "E")\n'
C_STEP = ('#include <stdio.h>\nint main(void){char b[4096];size_t n=fread(b,1,sizeof b,stdin);'
          'puts(n%2?"N":"E");return 0;}\n')
STATE = b"#####\n#S..#\n#.#.#\n#..E#\n#####\n"
WAYS = ("bare", "alone", "ahead", "fresh", "step", "prepare")
FLOOR_SOURCE = Path(__file__).with_name("bench_step_floor.c")
MOVES = (b"N\n", b"E\n")


def measure(runs: int, block: int,
            steps: dict[str, Callable[[], bytes | float]]) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each way's wall times, and the CPU time this process (verify, not the programs it
    starts) spent on each step. A step that returns a float has timed itself (the floor's)."""
    walls: dict[str, list[float]] = {way: [] for way in steps}
    cpus: dict[str, list[float]] = {way: [] for way in steps}
    for way in steps:                                # warm-up: artefact, helpers, the server, page cache
        for _ in range(3):
            steps[way]()
    while len(walls["bare"]) < runs:
        for way in steps:
            for _ in range(block):
                start, cpu = time.perf_counter(), time.process_time()
                output = steps[way]()
                walls[way].append(output if isinstance(output, float) else time.perf_counter() - start)
                cpus[way].append(time.process_time() - cpu)
                assert isinstance(output, float) or output in MOVES, (way, output)
    return walls, cpus


class StepFloor:
    """bench_step_floor.c serving steps of one program, one per request (`possible` where
    verify is root and a C compiler is installed)."""

    def __init__(self, program: str, folder: Path) -> None:
        binary = folder / "step_floor"
        subprocess.run(["cc", "-O2", "-o", str(binary), str(FLOOR_SOURCE)], check=True)
        self.process = subprocess.Popen([str(binary), "--serve", program], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)

    @classmethod
    def possible(cls) -> bool:
        return os.geteuid() == 0 and shutil.which("cc") is not None

    def step(self, mode: str) -> float:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(mode + "\n")
        return float(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--block", type=int, default=10)
    parser.add_argument("--no-cgroup", action="store_true", help="rlimits accounting (--accounting rlimits)")
    options = parser.parse_args()
    chosen = resolve_isolation("bwrap", cgroups=not options.no_cgroup)
    print(f"isolation {chosen.name}; load average before {os.getloadavg()[0]:.2f}; cores {os.cpu_count()}")
    runner = LocalRunner(chosen, forkserver=True, zygote=True, cache=cache_root())
    servers = runner.pools                          # ahead and step: the same pools
    fresh_runner = LocalRunner(chosen, forkserver=True, zygote=False, cache=cache_root())
    served_by = ("the fork server" if servers.fork_servers.possible(chosen) else
                 "sandboxes built ahead" if servers.built_ahead.possible(chosen) else "a sandbox of its own")
    print(f"ahead=True is served by {served_by}")
    limits = Limits(wall_time=10, cpu_time=10)

    with tempfile.TemporaryDirectory(prefix="bench-per-step-") as folder:
        os.chmod(folder, 0o755)
        languages = [("c", "step.c", C_STEP), ("python", "step.py", PYTHON_STEP)]
        if shutil.which("ruby"):
            languages.append(("ruby", "step.rb", RUBY_STEP))
        for language, name, text in languages:
            source = Path(folder) / language / name
            source.parent.mkdir()
            os.chmod(source.parent, 0o755)
            source.write_text(text)
            program = Program(language, source)
            prepared = prepare(program, isolation=chosen)
            argv = prepared.argv((), limits)
            match = PerStepAsker(runner, program, limits)      # one match: every step asks it

            def bare(argv: list[str] = argv) -> bytes:
                return subprocess.run(argv, input=STATE, capture_output=True, check=True).stdout

            def sandboxed(ahead: bool, prepared: Prepared = prepared, pools: Pools = servers) -> bytes:
                result = run_prepared(prepared, stdin=STATE, limits=limits, isolation=chosen, ahead=ahead,
                                      pools=pools)
                assert result.ok, result
                return result.stdout or b""

            def step(match: PerStepAsker = match) -> bytes:
                reply = match(STATE)
                assert reply.line is not None, reply.failure
                return reply.line.encode() + b"\n"

            def prepare_only(program: Program = program) -> bytes:
                prepare(program, isolation=chosen)
                return MOVES[0]

            steps: dict[str, Callable[[], bytes | float]] = {
                "bare": bare, "alone": lambda: sandboxed(False), "ahead": lambda: sandboxed(True),
                "fresh": lambda: sandboxed(True, pools=fresh_runner.pools), "step": step, "prepare": prepare_only}
            floor = StepFloor(argv[0], Path(folder)) if language == "c" and StepFloor.possible() else None
            if floor is not None:
                steps["floor-bare"] = partial(floor.step, "bare")
                steps["floor-ahead"] = partial(floor.step, "ahead")
            walls, cpus = measure(options.runs, options.block, steps)
            if floor is not None:
                floor.close()
            base_median, base_mean = statistics.median(walls["bare"]), statistics.mean(walls["bare"])
            for way in steps:
                median, mean = statistics.median(walls[way]), statistics.mean(walls[way])
                print(f"  {language:6s} {way:7s}: median {median * 1000:6.2f} ms, mean {mean * 1000:6.2f} ms; "
                      f"over bare: median {median / base_median:5.2f}x, mean {mean / base_mean:5.2f}x; "
                      f"verify's CPU {statistics.mean(cpus[way]) * 1000:5.2f} ms")
            print(f"  {language:6s} ahead / fresh: median "
                  f"{statistics.median(walls['ahead']) / statistics.median(walls['fresh']):.3f}")
            print(f"  {language:6s} ahead / alone: median "
                  f"{statistics.median(walls['ahead']) / statistics.median(walls['alone']):.3f}; "
                  f"step / ahead: median {statistics.median(walls['step']) / statistics.median(walls['ahead']):.3f}, "
                  f"verify's CPU {(statistics.mean(cpus['step']) - statistics.mean(cpus['ahead'])) * 1000:+.2f} ms "
                  f"({len(walls['bare'])} runs each)")
    runner.close()
    fresh_runner.close()
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
