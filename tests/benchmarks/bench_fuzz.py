"""`verify fuzz` figures: inputs per second, and time to find and shrink each flawed fixture.

1. Inputs per second of a C entry and a Python entry on the same generated desert maps
   (submissions/desert/recursive-c and submissions/desert/reference), with -j 1 and
   -j 2, the four settings alternating round by round (each round its own seed), so the
   machine's noise hits all alike. Medians, and the ratio -j 2 / -j 1.
2. For each fixture under tests/fixtures/flawed: the time `fuzz` takes to find its
   failure and shrink it (seed 0, -j 2), the inputs run, the shrink's runs, the minimal size.

    python3 tests/benchmarks/bench_fuzz.py [--rounds 5] [--runs 100]

Prints figures; asserts nothing. Runs under the configured isolation (--sandbox auto).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from verify.entries import load_entry  # noqa: E402
from verify.fuzz import fuzz, target_for  # noqa: E402
from verify.grading import LocalRunner, build_failure  # noqa: E402
from verify.runner import Limits  # noqa: E402

SPEED_ENTRIES = {"C (desert/recursive-c)": "submissions/desert/recursive-c",
                 "Python (desert/reference)": "submissions/desert/reference"}
LIMITS = Limits(wall_time=10, cpu_time=10)


def inputs_per_second(rounds: int, runs: int) -> None:
    runner = LocalRunner()
    targets = {name: target_for(load_entry(REPO / path), runner, LIMITS) for name, path in SPEED_ENTRIES.items()}
    for target in targets.values():
        for program in target.programs():
            assert build_failure(runner, program) is None
        fuzz(target, seed=999, runs=4, jobs=2)           # warm: the build cache, the judge's kernel
    rates: dict[tuple[str, int], list[float]] = {(name, jobs): [] for name in targets for jobs in (1, 2)}
    for round_ in range(rounds):
        for (name, jobs), found in rates.items():
            result = fuzz(targets[name], seed=round_, runs=runs, jobs=jobs)
            assert result.finding is None, f"{name} failed: {result.finding.kind}"
            found.append(result.runs / result.elapsed)
    print(f"inputs per second ({rounds} rounds of {runs} inputs, medians)")
    print(f"{'entry':28} {'-j 1':>8} {'-j 2':>8} {'ratio':>7}")
    for name in targets:
        one, two = (statistics.median(rates[(name, jobs)]) for jobs in (1, 2))
        print(f"{name:28} {one:8.1f} {two:8.1f} {two / one:7.2f}")


def flawed_fixtures() -> None:
    runner = LocalRunner()
    print("\nflawed fixtures (seed 0, -j 2, at most 200 inputs)")
    print(f"{'fixture':26} {'seconds':>8} {'inputs':>7} {'shrink runs':>12}  failure -> minimal size")
    for folder in sorted((REPO / "tests" / "fixtures" / "flawed").iterdir()):
        target = target_for(load_entry(folder), runner, LIMITS)
        for program in target.programs():
            build_failure(runner, program)
        started = time.perf_counter()
        result = fuzz(target, seed=0, runs=200, jobs=2)
        elapsed = time.perf_counter() - started
        finding = result.finding
        if finding is None:
            print(f"{folder.name:26} {elapsed:8.2f} {result.runs:7}  NOT FOUND")
            continue
        size = ", ".join(f"{k} {v}" for k, v in target.size(finding.minimal).items())
        print(f"{folder.name:26} {elapsed:8.2f} {result.runs:7} {finding.shrunk.tries:12}  {finding.kind} -> {size}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    inputs_per_second(args.rounds, args.runs)
    flawed_fixtures()


if __name__ == "__main__":
    main()
