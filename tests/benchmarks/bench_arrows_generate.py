"""Arrow puzzle generation: this checkout against another commit, puzzle by puzzle, alternated.

A git worktree of REF is made in a temporary folder. For each size and seed, a child
process of each tree (the same interpreter, ``-S``, its own folder first on PYTHONPATH)
times ``generate(size, size, seed)`` in process (imports excluded), this checkout and REF
in turn, so the machine's noise hits both alike; REF only for the sizes in
--against-sizes (the old generator took minutes on 20x20). Prints per size the median and
worst time, the givens and the search nodes of this checkout's puzzles (difficulty), and
the ratio of medians where REF ran; asserts nothing.

    python3 tests/benchmarks/bench_arrows_generate.py [--sizes 10 20] [--seeds 7] [--against REF]
        [--against-sizes 10]
"""
from __future__ import annotations

import argparse
import json
import os
import site
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OLD_DEFAULT = "66e7958"      # the generator that proved uniqueness by search after every given

CHILD = """
import json, sys, time
from verify.contests.arrows import generator
size, seed = int(sys.argv[1]), int(sys.argv[2])
started, cpu = time.perf_counter(), time.process_time()
puzzle = generator.generate(size, size, seed)
elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
nodes = generator.generate_puzzle(size, size, seed).nodes if hasattr(generator, "generate_puzzle") else None
print(json.dumps({"time": elapsed, "cpu": cpu, "givens": puzzle.givens, "nodes": nodes}))
"""


def timed(tree: Path, size: int, seed: int) -> dict:
    path = os.pathsep.join([str(tree), *site.getsitepackages()])
    done = subprocess.run([sys.executable, "-S", "-c", CHILD, str(size), str(seed)], cwd=tree,
                          env={**os.environ, "PYTHONPATH": path}, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"generation failed in {tree}: {done.stderr[-500:]}")
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20])
    parser.add_argument("--seeds", type=int, default=7)
    parser.add_argument("--against", default=OLD_DEFAULT)
    parser.add_argument("--against-sizes", type=int, nargs="*", default=[10])
    options = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at start (the machine may be shared: compare the ratio)")
    with tempfile.TemporaryDirectory(prefix="verify-bench-") as scratch:
        other = Path(scratch) / "other"
        subprocess.run(["git", "worktree", "add", "--detach", str(other), options.against], cwd=REPO,
                       check=True, capture_output=True)
        try:
            for size in options.sizes:
                new, old = [], []
                for seed in range(1000, 1000 + options.seeds):
                    new.append(timed(REPO, size, seed))
                    if size in options.against_sizes:
                        old.append(timed(other, size, seed))
                times = [run["time"] for run in new]
                cpu = statistics.median(run["cpu"] for run in new)
                line = (f"{size}x{size}: this checkout median {statistics.median(times):.3f} s (CPU {cpu:.3f} s), "
                        f"worst {max(times):.3f} s, "
                        f"givens median {statistics.median(run['givens'] for run in new)}, search nodes "
                        f"{sorted({run['nodes'] for run in new})}")
                if old:
                    old_times = [run["time"] for run in old]
                    old_cpu = statistics.median(run["cpu"] for run in old)
                    line += (f"; {options.against} median {statistics.median(old_times):.3f} s (CPU {old_cpu:.3f} s), "
                             f"givens median "
                             f"{statistics.median(run['givens'] for run in old)}; "
                             f"{statistics.median(old_times) / statistics.median(times):.1f}x faster")
                print(line, flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=REPO, capture_output=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
