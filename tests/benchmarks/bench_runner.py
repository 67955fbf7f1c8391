"""Runner benchmark: harness overhead per run, and the speed-up of -j 2 over -j 1.

    python tests/benchmarks/bench_runner.py [--repeat N]

1. Overhead: the same program run N times by a bare ``subprocess.run`` and by
   ``run_program`` (with a streaming consumer), with bubblewrap and without it
   (VERIFY_SANDBOX=none). Two programs: a C "hello" (the fixed cost of a run, in ms)
   and the reference desert entry on a real case (a typical judged run, in %).
   Medians are compared (the machine is shared: means are noisy).
2. Parallelism: `verify check`'s engine (load_checks + run_checks) on 8 CPU-bound
   runs (a Python loop of about 0.4 s each), -j 1 against -j 2.
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
sys.path.insert(0, str(REPO / "tests" / "fixtures"))

from verify.runner import Limits, Program, prepare, run_program, sandbox  # noqa: E402


def median_time(function, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def overhead(program: Program, stdin: bytes, repeat: int, label: str) -> None:
    prepared = prepare(program)
    bare_argv = prepared.argv([], Limits())
    folder = program.folder

    def bare():
        subprocess.run(bare_argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=folder)

    def harness():
        result = run_program(program, stdin=stdin, on_stdout=lambda chunk: None)
        assert result.exit_code == 0, result.stderr_tail

    bare()
    harness()  # warm caches (compiled artefact, verify-init, page cache)
    base = median_time(bare, repeat)
    for mode in ("bubblewrap", "none"):
        if mode == "none":
            os.environ["VERIFY_SANDBOX"] = "none"
        else:
            os.environ.pop("VERIFY_SANDBOX", None)
        sandbox.bwrap_path.cache_clear()
        if mode == "bubblewrap" and not sandbox.bwrap_path():
            print(f"  {label}: bubblewrap not available")
            continue
        ours = median_time(harness, repeat)
        print(f"  {label:34s} isolation={sandbox.isolation_name():42s} bare {base * 1000:7.1f} ms"
              f"  harness {ours * 1000:7.1f} ms  overhead {(ours - base) * 1000:+6.1f} ms"
              f" ({(ours / base - 1) * 100:+5.1f}%)")
    os.environ.pop("VERIFY_SANDBOX", None)
    sandbox.bwrap_path.cache_clear()


def parallel(runs: int) -> None:
    import echo_challenge
    from verify import challenges
    from verify.checking import load_checks, run_checks

    real_names, real_get = challenges.names, challenges.get
    challenges.names = lambda: tuple(sorted({*real_names(), "echo"}))
    challenges.get = lambda name: echo_challenge.CHALLENGE if name == "echo" else real_get(name)
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as folder:
        root = Path(folder)
        os.chmod(root, 0o755)
        burn = "import sys\nx = 0\nfor i in range(6_000_000): x += i\nsys.stdout.write(sys.stdin.read())\n"
        entry = echo_challenge.write_entry(root / "submissions" / "echo" / "burn", "burn.py", burn)
        cases = echo_challenge.write_cases(root / "testcases" / "echo",
                                           {f"case{i:02d}": (b"%d\n" % i, b"%d\n" % i) for i in range(runs)})
        limits = Limits(wall_time=60, cpu_time=60)
        timings = {}
        for jobs in (1, 2, 1, 2):
            checks = load_checks([entry], cases)
            start = time.perf_counter()
            run_checks(checks, limits, jobs)
            elapsed = time.perf_counter() - start
            assert all(c.passed for c in checks), [r.verdict for c in checks for r in c.results]
            timings.setdefault(jobs, []).append(elapsed)
        one, two = min(timings[1]), min(timings[2])
        print(f"  {runs} CPU-bound runs: -j 1 {one:.2f} s, -j 2 {two:.2f} s: speed-up {one / two:.2f}x"
              f" (best of 2 each; cores: {os.cpu_count()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--runs", type=int, default=8)
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("1. overhead per run (median of %d)" % options.repeat)
    with tempfile.TemporaryDirectory(prefix="bench-hello-") as folder:
        os.chmod(folder, 0o755)
        hello = Path(folder) / "hello.c"
        hello.write_text('#include <stdio.h>\nint main(void){puts("hello");return 0;}\n')
        overhead(Program("c", hello), b"", options.repeat, "C hello (fixed cost)")
    reference = REPO / "submissions" / "desert" / "reference" / "desert.py"
    case = (REPO / "testcases" / "desert" / "generated-seed110.txt").read_bytes()
    overhead(Program("python", reference), case, max(5, options.repeat // 3),
             "desert reference, generated-seed110")
    print("2. parallel check")
    parallel(options.runs)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
