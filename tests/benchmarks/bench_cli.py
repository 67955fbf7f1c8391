"""Start-up cost of the command line: `import verify.cli`, and `verify --help`, against a bare interpreter.

Each round runs the variants one after another (fresh interpreters), so the machine's noise
hits them alike; medians over the rounds are printed, and the differences to a bare
`python -c pass`, which are the cost of verify itself. Asserts nothing.

    python3 tests/benchmarks/bench_cli.py [--rounds 30]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

VARIANTS = {
    "bare python": [sys.executable, "-c", "pass"],
    "import click": [sys.executable, "-c", "import click"],
    "import verify.cli": [sys.executable, "-c", "import verify.cli"],
    "verify --help": [sys.executable, "-c", "from verify.cli import run; run()", "--help"],
    "verify judge --help": [sys.executable, "-c", "from verify.cli import run; run()", "judge", "--help"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(rounds):
        for name, argv in VARIANTS.items():
            started = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
            times[name].append(time.perf_counter() - started)
    bare = statistics.median(times["bare python"])
    print(f"{rounds} rounds, medians (ms); the last column is the cost over a bare interpreter")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:22} {median * 1000:7.1f}   +{(median - bare) * 1000:6.1f}")


if __name__ == "__main__":
    main()
