"""Benchmark of desert judging at scale: the compiled replay kernel on big outputs.

Builds the recursive-caching C entry (submissions/desert/recursive-c: its output doubles
with every square of S-E distance) and judges its output on straight one-row maps with S
and E at distance 14..24. For each size it prints: output bytes, turns, the entry's own
time (stdout to /dev/null, and into a pipe that a reader drains without judging), the
judge's time (a) kernel on the saved output file, (b) kernel on the entry's pipe, fed
synchronously and, as the contest judges a run, on a worker thread (``ConcurrentJudge``),
(c) ``verify.judging.judge_run`` (runner + sandbox + judge, what ``verify check`` does per
case), and once per size the ``verify check`` command itself, turns per second of
replay (of the whole judge, and of the compiled loop by itself), and the judge's peak memory (max RSS of the judging child process;
its baseline before reading any output is printed too).

Every measurement runs in a fresh child process (best of --repeat). Usage:

    python tests/benchmarks/bench_desert_kernel.py [--sizes 14-24] [--repeat 3] [--exact-up-to 18]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "submissions" / "desert" / "recursive-c"
CHUNK = 1 << 16          # what the runner reads from a pipe at a time


def straight_map(distance: int) -> bytes:
    return b"S" + b"." * (distance - 1) + b"E\n"


# ---------------------------------------------------------------- children (one measurement each)

def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _judge(map_bytes: bytes, fast: bool):
    from verify.contests.desert.judge import DesertJudge
    from verify.contests.desert.map import DesertMap
    return DesertJudge(DesertMap.parse(map_bytes), fast=fast)


def child_file(map_path: str, output_path: str, fast: str) -> dict:
    """Judge a saved output, fed in runner-sized chunks from the file."""
    judge = _judge(Path(map_path).read_bytes(), fast == "fast")
    judge.feed(b"")                       # loads the compiled loop before the clock starts
    transcript = judge.transcript
    in_loop = [0.0]
    if fast == "fast":                    # time the compiled loop's calls alone, too
        loop = transcript._replay

        def timed(*args):
            begun = time.perf_counter()
            reason = loop(*args)
            in_loop[0] += time.perf_counter() - begun
            return reason
        transcript._replay = timed
    baseline = _peak_rss()
    started, cpu_started = time.perf_counter(), time.process_time()
    with open(output_path, "rb") as output:
        while chunk := output.read(CHUNK):
            if judge.feed(chunk) is not None:
                break
    verdict = judge.finish()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return {"time": elapsed, "cpu": cpu, "status": verdict.status.value,
            "turns": verdict.stats.get("total_turns", 0), "loop_time": in_loop[0],
            "loop_turns": getattr(transcript, "kernel_turns", 0), "rss": _peak_rss(), "baseline": baseline}


def child_pipe(map_path: str, binary: str, judged: str) -> dict:
    """Run the entry with its stdout into a pipe; read it (and judge it, if asked) as it comes."""
    map_bytes = Path(map_path).read_bytes()
    judge = _judge(map_bytes, True) if judged in ("judge", "concurrent", "concurrent-1m") else None
    read_size = CHUNK
    if judged.startswith("concurrent"):   # as the contest judges a run: on a worker thread
        from verify.grading.concurrent import ConcurrentJudge
        judge = ConcurrentJudge(judge)
    if judge is not None:
        judge.feed(b"")
    baseline = _peak_rss()
    started = time.perf_counter()
    process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    process.stdin.write(map_bytes)
    process.stdin.close()
    descriptor = process.stdout.fileno()
    if judged == "concurrent-1m":         # what a runner could do: a 1 MiB pipe, read 1 MiB at a time
        import fcntl
        read_size = 1 << 20
        fcntl.fcntl(descriptor, 1031, read_size)     # F_SETPIPE_SZ
    status = "not judged"
    while chunk := os.read(descriptor, read_size):
        if judge is not None and judge.feed(chunk) is not None:
            break
    if judge is not None:
        status = judge.finish().status.value
    process.wait()
    elapsed = time.perf_counter() - started
    return {"time": elapsed, "status": status, "rss": _peak_rss(), "baseline": baseline}


def child_judge_run(map_path: str) -> dict:
    """``verify.judging.judge_run``: runner (sandbox, limits, pipe) + streaming judge, as ``verify check``."""
    from verify.contests.contract import TestCase
    from verify.entries import load_entry
    from verify.grading import LocalRunner, grade_case
    from verify.runner import Limits
    entry = load_entry(ENTRY)
    limits = Limits(wall_time=120, cpu_time=120, memory=1 << 30, output=1 << 31)
    warm = b"SE\n"
    grade_case(LocalRunner(), entry, TestCase("warm", warm, None, (warm.decode(),)), limits)   # build, load the kernel
    map_bytes = Path(map_path).read_bytes()
    case = TestCase(Path(map_path).stem, map_bytes, Path(map_path), (map_bytes.decode(),))
    baseline = _peak_rss()
    started = time.perf_counter()
    result = grade_case(LocalRunner(), entry, case, limits)
    elapsed = time.perf_counter() - started
    return {"time": elapsed, "entry_time": result.time, "status": result.verdict.status.value,
            "rss": _peak_rss(), "baseline": baseline}


def child_loop(map_path: str, output_path: str) -> dict:
    """The compiled loop alone over the whole saved output (one call per 64 KiB), in CPU time:
    what the kernel costs without any of the judge's Python work around it."""
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_desert_loop import c_loop

    from verify.contests.desert.map import DesertMap
    desert = DesertMap.parse(Path(map_path).read_bytes())
    spent, turns, _ = c_loop(desert, Path(output_path).read_bytes())
    return {"time": spent, "turns": turns}


