"""What the seccomp filter (verify/runner/seccomp.py) costs.

    python tests/benchmarks/bench_seccomp.py [--repeat N]

1. Its size: instructions of each variant (the kernel allows 4096), and the time to
   compile it with libseccomp (once per process) and to find its cached file.
2. Start-up: `/bin/true` and `python3 -c pass` under `bwrap` without and with
   `--seccomp FD`, interleaved (bare, without, with, bare, ...) so that the load others
   put on the machine hits all alike; medians and fastest runs, and their ratio.
3. Per call: a C loop making 2 million calls of one kind, without and with the filter:
   `getppid` (allowed whatever its arguments: the kernel caches that and never runs the
   filter), `ioctl(FIONREAD)` and `fcntl(F_GETFL)` (the filter looks at their arguments,
   fcntl only with block_kill_of), in ns per call.
Figures are printed side by side; nothing is asserted.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from verify.runner import seccomp  # noqa: E402

LOOP_C = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
    long n = atol(argv[2]);
    int pipes[2], count;
    if (pipe(pipes) != 0) return 1;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) {
        if (!strcmp(argv[1], "getppid")) getppid();
        else if (!strcmp(argv[1], "ioctl")) ioctl(pipes[0], FIONREAD, &count);
        else fcntl(pipes[0], F_GETFL);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}
"""
VARIANTS = {"default": {}, "block_shared_memory": {"block_shared_memory": True},
            "block_kill_of": {"block_kill_of": os.getpid()},
            "both": {"block_kill_of": os.getpid(), "block_shared_memory": True}}


def bwrap_argv(argv, descriptor: int | None, binds=()) -> list[str]:
    command = [shutil.which("bwrap"), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
               "--tmpfs", "/tmp", "--unshare-pid", "--die-with-parent"]
    for path in binds:
        command += ["--ro-bind", str(path), str(path)]
    if descriptor is not None:
        command += ["--seccomp", str(descriptor)]
    return [*command, "--", *map(str, argv)]


def timed(argv, filtered: bool = False) -> float:
    """Wall time of one run, in ms. With the filter its file is opened anew for each run
    (bwrap reads it from the descriptor's current offset), as the sandbox will; "{fd}" in
    argv becomes that descriptor."""
    fds: tuple[int, ...] = ()
    if filtered:
        descriptor = os.open(seccomp.filter_file(), os.O_RDONLY)
        fds = (descriptor,)
        argv = [a.replace("{fd}", str(descriptor)) for a in argv]
    start = time.perf_counter()
    subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   pass_fds=fds, check=True)
    elapsed = (time.perf_counter() - start) * 1000
    for descriptor in fds:
        os.close(descriptor)
    return elapsed


def size() -> None:
    print("1. size (instructions; the kernel allows 4096 per filter)")
    seccomp._compile.cache_clear()
    seccomp._plan.cache_clear()
    start = time.perf_counter()
    seccomp.filter_bytes()
    compile_ms = (time.perf_counter() - start) * 1000
    for name, options in VARIANTS.items():
        code = seccomp.filter_bytes(**options)
        print(f"   {name:<22} {len(code) // 8:>5} instructions  {len(code):>6} bytes  "
              f"({len(seccomp.blocked_calls(**options))} calls)")
    seccomp.filter_file()
    start = time.perf_counter()
    for _ in range(1000):
        seccomp.filter_file()
    cached_us = (time.perf_counter() - start) * 1000
    print(f"   compiling the default filter: {compile_ms:.1f} ms (once per process); "
          f"filter_file() when cached: {cached_us:.1f} µs")
    print(f"   {seccomp.describe()}")


def startup(repeat: int) -> None:
    print(f"\n2. start-up under bwrap, {repeat} interleaved runs (ms; the fastest run shows the cost\n"
          "   without the noise of a shared machine)")
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    print(f"   {'program':<22} {'bare':>8} {'bwrap':>8} {'+seccomp':>9} {'ratio':>7} {'added':>8}")
    for label, argv in (("/bin/true", ["/bin/true"]), ("python3 -c pass", [python, "-c", "pass"])):
        samples: dict[str, list[float]] = {"bare": [], "without": [], "with": []}
        without = bwrap_argv(argv, None)
        with_filter = bwrap_argv(argv, None)
        with_filter[-len(argv) - 1:-len(argv) - 1] = ["--seccomp", "{fd}"]
        for round_number in range(repeat + 2):
            runs = {"bare": timed(argv), "without": timed(without), "with": timed(with_filter, True)}
            if round_number >= 2:                              # (warm-up)
                for key, value in runs.items():
                    samples[key].append(value)
        for kind, pick in (("median", statistics.median), ("fastest", min)):
            bare, plain, filtered = (pick(samples[k]) for k in ("bare", "without", "with"))
            print(f"   {label + ', ' + kind:<22} {bare:>8.2f} {plain:>8.2f} {filtered:>9.2f} "
                  f"{filtered / plain:>7.3f} {filtered - plain:>+8.2f}")


def per_call(folder: Path) -> None:
    print("\n3. per system call under bwrap (ns per call, 2 million calls; fastest of 7 runs)")
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        print("   (no C compiler)")
        return
    (folder / "loop.c").write_text(LOOP_C)
    subprocess.run([compiler, "-O2", "-o", str(folder / "loop"), str(folder / "loop.c")], check=True)
    print(f"   {'call':<10} {'no filter':>10} " + " ".join(f"{name:>21}" for name in ("default", "both")))
    for call in ("getppid", "ioctl", "fcntl"):
        row = []
        for options in (None, {}, VARIANTS["both"]):
            values = []
            for _ in range(7):
                descriptor = os.open(seccomp.filter_file(**options), os.O_RDONLY) if options is not None else None
                try:
                    done = subprocess.run(bwrap_argv([folder / "loop", call, 2_000_000], descriptor, [folder]),
                                          capture_output=True, text=True, check=True,
                                          pass_fds=(descriptor,) if descriptor is not None else ())
                finally:
                    if descriptor is not None:
                        os.close(descriptor)
                values.append(float(done.stdout))
            row.append(min(values))
        base = row[0]
        print(f"   {call:<10} {base:>10.1f} " + " ".join(f"{v:>10.1f} ({v / base:>5.2f}x)  " for v in row[1:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=100)
    arguments = parser.parse_args()
    if not seccomp.available():
        sys.exit(f"no filter here: {seccomp.describe()}")
    with tempfile.TemporaryDirectory(prefix="bench-seccomp-") as folder:
        os.environ.setdefault("VERIFY_CACHE", str(Path(folder) / "cache"))
        size()
        if shutil.which("bwrap") is None:
            sys.exit("bwrap is not installed: no start-up figures")
        startup(arguments.repeat)
        per_call(Path(folder))


if __name__ == "__main__":
    main()
