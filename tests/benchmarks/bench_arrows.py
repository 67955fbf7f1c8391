"""Arrow path: reference solver vs the naive baseline, and generation time.

    python tests/benchmarks/bench_arrows.py [--puzzles 7] [--naive-timeout 2] [--big 20] [--big-puzzles 2]

For each size, puzzles are generated with seeds 1000, 1001, ... (default
difficulty: unique, at most 20 search nodes of the reference solver). Printed:
generation time; the reference solver's time to solve (first solution) and to
prove uniqueness (count up to 2), median and worst; the naive depth-first
search of the spec on the same puzzles, each cut off at --naive-timeout
seconds (how many finished, median of those, and the ratio of medians where
every puzzle finished). For the big size (20x20 by default) generation starts
from half the cells given and then removes givens while the puzzle stays
unique and within the search budget (--big-minimize 0 skips that removal).

For scale: Simon Tatham's C solver solves 10x10 in about 0.4 ms,
20x20 in about 3 ms, and generates a unique 10x10 in about 11 ms.
"""
from __future__ import annotations

import argparse
import statistics
import time

from verify.contests.arrows.generator import Difficulty, generate
from verify.contests.arrows.naive import naive_solutions
from verify.contests.arrows.solver import SearchBudgetExceeded, SolveStats, solutions

TATHAM_MS = {10: (0.4, 11.0), 20: (3.0, None)}


def timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def bench_size(size: int, count: int, naive_timeout: float, **generate_options) -> None:
    gen_times, solve_times, prove_times, nodes, givens = [], [], [], [], []
    naive_times, naive_unfinished = [], 0
    for seed in range(1000, 1000 + count):
        puzzle, seconds = timed(generate, size, size, seed, **generate_options)
        gen_times.append(seconds)
        givens.append(puzzle.givens)
        stats = SolveStats()
        found, seconds = timed(solutions, puzzle, 1, stats)
        assert len(found) == 1
        solve_times.append(seconds)
        nodes.append(stats.nodes)
        found, seconds = timed(solutions, puzzle, 2)
        assert len(found) == 1, "generated puzzle not unique"
        prove_times.append(seconds)
        if naive_timeout > 0:
            try:
                _, seconds = timed(naive_solutions, puzzle, 1,
                                   deadline=time.perf_counter() + naive_timeout)
                naive_times.append(seconds)
            except SearchBudgetExceeded:
                naive_unfinished += 1
    med, worst = statistics.median(solve_times), max(solve_times)
    print(f"{size:>3}x{size:<3} {count:>3} puzzles, givens median {statistics.median(givens):>5.0f}"
          f" | generate median {ms(statistics.median(gen_times))} ms worst {ms(max(gen_times))} ms"
          f" | solve median {ms(med)} ms worst {ms(worst)} ms (nodes median {statistics.median(nodes):.0f},"
          f" worst {max(nodes)})"
          f" | prove unique median {ms(statistics.median(prove_times))} ms worst {ms(max(prove_times))} ms")
    if naive_timeout > 0:
        finished = len(naive_times)
        line = f"        naive: {finished}/{count} finished within {naive_timeout:g} s"
        if naive_times:
            line += f", median of those {ms(statistics.median(naive_times))} ms"
        if finished == count:
            line += f", median ratio naive/reference {statistics.median(naive_times) / med:.1f}x"
        print(line)
    if size in TATHAM_MS:
        solve_ms, gen_ms = TATHAM_MS[size]
        line = f"        vs Tatham's C solver: solve {med * 1000 / solve_ms:.0f}x slower (median)"
        if gen_ms:
            line += f", generate {statistics.median(gen_times) * 1000 / gen_ms:.0f}x slower"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puzzles", type=int, default=7, help="puzzles per size (6, 8, 10, 12)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[6, 8, 10, 12])
    parser.add_argument("--naive-timeout", type=float, default=2.0)
    parser.add_argument("--big", type=int, default=20)
    parser.add_argument("--big-puzzles", type=int, default=2)
    parser.add_argument("--big-minimize", type=int, default=1)
    args = parser.parse_args()
    for size in args.sizes:
        bench_size(size, args.puzzles, args.naive_timeout)
    if args.big and args.big_puzzles:
        bench_size(args.big, args.big_puzzles, 0, difficulty=Difficulty(start_givens=0.5,
                                                                        minimize=bool(args.big_minimize)))


if __name__ == "__main__":
    main()
