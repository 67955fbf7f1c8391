"""How much longer a desert entry takes under `verify` than alone: paired rounds, one command.

For each row (an entry and a case of testcases/desert), a fresh child process alternates,
``--rounds`` times:

- the entry alone: its command line as `verify` builds it (``Prepared.argv``: the built binary
  of a C entry, ``perl golf.pl`` for Perl), no sandbox, the case on stdin, stdout to /dev/null;
- the case as `verify check` grades it (``grade_case``: sandbox, runner, the judge reading the
  pipe beside the run), timed from outside (wall) and as the report shows it (``time``);
- the issue's measurement, both whole processes: the entry's process alone (stdout to /dev/null)
  and the whole ``verify check ENTRY --case CASE`` command (interpreter, imports, build cache,
  sandbox, judge, report), wall and CPU seconds (user + system, children included), its
  bytecode compiled once into a temporary PYTHONPYCACHEPREFIX (as an installed verify has it).

With ``--against REF``, the whole ``verify check`` of the git commit REF (a worktree of it in a
temporary folder, its own code first on the path) is timed too, in the same rounds, right after
this tree's: the before and after of a change side by side.

It prints, per row, the output's size and turns, both times (min / median), the ratios of the
medians (check wall / entry, report time / entry), and where the difference goes: the same pair
on the two-square case ``SE`` (what a graded run costs beyond the entry whatever it prints:
sandbox, start, runner), the judge alone on the saved output (``DesertJudge`` fed 64 KiB
chunks, wall seconds) and the compiled loop alone over it (MB and M turns per CPU second). The default rows are the two of the issue's table: recursive-c on one-row-26 (standard
notation, 537 MB) and perl-lrud-xy on one-row-26 (lrud-xy, map first, 12 MB). The machine's load
(load average, cores) is printed at the start and the end; medians of paired rounds are
meant for a quiet machine (a busy one slows both sides, but not alike).

    python3 tests/benchmarks/bench_desert_entry_ratio.py [--rounds 5] [--row ENTRY:CASE ...] [--against REF]
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROWS = ("recursive-c:one-row-26", "perl-lrud-xy:one-row-26")
CHUNK = 1 << 16          # what the runner reads from a pipe at a time
PIPE_SIZE = 1 << 20      # the runner's stdout pipe (process.STDOUT_PIPE)


def child(entry_name: str, case_name: str, rounds: int, against: str | None = None,
          venv: Path | None = None) -> dict:
    """One row, in its own process: paired rounds of the entry alone and of the graded case."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_desert_loop import c_loop

    from verify.contests.contract import TestCase
    from verify.contests.desert.map import DesertMap
    from verify.entries import load_entry
    from verify.grading import LocalRunner, grade_case
    from verify.runner import Limits, prepare

    entry = load_entry(ROOT / "submissions" / "desert" / entry_name)
    limits = Limits(wall_time=120, cpu_time=120, memory=1 << 30, output=1 << 31)
    map_path = ROOT / "testcases" / "desert" / f"{case_name}.txt"
    map_bytes = map_path.read_bytes()
    case = TestCase(case_name, map_bytes, map_path, (map_bytes.decode(),))
    assert entry.program is not None, f"{entry_name}: no program to run"
    argv = prepare(entry.program, isolation=LocalRunner().resolved).argv([], limits)
    folder = entry.program.folder

    def alone(stdin: bytes) -> float:
        started = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            subprocess.run(argv, input=stdin, stdout=sink, cwd=folder, check=True)
        return time.perf_counter() - started

    def into_pipe(stdin: bytes) -> float:
        """The entry alone, its stdout a 1 MiB pipe that this process only drains (the least any
        reader of the output costs the entry: each byte copied into the pipe)."""
        buffer = bytearray(PIPE_SIZE)
        with tempfile.TemporaryFile() as source:
            source.write(stdin)
            source.seek(0)
            started = time.perf_counter()
            process = subprocess.Popen(argv, stdin=source, stdout=subprocess.PIPE, cwd=folder)
            assert process.stdout is not None
            with contextlib.suppress(OSError):
                fcntl.fcntl(process.stdout.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
            while os.readv(process.stdout.fileno(), [buffer]):
                pass
            process.wait()
        return time.perf_counter() - started

    def into_file(stdin: bytes) -> float:
        """The entry alone, its stdout a file in /dev/shm (what an output in memory the judge
        maps costs the entry: each byte copied into a page of the file)."""
        with tempfile.TemporaryFile(dir="/dev/shm") as sink:
            started = time.perf_counter()
            subprocess.run(argv, input=stdin, stdout=sink, cwd=folder, check=True)
            return time.perf_counter() - started

    # verify's bytecode compiled once, as an installed package has it (an environment with
    # PYTHONDONTWRITEBYTECODE would compile every module at every start: ~0.5 s here)
    command_env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    command_env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="verify-bench-pycache-")

    def whole(command: list[str], stdin: bytes | None = None, root: Path = ROOT) -> tuple[float, float]:
        """Wall and CPU seconds (its own and its children's) of a whole process, stdout to /dev/null."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            subprocess.run(command, input=stdin, stdout=sink, cwd=root if stdin is None else folder, check=True,
                           env=command_env if stdin is None else None)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime

    verify_command = [str(venv / "bin" / "verify")] if venv is not None else \
        [sys.executable, "-c", "from verify.cli import run; run()"]
    check_command = [*verify_command, "check", str(ROOT / "submissions" / "desert" / entry_name),
                     "--case", case_name]
    interpreter = str(venv / "bin" / "python3") if venv is not None else sys.executable

    def graded(graded_case: TestCase) -> tuple[float, float]:
        started = time.perf_counter()
        result = grade_case(LocalRunner(), entry, graded_case, limits)
        assert result.verdict.accepted, result.verdict.message
        return time.perf_counter() - started, result.time

    trivial = TestCase("SE", b"SE\n", None, ("SE\n",))
    warm = grade_case(LocalRunner(), entry, case, limits)     # builds, loads the kernel, warms the caches
    assert warm.verdict.accepted, warm.verdict.message
    whole(check_command)                                       # the command's own start-up files, warm
    times: dict[str, list[float]] = {"entry": [], "check": [], "reported": [], "entry SE": [], "check SE": [],
                                     "entry process": [], "entry cpu": [], "verify check": [], "check cpu": [],
                                     "REF check": [], "REF cpu": [], "entry pipe": [], "entry file": [],
                                     "interpreter": []}
    with worktree(against) as other:
        if other is not None:
            whole(check_command, root=other)                  # its build of the entry, its bytecode
        for _ in range(rounds):
            wall, cpu = whole(argv, map_bytes)
            times["entry process"].append(wall)
            times["entry cpu"].append(cpu)
            wall, cpu = whole(check_command)
            times["verify check"].append(wall)
            times["check cpu"].append(cpu)
            if other is not None:
                wall, cpu = whole(check_command, root=other)
                times["REF check"].append(wall)
                times["REF cpu"].append(cpu)
            times["entry"].append(alone(map_bytes))
            times["entry pipe"].append(into_pipe(map_bytes))
            times["entry file"].append(into_file(map_bytes))
            times["interpreter"].append(whole([interpreter, "-c", "pass"])[0])
            wall, reported = graded(case)
            times["check"].append(wall)
            times["reported"].append(reported)
            times["entry SE"].append(alone(b"SE\n"))
            times["check SE"].append(graded(trivial)[0])

    output = subprocess.run(argv, input=map_bytes, capture_output=True, cwd=folder, check=True).stdout
    desert = DesertMap.parse(map_bytes)
    moves = output
    if entry.options.order == "map-first":            # the loop reads moves: cut the map block off
        for _ in range(desert.height):
            moves = moves[moves.index(b"\n") + 1:]
    loop_cpu = min(c_loop(desert, moves, entry.options.notation)[0] for _ in range(3))
    judge_wall = min(judge_alone(desert, output, entry.options) for _ in range(3))
    return {"entry": entry_name, "case": case_name, "notation": entry.options.notation.name,
            "bytes": len(output), "turns": warm.verdict.stats.get("total_turns", 0), "loop_cpu": loop_cpu,
            "judge_wall": judge_wall, "times": times}


@contextlib.contextmanager
def worktree(ref: str | None) -> Iterator[Path | None]:
    """A detached git worktree of ``ref`` in a temporary folder (removed after), or None without one."""
    if ref is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="verify-bench-ref-") as scratch:
        folder = Path(scratch) / "ref"
        subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            yield folder
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, capture_output=True)


def judge_alone(desert, output: bytes, options) -> float:
    """Wall seconds of the judge by itself on the saved output, fed in the runner's 64 KiB chunks."""
    from verify.contests.desert.judge import DesertJudge
    judge = DesertJudge(desert, options.notation, options.order, options.deaths)
    judge.feed(b"")                       # loads the compiled loop before the clock starts
    started = time.perf_counter()
    for offset in range(0, len(output), CHUNK):
        if judge.feed(output[offset:offset + CHUNK]) is not None:
            break
    verdict = judge.finish()
    assert verdict.accepted, verdict.message
    return time.perf_counter() - started


