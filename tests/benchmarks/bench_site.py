"""What ``--html`` costs: ``verify check`` of the bundled code-golf entries with and without it,
alternated round by round so the machine's noise hits both alike; then the site's pages.

Prints the median time of each, their ratio, the time of writing the site alone after the
runs of one check in this process (what ``--html`` adds, without the noise of two runs; the
desert replays are built beside the runs, in a helper process, and counted in neither), the
size of the whole site and of its largest page, and the largest replay page of the desert case ``one-row-26`` (134 M turns, a 512 MiB
output). Both runs use the same build cache, warmed by one untimed run. Asserts nothing.

    python3 tests/benchmarks/bench_site.py [--rounds 3] [ENTRY_PATTERN...]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT_ENTRIES = ["submissions/desert/*", "submissions/arrows/*"]


def _verify(*args: str) -> float:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args], cwd=REPO,
                          env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"verify {' '.join(args)} failed: {done.stderr.strip()}")
    return time.perf_counter() - started


def _sizes(site: Path) -> tuple[int, int, Path]:
    pages = [p for p in site.rglob("*") if p.is_file()]
    largest = max(pages, key=lambda p: p.stat().st_size)
    return sum(p.stat().st_size for p in pages), largest.stat().st_size, largest


def _in_process(entries: list[str], folder: Path) -> tuple[float, float, int]:
    """The runs of a check with outputs captured, and then the writing of its site, timed apart
    (the site is written after the runs: this is the time ``--html`` adds), and how many replays
    were built beside the runs."""
    sys.path.insert(0, str(REPO))
    from verify.commands.jobs import load_checks, run_checks
    from verify.commands.site import SiteCapture, write_site
    from verify.grading import bubblewrap_runner
    from verify.runner import Limits

    checks = load_checks([Path(e) for e in entries], None)
    capture = SiteCapture()
    started = time.perf_counter()
    runner = bubblewrap_runner()
    checked = run_checks(runner, checks, Limits(), 2, observers=[capture])
    runs = time.perf_counter() - started
    ahead = sum(1 for output in capture.outputs.values() if getattr(output, "ahead", None) is not None)
    started = time.perf_counter()
    write_site(folder, checks, checked, capture, isolation=runner.isolation)
    return runs, time.perf_counter() - started, ahead


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("entries", nargs="*", default=DEFAULT_ENTRIES)
    options = parser.parse_args()
    entries = [str(p) for pattern in options.entries for p in sorted(REPO.glob(pattern))]
    with tempfile.TemporaryDirectory() as scratch:
        site = Path(scratch) / "site"
        check = ["check", "-j", "2", *entries]
        _verify(*check)                                 # warm the build cache, untimed
        plain, with_html = [], []
        for round_number in range(options.rounds):
            pair = [("plain", check), ("html", [*check, "--html", str(site)])]
            for name, argv in (pair if round_number % 2 == 0 else pair[::-1]):
                (plain if name == "plain" else with_html).append(_verify(*argv))
        total, largest, largest_page = _sizes(site)
        print(f"verify check of {len(entries)} entries, {options.rounds} rounds, alternated")
        print(f"  without --html: median {statistics.median(plain):.2f} s  {[round(t, 2) for t in plain]}")
        print(f"  with --html:    median {statistics.median(with_html):.2f} s  {[round(t, 2) for t in with_html]}")
        print(f"  ratio: {statistics.median(with_html) / statistics.median(plain):.3f}")
        print(f"  site: {total / (1 << 20):.1f} MiB in all, largest page {largest / (1 << 20):.2f} MiB "
              f"({largest_page.relative_to(site)})")
        runs, writing, ahead = _in_process(entries, Path(scratch) / "in-process")
        print(f"  in one process: the runs {runs:.2f} s, then the site written in {writing:.2f} s "
              f"(+{100 * writing / runs:.1f} %; {ahead} replays handed to the helper during the runs)")
        desert = Path(scratch) / "one-row-26"
        seconds = _verify("check", str(REPO / "submissions/desert/recursive-c"), "--case", "one-row-26",
                          "--html", str(desert))
        replays = list((desert / "replays").rglob("*.html"))
        biggest = max(p.stat().st_size for p in replays)
        print(f"one-row-26 (recursive-c, 134,217,705 turns): check with --html {seconds:.1f} s, "
              f"replay page {biggest / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
