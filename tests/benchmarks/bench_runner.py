"""Runner benchmark: harness overhead per run, and the speed-up of -j 2 over -j 1.

    python tests/benchmarks/bench_runner.py [--repeat N]

1. Overhead: the same program run N times by a bare ``subprocess.run`` and by
   ``run_program`` (with a streaming consumer), in each isolation mode (MODES: with and
   without bubblewrap, with a cgroup per run or rlimits only, each passed to
   ``run_program`` as its ``isolation``; and ``ahead=True``, the sandbox built during the
   previous run, which needs bubblewrap without cgroups). Interleaved, the "ahead" runs
   find their sandbox ready (it was built during the previous round): the best case.
   Two programs: a C "hello" (the fixed cost of a run, in ms) and the reference desert
   entry on two real cases (a typical judged run of about 0.1 s, and a long one of
   about 1 s, in %).
   Medians are compared (the machine is shared: means are noisy).
2. Parallelism: `verify check`'s engine (load_checks + run_checks) on 8 CPU-bound
   runs (a Python loop of about 0.4 s each), -j 1 against -j 2.
3. The same on the real desert entries and test cases (124 runs, judged).
4. Streaming: 500 MiB printed by a C program, consumed chunk by chunk.
5. Sessions: request/answer round trips, Session.exchange against a raw pipe.
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

from verify.runner import Isolation, Limits, Program, isolation_from_settings, prepare, resolve_isolation, run_program  # noqa: E402,E501
from verify.runner.pools import Pools  # noqa: E402
from verify.settings import from_process  # noqa: E402

DEFAULT = isolation_from_settings(from_process())   # what verify run here would use

# (policy, cgroups, built ahead): "ahead" needs bubblewrap and no cgroup per run
MODES = ["bwrap+cgroup", "bwrap+rlimits", "bwrap+rlimits+ahead", "none+cgroup", "none+rlimits"]


def isolation_of(mode: str) -> tuple[Isolation, bool]:
    """The isolation of `mode`, and whether its runs build their next sandbox ahead."""
    policy, accounting, *ahead = mode.split("+")
    return resolve_isolation(policy, cgroups=accounting == "cgroup"), bool(ahead)


def overhead(program: Program, stdin: bytes, repeat: int, label: str) -> None:
    """Bare and harnessed runs interleaved (bare, bubblewrap, rlimits-only, bare, ...), so
    that the load other people put on the machine hits all three alike; medians."""
    prepared = prepare(program, isolation=DEFAULT)
    bare_argv = prepared.argv([], Limits())
    folder = program.folder

    def bare():
        subprocess.run(bare_argv, input=stdin, capture_output=True, cwd=folder)

    def harness(mode: str):
        chosen, ahead = isolations[mode]
        result = run_program(program, stdin=stdin, on_stdout=lambda chunk: None, isolation=chosen, ahead=ahead,
                             pools=built_ahead)
        assert result.exit_code == 0, result.stderr_tail

    modes = MODES
    built_ahead = Pools(forkserver=False)
    isolations = {mode: isolation_of(mode) for mode in modes}
    names = {mode: chosen.name + (" (ahead)" if ahead else "") for mode, (chosen, ahead) in isolations.items()}
    samples: dict[str, list[float]] = {"bare": [], **{m: [] for m in modes}}
    for round_number in range(repeat + 1):
        for mode in ["bare", *modes]:
            start = time.perf_counter()
            bare() if mode == "bare" else harness(mode)
            if round_number:  # round 0 warms the caches (artefact, verify-init, page cache)
                samples[mode].append(time.perf_counter() - start)
    base = statistics.median(samples["bare"])
    for mode in modes:
        ours = statistics.median(samples[mode])
        print(f"  {label:36s} {names[mode]:54s} bare {base * 1000:7.1f} ms  harness {ours * 1000:7.1f} ms"
              f"  overhead {(ours - base) * 1000:+6.1f} ms ({(ours / base - 1) * 100:+5.1f}%)")


def parallel(runs: int) -> None:
    import echo_contest

    from verify import contests
    from verify.commands.jobs import load_checks, run_checks
    from verify.grading import LocalRunner

    real_names, real_get = contests.names, contests.get
    contests.names = lambda: tuple(sorted({*real_names(), "echo"}))
    contests.get = lambda name: echo_contest.CONTEST if name == "echo" else real_get(name)
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as folder:
        root = Path(folder)
        os.chmod(root, 0o755)
        burn = "import sys\nx = 0\nfor i in range(6_000_000): x += i\nsys.stdout.write(sys.stdin.read())\n"
        entry = echo_contest.write_entry(root / "submissions" / "echo" / "burn", "burn.py", burn)
        cases = echo_contest.write_cases(root / "testcases" / "echo",
                                           {f"case{i:02d}": (b"%d\n" % i, b"%d\n" % i) for i in range(runs)})
        limits = Limits(wall_time=60, cpu_time=60)
        timings = {}
        for jobs in (1, 2, 1, 2):
            checks = load_checks([entry], cases)
            start = time.perf_counter()
            run_checks(LocalRunner(), checks, limits, jobs)
            elapsed = time.perf_counter() - start
            assert all(c.passed for c in checks), [r.verdict for c in checks for r in c.results]
            timings.setdefault(jobs, []).append(elapsed)
        one, two = min(timings[1]), min(timings[2])
        print(f"  {runs} CPU-bound runs: -j 1 {one:.2f} s, -j 2 {two:.2f} s: speed-up {one / two:.2f}x"
              f" (best of 2 each; cores: {os.cpu_count()})")


def real_check() -> None:
    from verify.commands.jobs import load_checks, run_checks
    from verify.grading import LocalRunner
    entries = [REPO / "submissions" / "desert" / name
               for name in ("reference", "javascript", "perl-deaths", "python-golf")]
    timings = {}
    for jobs in (1, 2, 1, 2):
        checks = load_checks(entries, REPO / "testcases" / "desert")
        start = time.perf_counter()
        run_checks(LocalRunner(), checks, Limits(wall_time=30, cpu_time=30), jobs)
        timings.setdefault(jobs, []).append(time.perf_counter() - start)
        cases = sum(len(c.results) for c in checks)
    one, two = min(timings[1]), min(timings[2])
    print(f"  {len(entries)} entries, {cases} runs: -j 1 {one:.2f} s, -j 2 {two:.2f} s: speed-up {one / two:.2f}x")


def streaming() -> None:
    """500 MiB through run_program to a consumer that only counts: throughput, and the
    judge's own peak memory (the output is never held)."""
    import resource
    with tempfile.TemporaryDirectory(prefix="bench-flood-") as folder:
        os.chmod(folder, 0o755)
        flood = Path(folder) / "flood.c"
        flood.write_text("#include <stdio.h>\n#include <string.h>\nint main(void){static char l[65536];"
                         "memset(l,'x',sizeof l-1);l[sizeof l-1]='\\n';"
                         "for(int i=0;i<8000;i++)fwrite(l,1,sizeof l,stdout);return 0;}\n")
        program = Program("c", flood)
        prepare(program, isolation=DEFAULT)
        start = time.perf_counter()
        result = run_program(program, limits=Limits(output=1 << 30), on_stdout=lambda chunk: None, isolation=DEFAULT)
        elapsed = time.perf_counter() - start
    print(f"  {result.stdout_bytes >> 20} MiB streamed in {elapsed:.2f} s = "
          f"{result.stdout_bytes / elapsed / 2**20:.0f} MiB/s; this process's peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10} MiB")


