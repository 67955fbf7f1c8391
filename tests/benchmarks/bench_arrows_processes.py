"""Whole processes alternated round by round (so that the machine's noise hits each alike),
medians of wall and CPU time: for instance verify's console script of two installations
against Tatham's Signpost and a bare interpreter. Each starts in / with this environment less
PYTHONDONTWRITEBYTECODE (an installation's bytecode is written once, then read). Prints one
line a command; asserts nothing.

    python3 tests/benchmarks/bench_arrows_processes.py 21 "DIR/bin/verify gen arrows --size 10 --seed 1000" \\
        "/usr/games/sgt-signpost --generate 1 10x10" "DIR/bin/python3 -c pass"
"""
from __future__ import annotations

import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def main() -> None:
    rounds, commands = int(sys.argv[1]), [shlex.split(command) for command in sys.argv[2:]]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for command in commands:        # bytecode written, builds made
        subprocess.run(command, capture_output=True, env=env, cwd="/")
    for _ in range(rounds):
        for index, command in enumerate(commands):
            before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            done = subprocess.run(command, capture_output=True, env=env, cwd="/", stdin=subprocess.DEVNULL)
            walls[index].append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[index].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode:
                print("failed:", shlex.join(command), done.stderr[-300:])
    for index, command in enumerate(commands):
        print(f"{statistics.median(walls[index]) * 1000:7.1f} ms wall (min {min(walls[index]) * 1000:.1f}), "
              f"{statistics.median(cpus[index]) * 1000:7.1f} ms CPU: {shlex.join(command)}")


if __name__ == "__main__":
    main()
