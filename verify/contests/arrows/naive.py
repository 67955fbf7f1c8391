"""The baseline: the naive depth-first search the spec describes.

From the cell of 1, try each candidate for the next number in ray order
(nearest first), going deeper until every number is placed; back up on a dead
end. No look-ahead at all, so it is exponential on puzzles with few givens;
it is kept as the yardstick the reference solver is benchmarked against.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from verify.contests.arrows.model import Puzzle
from verify.contests.arrows.solver import SearchBudgetExceeded


def naive_solutions(puzzle: Puzzle, limit: int = 1, *, deadline: float | None = None,
                    max_nodes: int | None = None, start: Sequence[int] | None = None) -> list[Puzzle]:
    """Up to ``limit`` solutions, found by the spec's depth-first search.

    ``deadline`` (a ``time.perf_counter()`` value) and ``max_nodes`` bound the
    work; past either, SearchBudgetExceeded is raised. The cell of 1 must be
    given. ``start`` fixes the first cells of the path (the cells of 1, 2, ...),
    to explore one branch of the search.
    """
    size = puzzle.size
    first = puzzle.cell_of(1)
    if first is None:
        raise ValueError("the naive search starts from the cell of 1, which is not given")
    prefix = list(start) if start else [first]
    rays = [puzzle.ray(cell) for cell in range(size)]
    given_cell, is_given = _givens(puzzle)
    on_path = [False] * size
    path = prefix
    for cell in path:
        on_path[cell] = True
    found: list[Puzzle] = []
    nodes = 0

    def extend() -> bool:  # True: stop (enough solutions)
        nonlocal nodes
        nodes += 1
        if max_nodes is not None and nodes > max_nodes:
            raise SearchBudgetExceeded(f"more than {max_nodes} nodes")
        if deadline is not None and nodes & 1023 == 0 and time.perf_counter() > deadline:
            raise SearchBudgetExceeded("deadline passed")
        number = len(path) + 1
        if number > size:
            numbers = [0] * size
            for index, cell in enumerate(path):
                numbers[cell] = index + 1
            found.append(puzzle.with_numbers(numbers))
            return len(found) >= limit
        here = path[-1]
        target = given_cell[number]
        if target >= 0:
            candidates = [target] if target in rays[here] else []
        else:
            candidates = [c for c in rays[here] if not on_path[c] and not is_given[c]]
        for cell in candidates:
            path.append(cell)
            on_path[cell] = True
            stop = extend()
            on_path[cell] = False
            path.pop()
            if stop:
                return True
        return False

    if sys.getrecursionlimit() < size + 100:
        sys.setrecursionlimit(size + 100)
    extend()
    return found


def _givens(puzzle: Puzzle) -> tuple[list[int], list[bool]]:
    """The cell given each number (-1: none; N's is the cell without an arrow), and whether
    each cell holds a given number."""
    size = puzzle.size
    given_cell = [-1] * (size + 2)
    for cell, number in enumerate(puzzle.numbers):
        if number:
            given_cell[number] = cell
    given_cell[size] = puzzle.last_cell
    is_given = [bool(n) for n in puzzle.numbers]
    is_given[puzzle.last_cell] = True
    return given_cell, is_given
