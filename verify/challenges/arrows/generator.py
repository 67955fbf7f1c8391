"""Puzzles with exactly one solution, for a size and a seed (deterministic).

1. A random path through every cell, each step to any cell along one of the
   eight lines from the previous one (a queen's move). Steps go preferably to
   cells with few unvisited neighbours left (Warnsdorff's rule, ties broken by
   the seeded random generator), which rarely strands a cell; when it does,
   the walk starts over with the next random numbers.
2. Each cell's arrow points toward the next cell of the path; the last has none.
3. Givens: 1 and N*N always (as in the spec's puzzles). While the solver finds
   a second solution, give the number of one cell where that solution differs
   from the path; while it needs more than ``max_nodes`` search nodes to settle
   the question, give the number of a random cell.
4. Then try taking each given (other than 1 and N*N) away, in random order,
   keeping it away when the puzzle stays unique within the same budget.

Every puzzle returned has been proven unique by the reference solver, and
needs at most ``max_nodes`` search nodes of it (the difficulty knob: a puzzle
with the fewest givens possible can take the solver, and any entry, very long).
"""
from __future__ import annotations

import random

from verify.challenges.arrows.model import NO_ARROW, STEPS, Puzzle
from verify.challenges.arrows.solver import SearchBudgetExceeded, solutions
from verify.errors import InputError

MAX_GENERATION_CELLS = 2500
DEFAULT_MAX_NODES = 20


def _queen_lines(rows: int, cols: int) -> list[list[int]]:
    lines = []
    for cell in range(rows * cols):
        row, col = divmod(cell, cols)
        reach = []
        for d_row, d_col in STEPS:
            r, c = row + d_row, col + d_col
            while 0 <= r < rows and 0 <= c < cols:
                reach.append(r * cols + c)
                r, c = r + d_row, c + d_col
        lines.append(reach)
    return lines


def random_path(rows: int, cols: int, rng: random.Random) -> list[int]:
    """A random Hamiltonian path of queen's moves over the board."""
    size = rows * cols
    reach = _queen_lines(rows, cols)
    while True:
        start = rng.randrange(size)
        visited = [False] * size
        visited[start] = True
        free_degree = [len(r) for r in reach]
        for other in reach[start]:
            free_degree[other] -= 1
        path = [start]
        while len(path) < size:
            options = [c for c in reach[path[-1]] if not visited[c]]
            if not options:
                break
            fewest = min(free_degree[c] for c in options)
            # mostly Warnsdorff, sometimes any cell, so paths stay varied
            pool = options if rng.random() < 0.25 else [c for c in options if free_degree[c] == fewest]
            nxt = rng.choice(pool)
            visited[nxt] = True
            for other in reach[nxt]:
                free_degree[other] -= 1
            path.append(nxt)
        if len(path) == size:
            return path


def _direction(puzzle_cols: int, here: int, there: int) -> int:
    (r0, c0), (r1, c1) = divmod(here, puzzle_cols), divmod(there, puzzle_cols)
    step = ((r1 > r0) - (r1 < r0), (c1 > c0) - (c1 < c0))
    return STEPS.index(step)


def board_of_path(rows: int, cols: int, path: list[int], notation: str = "english") -> Puzzle:
    """The fully numbered board whose arrows follow ``path``."""
    size = rows * cols
    arrows = [NO_ARROW] * size
    numbers = [0] * size
    for index, cell in enumerate(path):
        numbers[cell] = index + 1
        if index + 1 < size:
            arrows[cell] = _direction(cols, cell, path[index + 1])
    return Puzzle(rows, cols, tuple(arrows), tuple(numbers), notation)


def generate(rows: int, cols: int | None = None, seed: int = 0, notation: str = "english",
             max_nodes: int = DEFAULT_MAX_NODES, start_givens: float = 0.0,
             minimize: bool = True) -> Puzzle:
    """A puzzle with exactly one solution (deterministic for the arguments).

    ``start_givens`` (0..1) gives that share of the cells from the start, and
    ``minimize=False`` skips step 4: both make big boards quick to generate,
    with more givens than needed.
    """
    cols = rows if cols is None else cols
    if rows < 1 or cols < 1 or not 2 <= rows * cols <= MAX_GENERATION_CELLS:
        raise InputError(f"cannot generate a {rows}x{cols} board "
                         f"(2..{MAX_GENERATION_CELLS} cells)")
    rng = random.Random(f"arrows {rows}x{cols} seed {seed}")
    solution = board_of_path(rows, cols, random_path(rows, cols, rng), notation)
    size = solution.size
    answer = solution.numbers
    givens = [0] * size
    for cell in (answer.index(1), solution.last_cell):
        givens[cell] = answer[cell]
    for cell in rng.sample(range(size), int(start_givens * size)):
        givens[cell] = answer[cell]

    too_hard = ()  # stands for "the budget ran out": no alternative to compare with

    def alternative(numbers: list[int]) -> tuple[int, ...] | None:
        """A solution other than ``answer`` if there is one (or too_hard)."""
        try:
            for found in solutions(solution.with_numbers(numbers), 2, max_nodes=max_nodes):
                if found.numbers != answer:
                    return found.numbers
        except SearchBudgetExceeded:
            return too_hard
        return None

    while (other := alternative(givens)) is not None:
        if other is too_hard:
            differing = [cell for cell in range(size) if not givens[cell]]
        else:
            differing = [cell for cell in range(size) if other[cell] != answer[cell]]
        cell = rng.choice(differing)
        givens[cell] = answer[cell]
    removable = [cell for cell in range(size)
                 if minimize and givens[cell] and answer[cell] not in (1, size)]
    rng.shuffle(removable)
    for cell in removable:
        givens[cell] = 0
        if alternative(givens) is not None:
            givens[cell] = answer[cell]
    return solution.with_numbers(givens)