def child_paired(map_path: str, binary: str, rounds: str) -> dict:
    """``judge_run`` with the judge fed synchronously and on its worker thread, alternated in one
    process with the entry alone, ``rounds`` times each: a paired comparison under the same load."""
    import statistics

    from verify.contests.contract import TestCase
    from verify.contests.desert import CONTEST
    from verify.entries import load_entry
    from verify.grading import LocalRunner, grade_case
    from verify.runner import Limits
    entry = load_entry(ENTRY)
    limits = Limits(wall_time=120, cpu_time=120, memory=1 << 30, output=1 << 31)
    beside = CONTEST.judge_beside_run
    warm = b"SE\n"
    grade_case(LocalRunner(), entry, TestCase("warm", warm, None, (warm.decode(),)), limits)
    map_bytes = Path(map_path).read_bytes()
    case = TestCase(Path(map_path).stem, map_bytes, Path(map_path), (map_bytes.decode(),))
    times: dict[str, list[float]] = {"entry": [], "synchronous": [], "concurrent": [],
                                     "pipe 64K": [], "pipe 1M": []}
    for _ in range(int(rounds)):
        times["entry"].append(entry_alone(binary, map_bytes, 1))
        for mode, judged in (("pipe 64K", "concurrent"), ("pipe 1M", "concurrent-1m")):
            times[mode].append(child_pipe(map_path, binary, judged)["time"])
        for mode, on_worker in (("synchronous", False), ("concurrent", True)):
            CONTEST.judge_beside_run = on_worker      # False: the runner's thread feeds the DesertJudge
            started = time.perf_counter()
            result = grade_case(LocalRunner(), entry, case, limits)
            times[mode].append(time.perf_counter() - started)
            assert result.verdict.accepted, result.verdict.message
    CONTEST.judge_beside_run = beside
    return {mode: {"min": min(values), "median": statistics.median(values)} for mode, values in times.items()}


CHILDREN = {"file": child_file, "pipe": child_pipe, "judge-run": child_judge_run, "loop": child_loop, "paired": child_paired}


