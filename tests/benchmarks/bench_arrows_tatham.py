"""Arrow puzzle generation side by side with Simon Tatham's Signpost (Debian's ``sgt-puzzles``).

For each size and seed, alternated so that the machine's noise hits both alike:

* command line: ``verify gen arrows --size N --seed S`` (the installed console script, as a
  user runs it: with ``--venv DIR``, that of a virtual environment where this tree is installed
  as a user installs it, without this machine's site hooks) against ``sgt-signpost --generate
  1 NxN``, each a whole process, wall time;
* in process: verify's ``generate_puzzle(N, N, S)`` (the compiled propagation loaded
  beforehand) against Tatham's per-puzzle time of ``--generate 5 NxN`` (the whole process
  divided by 5) and as his ``--time-generation`` reports it.

Tatham's game ids (``WxH:`` then per cell in reading order an optional number and a letter
``a``-``h`` for the arrow, N clockwise to NW) are turned into verify's puzzles; verify's
solver solves them and proves them unique (counting to 2), timed. For both sets: givens
per cell, and the share that a deduction-only solver cannot finish: verify's propagation
alone (``deduces``) and Tatham's solver (``sgt-signpost --generate 1 --test-solve ID``,
which reports "Unable to solve puzzle." when his deductions stall). Prints medians and
ratios (verify over Tatham: below 1 means verify is faster), and first what verify's command
spends starting up (the interpreter, its site, the quick way's imports, click); asserts nothing.

    apt-get install -y sgt-puzzles
    python3 -m venv /tmp/verify-venv && /tmp/verify-venv/bin/pip install .     # (a copy of the tree)
    python3 tests/benchmarks/bench_arrows_tatham.py [--sizes 7 10 15 20] [--seeds 5] [--venv /tmp/verify-venv]
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from verify.contests.arrows import CONTEST
from verify.contests.arrows.generator import generate_puzzle
from verify.contests.arrows.kernel import library
from verify.contests.arrows.model import NO_ARROW, Puzzle
from verify.contests.arrows.solver import SolveStats, deduces, solutions

SIGNPOST = "/usr/games/sgt-signpost"
GAME_ID = re.compile(r"(\d+)x(\d+):([0-9a-h]+)")
CELL = re.compile(r"(\d*)([a-h])")
FIRST_SEED = 1000


def from_game_id(game_id: str) -> Puzzle:
    """Tatham's Signpost game id as verify's puzzle (the cell holding W*H loses its arrow)."""
    match = GAME_ID.fullmatch(game_id.strip())
    if not match:
        raise ValueError(f"not a Signpost game id: {game_id!r}")
    cols, rows, desc = int(match.group(1)), int(match.group(2)), match.group(3)
    cells = CELL.findall(desc)
    size = rows * cols
    if "".join(number + letter for number, letter in cells) != desc or len(cells) != size:
        raise ValueError(f"{game_id!r}: expected {size} cells")
    numbers = [int(number) if number else 0 for number, _ in cells]
    arrows = [ord(letter) - ord("a") for _, letter in cells]
    if size not in numbers:
        raise ValueError(f"{game_id!r}: no cell holds {size}")
    arrows[numbers.index(size)] = NO_ARROW
    return Puzzle(rows, cols, tuple(arrows), tuple(numbers))


def to_game_id(puzzle: Puzzle) -> str:
    """verify's puzzle as a Signpost game id (the last cell's arrow, which nothing reads, as N)."""
    cells = "".join(f"{number or ''}{chr(ord('a') + max(arrow, 0))}"
                    for number, arrow in zip(puzzle.numbers, puzzle.arrows, strict=True))
    return f"{puzzle.cols}x{puzzle.rows}:{cells}"


# as a user's installation runs: bytecode written once (pip compiles it), read from then on
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
CPU_SECONDS: list[float] = []      # the CPU time (user + system) of each process run, in order
WORKING_FOLDER: list[str | None] = [None]   # where processes start (--venv: away from this tree's verify)


def run(command: list[str]) -> tuple[float, str]:
    """Wall seconds of a whole process, and its standard output (its CPU seconds in CPU_SECONDS)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENVIRONMENT,
                          cwd=WORKING_FOLDER[0])
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU_SECONDS.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-400:]}")
    return elapsed, done.stdout


def tatham_deduces(game_id: str) -> bool:
    done = subprocess.run([SIGNPOST, "--generate", "1", "--test-solve", game_id], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True)
    return "Unable to solve" not in done.stdout + done.stderr


def verify_command(venv: Path | None) -> tuple[list[str], str]:
    """verify's command as a user runs it (the console script of ``venv``, else the one beside this
    interpreter when it runs), and the interpreter it runs on."""
    if venv is not None:
        WORKING_FOLDER[0] = "/"         # (python -c puts the working folder first on sys.path)
        return [str(venv.resolve() / "bin" / "verify")], str(venv.resolve() / "bin" / "python3")
    script = Path(sys.executable).parent / "verify"
    if script.is_file() and subprocess.run([str(script), "--version"], capture_output=True).returncode == 0:
        return [str(script)], sys.executable
    return [sys.executable, "-c", "from verify.__main__ import run; run()"], sys.executable


def median(values) -> float:
    return statistics.median(list(values))


