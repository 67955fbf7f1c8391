"""King of the Hill at contest scale: the bundled maze entries' tournament played fresh, then
again with every result kept, then with one entry added to a tournament kept without it.
Prints figures and ratios measured in this one run; asserts nothing.

    flock /tmp/verify-bench.lock python3 tests/benchmarks/bench_koth_cache.py \\
        [--sizes 15..50:5] [--seeds 1..2] [--added theseus] [-j 2]

1. Fresh: ``verify koth maze --fresh`` over the sizes, one process per size (each size's wall
   time is the per-size cost the contest preset is extrapolated from, docs/maze.md); the
   fresh figure is their sum.
2. Reused: the whole tournament in one process, every result in the cache.
3. One entry added: the tournament without ``--added`` played into a cache of its own (not
   timed), then the whole field: only the added entry's mazes and walks are played.

Every run is a fresh ``verify`` process, as an organiser's, with caches of its own under a
temporary folder (the builds made in both before anything is timed). The added run's tables,
played apart, are compared with the reused run's (the fresh results).

With ``--against REF``, the whole fresh tournament (one process over every size) is timed
for this tree and then for the commit REF (a git worktree, its own code first on the path,
this tree's entries), each with a cache of its own: the before and after of a change side by
side. ``--fresh-only`` leaves out steps 2 and 3.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = ROOT / "submissions" / "maze"
sys.path.insert(0, str(ROOT))

from bench_desert_entry_ratio import worktree  # noqa: E402

from verify.sizes import int_list  # noqa: E402


def koth(cache: Path, entries: list[Path], sizes: str, seeds: str, jobs: int, *extra: str,
         code: Path = ROOT) -> tuple[float, str, str]:
    env = {**os.environ, "PYTHONPATH": str(code), "VERIFY_CACHE": str(cache)}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "koth", "maze",
                           *map(str, entries), "--sizes", sizes, "--seeds", seeds, "-j", str(jobs),
                           "--logs", str(cache / "logs" / f"{time.monotonic_ns()}"), *extra],
                          cwd=code, env=env, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"verify koth maze failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    summary = next((line for line in done.stderr.splitlines() if line.startswith("matches: ")), "")
    return seconds, done.stdout, summary


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="15..50:5")
    parser.add_argument("--seeds", default="1..2")
    parser.add_argument("--added", default="theseus", help="The entry added to the kept tournament.")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--against", metavar="REF", help="also the whole fresh tournament of this commit")
    parser.add_argument("--fresh-only", action="store_true", help="leave out the reused and added runs")
    args = parser.parse_args()
    sizes = int_list("--sizes", args.sizes)
    everyone = sorted(path for path in ENTRIES.iterdir() if (path / "entry.toml").is_file())
    others = [path for path in everyone if path.name != args.added]
    print(f"entries: {', '.join(p.name for p in everyone)}; sizes {args.sizes}; seeds {args.seeds}; -j {args.jobs}")
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="verify-bench-koth-") as folder:
        cache, apart = Path(folder) / "cache", Path(folder) / "apart"
        for root in (cache, apart):       # the builds, in both caches, before anything is timed
            koth(root, everyone, "15", "1000", args.jobs, "-q", "--fresh")
        per_size = {}
        for size in sizes:
            seconds, _, _ = koth(cache, everyone, str(size), args.seeds, args.jobs, "--fresh")
            per_size[size] = seconds
            print(f"  fresh, size {size}: {seconds:.1f} s (load {load()})", flush=True)
        fresh = sum(per_size.values())
        if not args.fresh_only:
            reused, reused_table, reused_summary = koth(cache, everyone, args.sizes, args.seeds, args.jobs)
            koth(apart, others, args.sizes, args.seeds, args.jobs, "-q")
            added, added_table, added_summary = koth(apart, everyone, args.sizes, args.seeds, args.jobs)
        if args.against:
            against = against_ref(Path(folder), args.against, everyone, args)
    print(f"load average after: {load()}")
    print(f"fresh (the per-size runs, summed): {fresh:.1f} s")
    if not args.fresh_only:
        print(f"reused (every result kept): {reused:.2f} s   ratio reused/fresh {reused / fresh:.4f}   "
              f"[{reused_summary}]")
        print(f"{args.added} added: {added:.1f} s   ratio added/fresh {added / fresh:.3f}   [{added_summary}]")
        # the reused run's tables are the fresh runs' results; the added run's were played apart
        print(f"tables: the added run's {'identical' if added_table == reused_table else 'DIFFER'} "
              "to the fresh results'")
    if args.against:
        this, then = against
        print(f"the whole fresh tournament in one process: this tree {this:.1f} s, {args.against} {then:.1f} s, "
              f"ratio {this / then:.3f}")
    per_seed = len(int_list("--seeds", args.seeds))
    print("per-size cost, seconds per seed: "
          + ", ".join(f"{size}: {seconds / per_seed:.1f}" for size, seconds in per_size.items()))


def against_ref(folder: Path, ref: str, entries: list[Path], args: argparse.Namespace) -> tuple[float, float]:
    """The whole fresh tournament's seconds, this tree's and then REF's, each with a cache of its own
    (the builds made before it is timed)."""
    with worktree(ref) as tree:
        assert tree is not None
        seconds: list[float] = []
        for name, code in (("this tree", ROOT), (ref, tree)):
            cache = folder / f"whole-{len(seconds)}"
            koth(cache, entries, "15", "1000", args.jobs, "-q", "--fresh", code=code)
            taken, _, _ = koth(cache, entries, args.sizes, args.seeds, args.jobs, "-q", "--fresh", code=code)
            print(f"  whole fresh tournament, {name}: {taken:.1f} s (load {load()})", flush=True)
            seconds.append(taken)
    return seconds[0], seconds[1]


if __name__ == "__main__":
    main()