def run_child(row: str, rounds: int, against: str | None, venv: Path | None) -> dict:
    entry_name, _, case_name = row.partition(":")
    done = subprocess.run([sys.executable, __file__, "--child", entry_name, case_name, str(rounds),
                           *(["--against", against] if against else []),
                           *(["--venv", str(venv)] if venv else [])], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{row}: the measuring process failed:\n{done.stderr.strip()[-2000:]}")
    result: dict = json.loads(done.stdout.splitlines()[-1])
    return result


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min) {five:.2f} (5 min) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds per row")
    parser.add_argument("--row", action="append", metavar="ENTRY:CASE",
                        help="an entry of submissions/desert and a case of testcases/desert (repeatable; "
                             f"default: {' '.join(ROWS)})")
    parser.add_argument("--against", metavar="REF",
                        help="also time the whole verify check of the git commit REF, in the same rounds")
    parser.add_argument("--venv", type=Path, metavar="DIR",
                        help="time the whole command as a user runs it: DIR/bin/verify of a virtual "
                             "environment where this tree is installed (python3 -m venv DIR && DIR/bin/pip "
                             "install .), and DIR's interpreter as the least start of a judge")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    venv = options.venv.resolve() if options.venv else None
    if options.child:
        entry_name, case_name, rounds = options.child
        print(json.dumps(child(entry_name, case_name, int(rounds), options.against, venv)))
        return
    print(f"{options.rounds} paired rounds per row; {load()} at the start")
    print(f"{'entry:case':<28} {'notation':<9} {'MB':>7} {'M turns':>8} {'entry s':>15} {'check s':>15} "
          f"{'reported s':>15} {'check/e':>8} {'rep/e':>6} {'SE: e, chk':>15} {'judge s':>7} {'loop MB/s':>9} "
          f"{'loop Mt/s':>9}")
    rows = []
    for row in options.row or ROWS:
        got = run_child(row, options.rounds, options.against, venv)
        times = got["times"]
        median = {name: statistics.median(values) for name, values in times.items() if values}
        cells = " ".join(f"{min(times[name]):>7.3f}/{median[name]:<7.3f}" for name in ("entry", "check", "reported"))
        loop_cpu = max(got["loop_cpu"], 1e-9)
        print(f"{row:<28} {got['notation']:<9} {got['bytes'] / 1e6:>7.1f} {got['turns'] / 1e6:>8.2f} {cells} "
              f"{median['check'] / median['entry']:>8.2f} {median['reported'] / median['entry']:>6.2f} "
              f"{median['entry SE']:>7.3f},{median['check SE']:<7.3f} {got['judge_wall']:>7.3f} "
              f"{got['bytes'] / loop_cpu / 1e6:>9.0f} {got['turns'] / loop_cpu / 1e6:>9.0f}", flush=True)
        print(f"{'':<28} whole processes: entry {min(times['entry process']):.3f}/{median['entry process']:.3f} s "
              f"(CPU {median['entry cpu']:.3f} s), `verify check --case` {min(times['verify check']):.3f}/"
              f"{median['verify check']:.3f} s (CPU {median['check cpu']:.3f} s): "
              f"{median['verify check'] / median['entry process']:.2f}x", flush=True)
        entry = median["entry"]
        run_cost = median["check SE"] - median["entry SE"]
        print(f"{'':<28} the floor: the entry into a pipe only drained {median['entry pipe']:.3f} s "
              f"({median['entry pipe'] / entry:.2f}x the entry to /dev/null), into a file in /dev/shm "
              f"{median['entry file']:.3f} s ({median['entry file'] / entry:.2f}x); the interpreter's start "
              f"{median['interpreter'] * 1000:.1f} ms; into the pipe plus that start "
              f"{(median['entry pipe'] + median['interpreter']) / entry:.2f}x; and a graded run's own cost "
              f"(SE: graded minus alone) {run_cost * 1000:.1f} ms, "
              f"{(median['entry pipe'] + median['interpreter'] + run_cost) / entry:.2f}x in all", flush=True)
        if options.against:
            print(f"{'':<28} {options.against}: `verify check --case` {min(times['REF check']):.3f}/"
                  f"{median['REF check']:.3f} s (CPU {median['REF cpu']:.3f} s): "
                  f"{median['REF check'] / median['entry process']:.2f}x; this / {options.against}: "
                  f"wall {median['verify check'] / median['REF check']:.2f}, "
                  f"CPU {median['check cpu'] / median['REF cpu']:.2f}", flush=True)
        rows.append({**got, "median": median, "check_over_entry": median["check"] / median["entry"],
                     "whole_over_entry": median["verify check"] / median["entry process"]})
    print(f"{load()} at the end")
    print("columns: entry = the entry alone, stdout to /dev/null; check = the case graded as `verify check` "
          "grades it (sandbox + runner + judge beside the run), wall seconds from outside; reported = the "
          "case's time in the report; min/median over the rounds; ratios of medians; SE = medians of the entry "
          "alone and graded on the map SE (the cost of a graded run beyond the entry's); judge = the judge alone "
          "on the saved output, wall seconds (best of 3); loop = the compiled replay loop alone over it, per "
          "CPU second (best of 3); whole processes = the issue's measurement: the entry's process alone "
          "(stdout to /dev/null) and the whole `verify check ENTRY --case CASE` process, alternated in the "
          "same rounds, min/median wall and median CPU (user + system, children included); with --against "
          "REF, the whole command of REF too, right after this tree's in each round; the floor = the entry "
          "alone with its stdout a pipe this process only drains, or a file in /dev/shm, and the start of "
          "the interpreter that runs the whole command (`-c pass`): what any judge reading the output from "
          "a Python process costs at least, over the entry to /dev/null; in all, with the cost of a sandboxed "
          "run beyond the entry's (the SE pair: sandbox, cgroup, runner, judge on a two-square map)")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