def run_child(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"child {args} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def best(repeat: int, *args: str) -> dict:
    runs = [run_child(*args) for _ in range(repeat)]
    return min(runs, key=lambda run: run["time"])


# ---------------------------------------------------------------- the parent

def entry_binary() -> str:
    from verify.runner import Program, isolation_from_settings, prepare
    from verify.settings import from_process
    prepared = prepare(Program("c", (ENTRY / "desert.c").resolve()), isolation=isolation_from_settings(from_process()))
    return str(prepared.build / "main")


def entry_alone(binary: str, map_bytes: bytes, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            subprocess.run([binary], input=map_bytes, stdout=sink, check=True)
        times.append(time.perf_counter() - started)
    return min(times)


def verify_check(folder: Path) -> tuple[float, float]:
    """Wall time of the whole ``verify check`` command (one case + the entry's demo), and the case's time."""
    command = ["verify", "check", str(ENTRY), "--testcases", str(folder), "--format", "json", "-j", "1",
               "--time", "120", "--output", "2048"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"verify check gave no report (exit {done.returncode}): {done.stderr.strip()[-300:]}")
        return elapsed, float("nan")
    results = report["results"] if isinstance(report, dict) and "results" in report else report
    case_time = next((r["time"] for r in _flatten(results) if r.get("case") == "straight"), float("nan"))
    return elapsed, case_time


def _flatten(value):
    if isinstance(value, dict):
        if "case" in value:
            yield value
        for item in value.values():
            yield from _flatten(item)
    elif isinstance(value, list):
        for item in value:
            yield from _flatten(item)


def parse_sizes(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def paired(binary: str, sizes: list[int], rounds: int) -> None:
    print(f"paired judge_run, {rounds} rounds per size, load average {os.getloadavg()[0]:.2f} at start; "
          "seconds, min / median; ratios of medians to the entry alone's median; c|pipe = the entry piped "
          "straight into the judge on its worker thread (no runner, no sandbox), 64 KiB or 1 MiB pipe and reads")
    print(f"{'d':>3} {'entry':>15} {'synchronous':>15} {'concurrent':>15} {'c|pipe 64K':>15} {'c|pipe 1M':>15} "
          f"{'sync/e':>7} {'conc/e':>7}")
    with tempfile.TemporaryDirectory() as scratch:
        for distance in sizes:
            map_path = Path(scratch) / "straight.txt"
            map_path.write_bytes(straight_map(distance))
            got = run_child("paired", str(map_path), binary, str(rounds))
            cells = " ".join(f"{got[m]['min']:>7.3f}/{got[m]['median']:<7.3f}"
                             for m in ("entry", "synchronous", "concurrent", "pipe 64K", "pipe 1M"))
            entry = got["entry"]["median"]
            print(f"{distance:>3} {cells} {got['synchronous']['median'] / entry:>7.2f} "
                  f"{got['concurrent']['median'] / entry:>7.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="14-24")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--exact-up-to", type=int, default=18, help="also time the exact path up to this size")
    parser.add_argument("--no-check", action="store_true", help="skip the `verify check` command")
    parser.add_argument("--paired", type=int, default=0, metavar="ROUNDS",
                        help="only a paired comparison: judge_run with the judge fed synchronously / on its "
                             "worker thread, alternated with the entry alone, ROUNDS times per size")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        name, *args = options.child
        print(json.dumps(CHILDREN[name](*args)))
        return

    binary = entry_binary()
    if options.paired:
        paired(binary, parse_sizes(options.sizes), options.paired)
        return
    print(f"entry: {ENTRY.relative_to(ROOT)} built as {binary}; best of {options.repeat}; "
          f"load average {os.getloadavg()[0]:.2f} at start")
    header = (f"{'d':>3} {'bytes':>11} {'turns':>10} {'entry':>7} {'e|pipe':>7} {'kernel':>7} {'Mturn/s':>8} "
              f"{'cpu':>7} {'loop M/s':>8} {'alone':>6} "
              f"{'k|pipe':>7} {'c|pipe':>7} {'c|1M':>7} {'run':>7} {'run/e':>6} {'case':>7} {'case/e':>6} {'check':>7} "
              f"{'chk/e':>6} {'exact':>7} "
              f"{'RSS MB':>7} {'base':>5}")
    print(header)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for distance in parse_sizes(options.sizes):
            map_path = Path(scratch) / "straight.txt"
            map_path.write_bytes(straight_map(distance))
            output_path = Path(scratch) / "output.txt"
            with open(output_path, "wb") as sink:
                subprocess.run([binary], input=map_path.read_bytes(), stdout=sink, check=True)
            size = output_path.stat().st_size
            alone = entry_alone(binary, map_path.read_bytes(), options.repeat)
            drained = best(options.repeat, "pipe", str(map_path), binary, "drain")
            on_file = best(options.repeat, "file", str(map_path), str(output_path), "fast")
            alone_loop = best(options.repeat, "loop", str(map_path), str(output_path))
            on_pipe = best(options.repeat, "pipe", str(map_path), binary, "judge")
            beside = best(options.repeat, "pipe", str(map_path), binary, "concurrent")
            wide = best(options.repeat, "pipe", str(map_path), binary, "concurrent-1m")
            judged = best(options.repeat, "judge-run", str(map_path))
            exact = (best(1, "file", str(map_path), str(output_path), "exact")["time"]
                     if distance <= options.exact_up_to else float("nan"))
            check_wall = case_time = float("nan")
            if not options.no_check:
                case_folder = Path(scratch) / "cases"
                case_folder.mkdir(exist_ok=True)
                (case_folder / "straight.txt").write_bytes(straight_map(distance))
                check_wall, case_time = verify_check(case_folder)
            rss = max(on_file["rss"], on_pipe["rss"], beside["rss"], wide["rss"], judged["rss"]) / 2**20
            baseline = min(on_file["baseline"], on_pipe["baseline"]) / 2**20
            assert on_file["status"] == on_pipe["status"] == beside["status"] == wide["status"] == judged["status"] == "accepted", (
                on_file, beside, judged)
            turns = on_file["turns"]
            row = {"distance": distance, "bytes": size, "turns": turns, "entry": alone,
                   "entry_pipe": drained["time"], "kernel_file": on_file["time"],
                   "turns_per_second": turns / on_file["time"], "kernel_cpu": on_file["cpu"],
                   "loop_turns_per_second": on_file["loop_turns"] / max(on_file["loop_time"], 1e-9),
                   "loop_alone_turns_per_cpu_second": alone_loop["turns"] / max(alone_loop["time"], 1e-9),
                   "kernel_pipe": on_pipe["time"], "concurrent_pipe": beside["time"],
                   "concurrent_pipe_1m": wide["time"],
                   "judge_run": judged["time"], "check_case": case_time, "check_wall": check_wall,
                   "exact_file": exact, "rss_mb": rss, "baseline_mb": baseline}
            rows.append(row)
            print(f"{distance:>3} {size:>11} {turns:>10} {alone:>7.3f} {drained['time']:>7.3f} "
                  f"{on_file['time']:>7.3f} {turns / on_file['time'] / 1e6:>8.1f} {on_file['cpu']:>7.3f} "
                  f"{on_file['loop_turns'] / max(on_file['loop_time'], 1e-9) / 1e6:>8.1f} "
                  f"{alone_loop['turns'] / max(alone_loop['time'], 1e-9) / 1e6:>6.0f} {on_pipe['time']:>7.3f} "
                  f"{beside['time']:>7.3f} {wide['time']:>7.3f} {judged['time']:>7.3f} {judged['time'] / alone:>6.2f} "
                  f"{case_time:>7.3f} {case_time / alone:>6.2f} {check_wall:>7.3f} "
                  f"{check_wall / alone:>6.2f} {exact:>7.3f} {rss:>7.1f} {baseline:>5.0f}", flush=True)
    print("columns: entry = entry alone, stdout to /dev/null; e|pipe = entry into a pipe drained without "
          "judging; kernel = judge on the saved file (64 KiB chunks), Mturn/s its turns per wall second, cpu its CPU seconds, loop M/s the turns per second inside the compiled loop's calls, alone the loop by itself over the file (M turns per CPU second); k|pipe = entry piped into the judge, fed synchronously; "
          "c|pipe = the same with the judge on a worker thread (ConcurrentJudge, as the contest runs it); c|1M = that with a 1 MiB pipe read 1 MiB at a time; "
          "run = verify.judging.judge_run (sandbox + runner + judge); case = the case's time as `verify check` "
          "reports it; check = the whole `verify check` "
          "command (process start, imports, demo case); exact = exact path alone on the file; RSS = peak "
          "RSS of the judging process (base = before any output); times in seconds")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
