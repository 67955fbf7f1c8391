"""This checkout against another commit: the same `verify check` run by each, alternated.

A git worktree of REF is made in a temporary folder. Both are run by the same
interpreter without its site hooks (``-S``: an editable install of verify would win
otherwise), from their own folder, with that folder and then the site-packages on
PYTHONPATH: nothing is installed or downloaded. Each round times `verify check
ENTRY...` with the current code and with REF's, in turn, so the machine's noise hits
both alike. Both use their own build cache, warmed by one untimed run. Prints the
medians and their ratio; asserts nothing.

    python3 tests/benchmarks/bench_against.py REF [--rounds 5] [ENTRY...]
"""
from __future__ import annotations

import argparse
import os
import site
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_ENTRIES = ["submissions/desert/*", "submissions/arrows/*"]


def _check_command(python: str, entries: list[str]) -> list[str]:
    expanded = [str(p) for pattern in entries for p in sorted(REPO.glob(pattern))]
    return [python, "-S", "-c", "from verify.cli import run; run()", "check", "-j", "2", *expanded]


def _timed(argv: list[str], source: Path, cache: Path) -> float:
    started = time.perf_counter()
    path = os.pathsep.join([str(source), *site.getsitepackages()])
    environment = {**os.environ, "VERIFY_CACHE": str(cache), "PYTHONPATH": path}
    done = subprocess.run(argv, cwd=source, env=environment,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode not in (0, 1):
        raise SystemExit(f"verify check ({source}) failed with exit code {done.returncode}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ref")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("entries", nargs="*", default=DEFAULT_ENTRIES)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="verify-bench-") as scratch:
        other = Path(scratch) / "other"
        subprocess.run(["git", "worktree", "add", "--detach", str(other), options.ref], cwd=REPO, check=True,
                       capture_output=True)
        try:
            argv = _check_command(sys.executable, options.entries)
            runs = {"this checkout": (argv, REPO), options.ref: (argv, other)}
            caches = {name: Path(scratch) / f"cache-{index}" for index, name in enumerate(runs)}
            for name, (argv, cwd) in runs.items():
                _timed(argv, cwd, caches[name])          # builds, warm caches
            times: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(options.rounds):
                for name, (argv, cwd) in runs.items():
                    times[name].append(_timed(argv, cwd, caches[name]))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=REPO, capture_output=True)
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"verify check of {' '.join(options.entries)}, {options.rounds} alternated rounds, load average "
          f"{os.getloadavg()[0]:.2f} at the end")
    for name, values in times.items():
        print(f"  {name:16} median {medians[name]:7.2f} s   ({', '.join(f'{v:.2f}' for v in values)})")
    this, other_median = medians["this checkout"], medians[options.ref]
    print(f"  ratio this / {options.ref}: {this / other_median:.3f}")


if __name__ == "__main__":
    main()
