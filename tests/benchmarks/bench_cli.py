"""Start-up cost of the command line: `import verify.cli`, `verify --help`, and `verify check` of
one trivial case, against a bare interpreter.

Each round runs the variants one after another (fresh interpreters), so the machine's noise
hits them alike; medians over the rounds are printed, wall time and CPU time (the process
and its children: on a busy machine wall time also counts the wait for a core), and the
differences to a bare `python -c pass`, which are the cost of verify itself. The check runs
the C entry recursive-c (built once before the clock) on one small case and its own demo.
Asserts nothing.

    python3 tests/benchmarks/bench_cli.py [--rounds 30]
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

ROOT = Path(__file__).resolve().parents[2]
CHECK = ["check", str(ROOT / "submissions" / "desert" / "recursive-c"), "--case", "adjacent-row", "--format", "json",
         "-j", "1"]

VARIANTS = {
    "bare python": [sys.executable, "-c", "pass"],
    "import click": [sys.executable, "-c", "import click"],
    "import verify.cli": [sys.executable, "-c", "import verify.cli"],
    "verify --help": [sys.executable, "-c", "from verify.cli import run; run()", "--help"],
    "verify judge --help": [sys.executable, "-c", "from verify.cli import run; run()", "judge", "--help"],
    "verify check (1 case)": [sys.executable, "-c", "from verify.cli import run; run()", *CHECK],
}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    subprocess.run(VARIANTS["verify check (1 case)"], stdout=subprocess.DEVNULL, cwd=ROOT)   # builds the entry
    for _ in range(rounds):
        for name, argv in VARIANTS.items():
            started, cpu_before = time.perf_counter(), children_cpu()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)
            times[name].append(time.perf_counter() - started)
            cpu[name].append(children_cpu() - cpu_before)
    bare, bare_cpu = statistics.median(times["bare python"]), statistics.median(cpu["bare python"])
    print(f"{rounds} rounds, medians (ms), load average {os.getloadavg()[0]:.1f}; "
          "wall, then CPU; + columns: the cost over a bare interpreter")
    for name in VARIANTS:
        wall, used = statistics.median(times[name]), statistics.median(cpu[name])
        print(f"  {name:22} wall {wall * 1000:7.1f}   +{(wall - bare) * 1000:6.1f}   "
              f"CPU {used * 1000:7.1f}   +{(used - bare_cpu) * 1000:6.1f}")


if __name__ == "__main__":
    main()
