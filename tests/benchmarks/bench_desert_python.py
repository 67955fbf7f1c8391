"""Throughput of the exact (pure-Python) desert path: engine, tokenizer, whole judge.

Run: python tests/benchmarks/bench_desert_python.py
Prints turns per second per stage (best of 3); no assertion. The judge runs with
``fast=False`` so that the compiled kernel stays out of the figures.
"""
from __future__ import annotations

import itertools
import time

from verify.contests.desert.engine import PICK, Crossing, Turn
from verify.contests.desert.judge import DesertJudge
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import LRUD_XY, STANDARD

CHUNK = 1 << 20


def best_of(runs: int, work) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def judge_all(desert: DesertMap, output: bytes, expected: str = "accepted", **options):
    judge = DesertJudge(desert, fast=False, **options)
    for start in range(0, len(output), CHUNK):
        judge.feed(output[start:start + CHUNK])
    verdict = judge.finish()
    assert verdict.message.startswith(expected) or verdict.accepted and expected == "accepted", verdict.message
    return verdict


def main() -> None:
    line = DesertMap.parse("S.........E\n")
    pacing = [Turn("R", PICK, 0), Turn("L", PICK, 2)] * 500_000          # 1M turns, stays alive
    seconds = best_of(3, lambda: Crossing(line).play(pacing))
    print(f"engine Crossing.play               : {len(pacing) / seconds / 1e6:5.2f} M turns/s")

    text = b"R+0\nL+2\n" * 500_000
    tokenizer = STANDARD.tokenizer()
    seconds = best_of(3, lambda: [tokenizer.tokenize(text[i:i + CHUNK], 0, True)
                                  for i in range(0, len(text), CHUNK)])
    print(f"tokenizer, standard                : {1e6 / seconds / 1e6:5.2f} M turns/s")

    ones = DesertMap.parse("S111111111E\n")
    win = b"R+1\n" * 9 + b"R+0\nS#########E\n"
    seconds = best_of(3, lambda: judge_all(ones, text + win))
    print(f"judge, standard, one long attempt  : {1e6 / seconds / 1e6:5.2f} M turns/s "
          f"({len(text) / seconds / 1e6:.1f} MB/s)")

    nines = DesertMap.parse("S" + "9" * 9 + "E\n")
    compact = b" " + b"RL RYL " * 250_000     # R: pick up 1 on the 9, L+space: fill on S, RY: drop 1 back
    end = b"\nRRRRRRRRRR\nS888888888E\n"
    nines_win = compact + end
    seconds = best_of(3, lambda: judge_all(nines, nines_win, notation=LRUD_XY))
    print(f"judge, lrud-xy, one long attempt   : {1e6 / seconds / 1e6:5.2f} M turns/s")

    square = DesertMap.parse("".join("".join("S" if (r, c) == (10, 10) else "E" if (r, c) == (19, 19) else "."
                                             for c in range(20)) + "\n" for r in range(20)))
    deaths = []
    for moves in itertools.product("UDLR", repeat=5):      # 1024 distinct five-turn deaths
        game = Crossing(square)
        game.play([Turn(d, PICK, 0) for d in moves])
        deaths.append("".join(f"{d}+0\n" for d in moves).encode() + game.render_bytes())
    output = b"".join(deaths)        # no win at the end: the figure is for reading and replaying deaths
    seconds = best_of(3, lambda: judge_all(square, output, "the output ends with no winning attempt (1024"))
    print(f"judge, 1024 deaths on a 20x20 map  : {1024 / seconds:7.0f} attempts/s "
          f"({len(output) / seconds / 1e6:.1f} MB/s)")


if __name__ == "__main__":
    main()
