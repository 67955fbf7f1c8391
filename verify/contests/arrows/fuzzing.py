"""Random arrow puzzles for ``verify fuzz``, and the steps that shrink one (pure).

Every puzzle has exactly one solution (the generator proves it with the reference
solver). Shapes vary (square, non-square, 2xN, Nx2, one row or column), the path
starts anywhere (so 1 is anywhere), givens go from the fewest that keep the puzzle
unique to dense, and the arrows are written in English or Dutch names (the entry
reads its own: the contest translates). Shrinking tries smaller boards first (new
puzzles of fewer cells that fit in the board, smallest first, from a few seeds each),
then one given fewer while
the solver still finds exactly one solution; 1 and N stay given, as in every
puzzle of the contest.
"""
from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from verify.contests.arrows.generator import Difficulty, generate
from verify.contests.arrows.model import Puzzle, parse_text
from verify.contests.arrows.solver import SearchBudgetExceeded, solutions
from verify.contests.contract import Fuzzer, TestCase
from verify.verdict import Status, Verdict

SHAPES = ("square", "wide", "tall", "two-rows", "two-columns", "line")
SHRINK_SEEDS = 4         # new puzzles tried for each smaller board
UNIQUENESS_NODES = 2000  # solver nodes spent proving a puzzle with a given fewer still unique


@dataclass(frozen=True)
class ArrowsBudget:
    max_side: int = 6

    def describe(self) -> str:
        return (f"unique puzzles up to {self.max_side}x{self.max_side}, English and Dutch arrows "
                "(larger boards are not generated: --max-size)")


def for_size(max_size: int | None) -> ArrowsBudget:
    return ArrowsBudget() if max_size is None else ArrowsBudget(max(2, max_size))


def _shape(rng: random.Random, side: int) -> tuple[int, int]:
    kind = rng.choice(SHAPES)
    if kind == "square":
        n = rng.randint(2, side)
        return n, n
    if kind == "two-rows":
        return 2, rng.randint(2, max(2, side + 2))
    if kind == "two-columns":
        return rng.randint(2, max(2, side + 2)), 2
    if kind == "line":
        # a line is unique only with many givens: keep it short
        n = rng.randint(2, min(side, 5))
        return (1, n) if rng.random() < 0.5 else (n, 1)
    short = rng.randint(2, max(2, side - 1))
    long = rng.randint(short, side)
    return (short, long) if kind == "wide" else (long, short)


def random_input(rng: random.Random, budget: ArrowsBudget = ArrowsBudget()) -> Puzzle:
    """One unique puzzle within ``budget`` (deterministic for the state of ``rng``)."""
    rows, cols = _shape(rng, budget.max_side)
    notation = rng.choice(("english", "dutch"))
    density = rng.choice((0.0, 0.0, 0.1, 0.3, 0.6))
    return generate(rows, cols, seed=rng.randrange(1 << 30), notation=notation,
                    difficulty=Difficulty(start_givens=density, minimize=density == 0.0 or rng.random() < 0.3))


def _unique(puzzle: Puzzle) -> bool:
    try:
        return len(solutions(puzzle, 2, max_nodes=UNIQUENESS_NODES)) == 1
    except SearchBudgetExceeded:
        return False


def shrink_steps(puzzle: Puzzle) -> Iterator[Puzzle]:
    """Smaller variants: new puzzles on smaller boards (fewest cells first, a few seeds each), then the
    same puzzle with one given fewer (still unique; never 1 or N)."""
    smaller = sorted(((rows, cols) for rows in range(1, puzzle.rows + 1) for cols in range(1, puzzle.cols + 1)
                      if 2 <= rows * cols < puzzle.size), key=lambda shape: (shape[0] * shape[1], shape))
    for rows, cols in smaller:
        for seed in range(SHRINK_SEEDS):
            yield generate(rows, cols, seed=seed, notation=puzzle.notation)
    size = puzzle.size
    for cell, number in enumerate(puzzle.numbers):
        if number and number not in (1, size):
            fewer = list(puzzle.numbers)
            fewer[cell] = 0
            variant = puzzle.with_numbers(fewer)
            if _unique(variant):
                yield variant


def size(puzzle: Puzzle) -> dict[str, int]:
    return {"rows": puzzle.rows, "columns": puzzle.cols, "givens": puzzle.givens}


def to_case(puzzle: Puzzle, name: str) -> TestCase[Puzzle]:
    text = puzzle.to_text()
    return TestCase(name, text.encode("ascii"), None, (text,), puzzle)


def show(puzzle: Puzzle) -> str:
    return puzzle.to_text()


def parse(data: bytes, source: str) -> Puzzle:
    return parse_text(data.decode("ascii", "replace"), where=source)


# the judge's own messages (verify/contests/arrows/judge.py, checker.py) -> the failure class
KINDS = (
    (r"^the arrow at .* was", "changed arrow"),
    (r"^the given \d+ at .* was changed", "changed given"),
    (r"is out of range", "number out of range"),
    (r"appears twice", "number twice"),
    (r"on the cell without an arrow", "number on the last cell"),
    (r"is not on the .* ray", "off the ray"),
    (r"^the board has \d+ cells", "cell count"),
    (r"^no board printed", "no board"),
    (r"^the board ended after", "board cut short"),
    (r"more than \d+ rows", "too many rows"),
    (r"expected \d+ cells, got", "row length"),
    (r"is not a cell", "not a cell"),
    (r"unknown arrow", "unknown arrow"),
    (r"the size line says", "size line"),
    (r"not ASCII", "not ASCII"),
    (r"longer than", "line too long"),
    (r"blank lines", "blank lines"),
)


def failure_kind(verdict: Verdict) -> str:
    """The failure class: the rule the board breaks or the kind of presentation error
    (read from the judge's own wording), or how the run ended."""
    if verdict.status in (Status.WRONG, Status.PRESENTATION):
        kind = next((name for pattern, name in KINDS if re.search(pattern, verdict.message)), None)
        return f"{verdict.status}: {kind}" if kind else str(verdict.status)
    return str(verdict.status)


class ArrowsFuzzer(Fuzzer[Puzzle]):
    """Unique arrow puzzles for one entry (its arrow language: the contest translates each case)."""

    def __init__(self, max_size: int | None):
        self.limits = for_size(max_size)
        self.budget = self.limits.describe()

    def generate(self, rng: random.Random) -> Puzzle:
        return random_input(rng, self.limits)

    def shrink_steps(self, value: Puzzle) -> Iterator[Puzzle]:
        return shrink_steps(value)

    def work(self, value: Puzzle, name: str) -> TestCase[Puzzle]:
        return to_case(value, name)

    def failure_kind(self, verdict: Verdict) -> str:
        return failure_kind(verdict)

    def show(self, value: Puzzle) -> str:
        return show(value)

    def parse(self, data: bytes, source: str) -> Puzzle:
        return parse(data, source)

    def size(self, value: Puzzle) -> dict[str, int]:
        return size(value)