def start_up(python: str) -> None:
    """What verify's command spends before generating: the interpreter without and with its
    site (the .pth files of the installation), the settings (the first import of any command),
    the quick way's modules, and click with the gen command's module (the full command line's)."""
    module = CONTEST.commands["gen"].split(":")[0]
    steps = [("python3 -S -c pass", ["-S", "-c", "pass"]), ("python3 -c pass", ["-c", "pass"]),
             ("import verify.settings", ["-c", "import verify.settings"]),
             ("import verify.contests.arrows.quick", ["-c", "import verify.contests.arrows.quick"]),
             ("import click", ["-c", "import click"]), (f"import {module}", ["-c", f"import {module}"])]
    figures = []
    for label, arguments in steps:
        walls = [run([python, *arguments])[0] for _ in range(5)]
        figures.append(f"{label} {median(walls) * 1000:.1f} ms (CPU {median(CPU_SECONDS[-5:]) * 1000:.1f})")
    print("start-up, medians of 5: " + "; ".join(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[7, 10, 15, 20])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--venv", type=Path, default=None, metavar="DIR",
                        help="run the console script of the virtual environment DIR (this tree installed in it)")
    options = parser.parse_args()
    if not shutil.which(SIGNPOST):
        raise SystemExit(f"{SIGNPOST} not found: apt-get install -y sgt-puzzles")
    if library() is None:
        print("note: no compiled propagation (no C compiler?): verify runs pure Python")
    command, python = verify_command(options.venv)
    run([*command, "gen", "arrows", "--size", "4"])       # writes the bytecode, builds the kernel if needed
    print(f"load average {os.getloadavg()[0]:.2f} at start; verify's command: {' '.join(command)}")
    start_up(python)
    seeds = range(FIRST_SEED, FIRST_SEED + options.seeds)
    for size in options.sizes:
        rows = []
        ours_cli, theirs_cli, ours_gen, theirs_batch, theirs_timed = [], [], [], [], []
        ours_cpu, theirs_cpu = [], []
        verify_puzzles, tatham_ids = [], []
        for seed in seeds:
            elapsed, out = run([*command, "gen", "arrows", "--size", str(size), "--seed", str(seed)])
            ours_cli.append(elapsed)
            ours_cpu.append(CPU_SECONDS[-1])
            elapsed, out = run([SIGNPOST, "--generate", "1", f"{size}x{size}"])
            theirs_cli.append(elapsed)
            theirs_cpu.append(CPU_SECONDS[-1])
            started = time.perf_counter()
            generated = generate_puzzle(size, size, seed)
            ours_gen.append(time.perf_counter() - started)
            verify_puzzles.append(generated.puzzle)
            elapsed, out = run([SIGNPOST, "--generate", "5", f"{size}x{size}"])
            theirs_batch.append(elapsed / 5)
            tatham_ids.extend(out.split())
            _, out = run([SIGNPOST, "--generate", "5", "--time-generation", f"{size}x{size}"])
            theirs_timed.extend(float(line.rsplit(":", 1)[1]) for line in out.splitlines() if ":" in line)
        solve_times, prove_times, unique, nodes = [], [], 0, []
        tatham_puzzles = [from_game_id(game_id) for game_id in tatham_ids]
        for puzzle in tatham_puzzles:
            started = time.perf_counter()
            solutions(puzzle, 1)
            solve_times.append(time.perf_counter() - started)
            stats = SolveStats()
            started = time.perf_counter()
            found = solutions(puzzle, 2, stats)
            prove_times.append(time.perf_counter() - started)
            unique += len(found) == 1
            nodes.append(stats.nodes)
        cells = size * size

        def stuck(puzzles, ids) -> str:
            ours = sum(not deduces(p) for p in puzzles)
            theirs = sum(not tatham_deduces(game_id) for game_id in ids)
            return f"verify's propagation {ours}/{len(puzzles)}, Tatham's solver {theirs}/{len(ids)}"

        cli_ratio = median(ours_cli) / median(theirs_cli)
        gen_ratio = median(ours_gen) / median(theirs_batch)
        rows.append(f"{size}x{size}: CLI verify {median(ours_cli) * 1000:.1f} ms, Tatham {median(theirs_cli) * 1000:.1f} ms, "
                    f"ratio {cli_ratio:.2f} (worst {max(ours_cli) * 1000:.1f} / {max(theirs_cli) * 1000:.1f} ms); "
                    f"CPU {median(ours_cpu) * 1000:.1f} / {median(theirs_cpu) * 1000:.1f} ms, "
                    f"ratio {median(ours_cpu) / max(median(theirs_cpu), 1e-4):.2f}; against a puzzle of his "
                    f"--generate 5 (the whole process / 5, {median(theirs_batch) * 1000:.1f} ms): "
                    f"ratio {median(ours_cli) / median(theirs_batch):.2f}")
        rows.append(f"    in process: verify {median(ours_gen) * 1000:.1f} ms, Tatham {median(theirs_batch) * 1000:.1f} ms "
                    f"a puzzle of --generate 5 ({median(theirs_timed) * 1000:.1f} ms by --time-generation), "
                    f"ratio {gen_ratio:.2f} ({median(ours_gen) / median(theirs_timed):.2f} by --time-generation)")
        rows.append(f"    givens per cell: verify {median(p.givens for p in verify_puzzles) / cells:.3f}, "
                    f"Tatham {median(p.givens for p in tatham_puzzles) / cells:.3f}")
        rows.append(f"    not finished by deduction alone: verify's puzzles: "
                    f"{stuck(verify_puzzles, [to_game_id(p) for p in verify_puzzles])}; "
                    f"Tatham's puzzles: {stuck(tatham_puzzles, tatham_ids)}")
        rows.append(f"    verify's solver on Tatham's {len(tatham_puzzles)} puzzles: {unique} unique; solve median "
                    f"{median(solve_times) * 1000:.2f} ms, prove unique (count to 2) median {median(prove_times) * 1000:.2f} ms "
                    f"(worst {max(prove_times) * 1000:.2f} ms), search nodes median {median(nodes)}")
        print("\n".join(rows), flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