def session_round_trips(exchanges: int = 20000) -> None:
    """Session.exchange (sandboxed) against a raw pipe to the same C line-echo program."""
    from verify.runner import Session
    with tempfile.TemporaryDirectory(prefix="bench-session-") as folder:
        os.chmod(folder, 0o755)
        echo = Path(folder) / "echo.c"
        echo.write_text("#include <stdio.h>\nint main(void){char b[4096];"
                        "while(fgets(b,sizeof b,stdin)){fputs(b,stdout);fflush(stdout);}return 0;}\n")
        program = Program("c", echo)
        binary = str(prepare(program, isolation=DEFAULT).build / "main")
        raw = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        start = time.perf_counter()
        for _ in range(exchanges):
            raw.stdin.write(b"hello there\n")
            raw.stdin.flush()
            raw.stdout.readline()
        raw_rate = exchanges / (time.perf_counter() - start)
        raw.kill()
        raw.wait()
        with Session(program, Limits(wall_time=120, cpu_time=120), isolation=DEFAULT) as session:
            start = time.perf_counter()
            for _ in range(exchanges):
                session.exchange(b"hello there\n", 10)
            session_rate = exchanges / (time.perf_counter() - start)
    print(f"  raw pipe {raw_rate:,.0f} exchanges/s, Session {session_rate:,.0f}/s"
          f" (ratio {session_rate / raw_rate:.2f}; isolation {DEFAULT.name})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--overhead-only", action="store_true", help="Only section 1.")
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"1. overhead per run (median of {options.repeat})")
    with tempfile.TemporaryDirectory(prefix="bench-hello-") as folder:
        os.chmod(folder, 0o755)
        hello = Path(folder) / "hello.c"
        hello.write_text('#include <stdio.h>\nint main(void){puts("hello");return 0;}\n')
        overhead(Program("c", hello), b"", options.repeat, "C hello (fixed cost)")
        burn = Path(folder) / "burn.py"
        burn.write_text("import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end:\n    pass\n")
        overhead(Program("python", burn), b"", max(5, options.repeat // 2), "Python, 0.3 s of CPU")
    reference = REPO / "submissions" / "desert" / "reference" / "desert.py"
    case = (REPO / "testcases" / "desert" / "generated-seed110.txt").read_bytes()
    overhead(Program("python", reference), case, max(5, options.repeat // 2),
             "desert reference, generated-seed110")
    long_case = (REPO / "testcases" / "desert" / "one-row-26.txt").read_bytes()
    overhead(Program("python", reference), long_case, max(5, options.repeat // 4),
             "desert reference, one-row-26")
    if options.overhead_only:
        return
    print("2. parallel check")
    parallel(options.runs)
    print("3. parallel check of the real desert entries (verify check's engine)")
    real_check()
    print("4. streaming")
    streaming()
    print("5. interactive sessions")
    session_round_trips()
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
