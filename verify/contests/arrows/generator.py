"""Puzzles with exactly one solution, for a size and a seed (deterministic).

1. A random path through every cell, each step to any cell along one of the
   eight lines from the previous one (a queen's move). Steps go preferably to
   cells with few unvisited neighbours left (Warnsdorff's rule, ties broken by
   the seeded random generator), which rarely strands a cell; when it does,
   the walk starts over with the next random numbers.
2. Each cell's arrow points toward the next cell of the path; the last has none.
3. Givens (as Simon Tatham's Signpost generator does): 1 and N*N always (as in the
   spec's puzzles). The reference solver's propagation alone (no search) runs on
   them; while it stalls, the number of one cell of the branching point it stalled
   on is given (chosen by the seeded generator), and propagation goes on from where
   it stood. When it completes the board, every number was forced: the puzzle has
   exactly one solution.
4. ``minimize``: each given that step 3 added, the last added first, is taken away
   when propagation alone still completes the board without it; the test starts
   from the deduction saved just before that given was added, not from scratch.
   Givens present from the start (``start_givens``), in random order, then the same
   way from scratch. Every given left is needed.
5. ``hard``: then each remaining given, in random order, is taken away when the puzzle
   stays unique for the full solver (search included) within ``max_nodes`` search
   nodes: such puzzles need search, which propagation alone cannot do.

Every puzzle returned is proven unique by the reference solver (counting solutions
up to 2), and :func:`generate_puzzle` reports how many search nodes that took: 1 when
propagation alone solves it, more for a ``hard`` puzzle (its difficulty).

Where the compiled kernel loads, all of it runs in C (``generate.c``: the same steps on the
same random numbers, CPython's Mersenne Twister started from this generator's state), else
in Python here: the same puzzle for the same arguments either way.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from verify.contests.arrows.generation import DEFAULT_MAX_NODES, MAX_GENERATION_CELLS, seed_text
from verify.contests.arrows.model import NO_ARROW, STEPS, Puzzle
from verify.contests.arrows.solver import (
    Deduction,
    Geometry,
    SearchBudgetExceeded,
    SolveStats,
    deduces,
    geometry,
    solutions,
)
from verify.errors import InputError


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


@dataclass(frozen=True)
class Generated:
    """A generated puzzle, its solution, and what proving it unique took."""

    puzzle: Puzzle
    solution: Puzzle
    nodes: int          # search nodes of the reference solver counting its solutions to 2 (1: no search)
    branches: int       # branching points of that search (0: propagation alone)


@dataclass(frozen=True)
class Difficulty:
    """How many givens a generated puzzle keeps. ``start_givens`` (0..1) gives that share of
    the cells from the start; ``minimize=False`` skips step 4 (more givens, quicker); ``hard``
    removes givens further, keeping puzzles that need at most ``max_nodes`` search nodes (step 5)."""

    start_givens: float = 0.0
    minimize: bool = True
    hard: bool = False
    max_nodes: int = DEFAULT_MAX_NODES


def generate(rows: int, cols: int | None = None, seed: int = 0, notation: str = "english",
             difficulty: Difficulty = Difficulty(), kernel: bool = True) -> Puzzle:
    """A puzzle with exactly one solution (deterministic for the arguments); see :func:`generate_puzzle`."""
    return generate_puzzle(rows, cols, seed, notation, difficulty, kernel).puzzle


def generate_puzzle(rows: int, cols: int | None = None, seed: int = 0, notation: str = "english",
                    difficulty: Difficulty = Difficulty(), kernel: bool = True) -> Generated:
    """A puzzle with exactly one solution (deterministic for the arguments), with its difficulty:
    as many givens as ``difficulty`` says. ``kernel=False`` runs the pure-Python generator
    even where the compiled one loads: the same puzzle, more slowly.
    """
    start_givens, minimize, hard, max_nodes = (difficulty.start_givens, difficulty.minimize, difficulty.hard,
                                               difficulty.max_nodes)
    cols = rows if cols is None else cols
    if rows < 1 or cols < 1 or not 2 <= rows * cols <= MAX_GENERATION_CELLS:
        raise InputError(f"cannot generate a {rows}x{cols} board "
                         f"(2..{MAX_GENERATION_CELLS} cells)")
    if max_nodes < 1:
        raise InputError("max_nodes must be at least 1")
    rng = random.Random(seed_text(rows, cols, seed))
    start_count = int(start_givens * rows * cols)
    if kernel:
        from verify.contests.arrows import library as compiled
        lib = compiled.library()
        if lib is not None:
            arrows, numbered, kept, nodes, branches = compiled.generate(
                lib, rows, cols, rng.getstate()[1], start_count, minimize, hard, max_nodes)
            solution = Puzzle(rows, cols, tuple(arrows), tuple(numbered), notation)
            return Generated(solution.with_numbers(kept), solution, nodes, branches)
    solution = board_of_path(rows, cols, random_path(rows, cols, rng), notation)
    size = solution.size
    answer = solution.numbers
    givens = [0] * size
    for cell in (answer.index(1), solution.last_cell):
        givens[cell] = answer[cell]
    for cell in rng.sample(range(size), start_count):
        givens[cell] = answer[cell]
    rays = geometry(solution, kernel=False)
    base = [cell for cell in range(size) if givens[cell] and answer[cell] not in (1, size)]
    added = _give_until_deduced(solution, givens, rays, rng)
    if minimize or hard:
        _take_away_added(added, givens, answer)
        rng.shuffle(base)
        for cell in base:
            givens[cell] = 0
            if not deduces(solution.with_numbers(givens), rays):
                givens[cell] = answer[cell]
    removable = [cell for cell in range(size) if givens[cell] and answer[cell] not in (1, size)]
    rng.shuffle(removable)
    if hard:
        _take_away_within(solution, givens, removable, max_nodes)
    puzzle = solution.with_numbers(givens)
    stats = SolveStats()
    found = solutions(puzzle, 2, stats, kernel=False)
    if [board.numbers for board in found] != [answer]:      # cannot happen: every step kept it unique
        raise RuntimeError(f"generated a {rows}x{cols} puzzle (seed {seed}) that is not unique")
    return Generated(puzzle, solution, stats.nodes, stats.branches)


def _take_away_within(solution: Puzzle, givens: list[int], removable: list[int], max_nodes: int) -> None:
    """Step 5: take away (in place) each of the `removable` givens, in order, while the puzzle
    stays unique within `max_nodes` search nodes."""
    answer = solution.numbers
    for cell in removable:
        if givens[cell]:
            givens[cell] = 0
            if not _unique_within(solution.with_numbers(givens), answer, max_nodes):
                givens[cell] = answer[cell]


def _give_until_deduced(solution: Puzzle, givens: list[int], rays: Geometry,
                        rng: random.Random) -> list[tuple[int, Deduction]]:
    """Step 3: add givens (in place) until propagation alone completes the board. Returns the
    cells given, in order, each with the deduction as it stood (stalled) just before."""
    answer = solution.numbers
    deduction = Deduction(solution.with_numbers(givens), rays)
    added = []
    while (stalled := deduction.stalled()) is not None:
        open_cells = [cell for cell in stalled if not deduction.number(cell)]
        if not open_cells:       # (the branching point is on numbers alone) any cell still open
            open_cells = [cell for cell in range(solution.size) if not deduction.number(cell)]
        cell = rng.choice(open_cells)
        added.append((cell, deduction.copy()))
        givens[cell] = answer[cell]
        deduction.give(cell, answer[cell])
    return added


def _take_away_added(added: list[tuple[int, Deduction]], givens: list[int], answer: tuple[int, ...]) -> None:
    """Step 4 for the givens step 3 added, the last added first: one is taken away (in place)
    when propagation completes the board without it. The test for one starts from the
    deduction saved just before it was given (what the givens before it imply), gives the
    later ones still kept, and propagates from there instead of starting over. Every given
    kept is needed: without it, even the larger set it was tested with stalls."""
    kept_later: list[int] = []
    for index, (cell, before) in enumerate(reversed(added)):
        complete = False                # the last given: the deduction before it stalled
        if index:
            trial = before.copy()
            trial.give_all([(later, answer[later]) for later in kept_later])
            try:
                complete = trial.stalled() is None
            except ValueError:          # (cannot happen: every given agrees with the solution)
                pass
        if complete:
            givens[cell] = 0
        else:
            kept_later.append(cell)


def _unique_within(puzzle: Puzzle, answer: tuple[int, ...], max_nodes: int) -> bool:
    """Exactly one solution, proven within ``max_nodes`` search nodes."""
    try:
        found = solutions(puzzle, 2, max_nodes=max_nodes, kernel=False)
    except SearchBudgetExceeded:
        return False
    return len(found) == 1 and found[0].numbers == answer
