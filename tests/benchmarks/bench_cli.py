"""Start-up cost of the command line: `import verify.cli`, `verify --help`, and `verify check` of
one trivial case, against a bare interpreter; with --against REF, this checkout beside the
commit REF.

Each round runs the variants one after another (fresh interpreters), so the machine's noise
hits them alike; medians over the rounds are printed, wall time and CPU time (the process
and its children: on a busy machine wall time also counts the wait for a core), and the
differences to a bare `python -c pass`, which are the cost of verify itself. The check runs
the C entry recursive-c (built once before the clock) on one small case. `verify check`
never reads the result cache (only `verify rank` does) and writes it only for a whole check,
not with --case: its cost is a real run of the case. Asserts nothing.

With --against REF, a git worktree of REF is made in a temporary folder, and each variant
runs with this checkout's code and then with REF's, in turn. Both run without the
interpreter's site hooks (``-S``: an editable install of verify would win otherwise), from
their own folder, with that folder and then the site-packages on PYTHONPATH, each with its
own VERIFY_CACHE, and with their bytecode written by an untimed first run (whatever
PYTHONDONTWRITEBYTECODE says: compiling the modules is an installer's job, not a cost of
each start).

    python3 tests/benchmarks/bench_cli.py [--rounds 30] [--against REF]
"""
from __future__ import annotations

import argparse
import os
import resource
import site
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = ["check", "submissions/desert/recursive-c", "--case", "adjacent-row", "--format", "json", "-j", "1"]
RUN = "from verify.cli import run; run()"

VARIANTS = {
    "bare python": ["-c", "pass"],
    "import click": ["-c", "import click"],
    "import verify.cli": ["-c", "import verify.cli"],
    "verify --help": ["-c", RUN, "--help"],
    "verify check --help": ["-c", RUN, "check", "--help"],
    "verify judge --help": ["-c", RUN, "judge", "--help"],
    "verify check (1 case)": ["-c", RUN, *CHECK],
}


@dataclass
class Checkout:
    """A copy of the code to time, and how its interpreters are started."""
    label: str
    root: Path
    interpreter: list[str]
    environment: dict[str, str] | None = None
    wall: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in VARIANTS})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name in VARIANTS})

    def run(self, name: str) -> None:
        started, cpu_before = time.perf_counter(), children_cpu()
        subprocess.run([*self.interpreter, *VARIANTS[name]], stdout=subprocess.DEVNULL, check=True, cwd=self.root,
                       env=self.environment)
        self.wall[name].append(time.perf_counter() - started)
        self.cpu[name].append(children_cpu() - cpu_before)

    def medians(self, name: str) -> tuple[float, float]:
        return statistics.median(self.wall[name]), statistics.median(self.cpu[name])


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def isolated(label: str, root: Path, cache: Path) -> Checkout:
    """``root``'s code alone: ``python -S`` with it first on PYTHONPATH, its own build cache."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    environment |= {"VERIFY_CACHE": str(cache), "PYTHONPATH": os.pathsep.join([str(root), *site.getsitepackages()])}
    return Checkout(label, root, [sys.executable, "-S"], environment)


@contextmanager
def worktree(ref: str, scratch: Path) -> Iterator[Path]:
    folder = scratch / "other"
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=ROOT, check=True, capture_output=True)
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, capture_output=True)


def measure(checkouts: list[Checkout], rounds: int) -> None:
    for checkout in checkouts:      # builds the entry, writes the bytecode
        subprocess.run([*checkout.interpreter, *VARIANTS["verify check (1 case)"]], stdout=subprocess.DEVNULL,
                       cwd=checkout.root, env=checkout.environment)
    for _ in range(rounds):
        for name in VARIANTS:
            for checkout in checkouts:
                checkout.run(name)


def print_one(checkout: Checkout, rounds: int) -> None:
    bare, bare_cpu = checkout.medians("bare python")
    print(f"{rounds} rounds, medians (ms), load average {os.getloadavg()[0]:.1f}; "
          "wall, then CPU; + columns: the cost over a bare interpreter")
    for name in VARIANTS:
        wall, used = checkout.medians(name)
        print(f"  {name:22} wall {wall * 1000:7.1f}   +{(wall - bare) * 1000:6.1f}   "
              f"CPU {used * 1000:7.1f}   +{(used - bare_cpu) * 1000:6.1f}")


def print_side_by_side(this: Checkout, other: Checkout, rounds: int) -> None:
    print(f"{rounds} alternated rounds, medians (ms), python -S, load average {os.getloadavg()[0]:.1f}; "
          f"+: the cost over a bare interpreter; ratio: this / {other.label}")
    print(f"  {'':22} {'wall: this':>11} {other.label:>11} {'+this':>7} {'+' + other.label:>11} {'ratio':>6}   "
          f"{'CPU: this':>10} {other.label:>11} {'+this':>7} {'+' + other.label:>11} {'ratio':>6}")
    bases = [(c.medians("bare python")) for c in (this, other)]
    for name in VARIANTS:
        (wall, used), (other_wall, other_used) = this.medians(name), other.medians(name)
        print(f"  {name:22} {wall * 1000:11.1f} {other_wall * 1000:11.1f} {(wall - bases[0][0]) * 1000:7.1f} "
              f"{(other_wall - bases[1][0]) * 1000:11.1f} {wall / other_wall:6.2f}   "
              f"{used * 1000:10.1f} {other_used * 1000:11.1f} {(used - bases[0][1]) * 1000:7.1f} "
              f"{(other_used - bases[1][1]) * 1000:11.1f} {used / other_used:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--against", metavar="REF", help="also time the git commit REF, alternated with this checkout")
    options = parser.parse_args()
    if options.against is None:
        this = Checkout("this", ROOT, [sys.executable])
        measure([this], options.rounds)
        print_one(this, options.rounds)
        return
    with tempfile.TemporaryDirectory(prefix="verify-bench-cli-") as folder:
        scratch = Path(folder)
        with worktree(options.against, scratch) as other_root:
            this = isolated("this", ROOT, scratch / "cache-this")
            other = isolated(options.against[:10], other_root, scratch / "cache-other")
            measure([this, other], options.rounds)
    print_side_by_side(this, other, options.rounds)


if __name__ == "__main__":
    main()
