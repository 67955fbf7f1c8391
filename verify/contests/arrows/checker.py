"""Checks a filled-in board against its puzzle (pure). The first error found is named.

Order of the checks, so the first error is the most telling one:
the board's shape, then arrows unchanged, then givens unchanged, then every
number in 1..N, then every number exactly once, then each k+1 on k's ray
(k = 1, 2, ...).
"""
from __future__ import annotations

from collections.abc import Sequence

from verify.contests.arrows.model import NO_ARROW, Puzzle, direction_name


def first_error(puzzle: Puzzle, arrows: Sequence[int], numbers: Sequence[int]) -> str | None:
    """The first rule the filled board (``arrows``/``numbers`` in reading order) breaks, or None."""
    size = puzzle.size
    if len(arrows) != size or len(numbers) != size:
        return f"the board has {len(numbers)} cells, the puzzle {size}"
    changed = _changed_or_out_of_range(puzzle, arrows, numbers)
    if changed is not None:
        return changed
    where = puzzle.where
    cell_of = [-1] * (size + 1)
    for cell in range(size):
        number = numbers[cell]
        if cell_of[number] >= 0:
            return f"{number} appears twice, at {where(cell_of[number])} and {where(cell)}"
        cell_of[number] = cell
    for number in range(1, size):
        here, there = cell_of[number], cell_of[number + 1]
        if puzzle.arrows[here] == NO_ARROW:
            return (f"{number} at {where(here)} is on the cell without an arrow, "
                    f"which must hold {size}")
        if there not in puzzle.ray(here):
            return (f"{number + 1} at {where(there)} is not on the {puzzle.arrow_name(here)} ray "
                    f"of {number} at {where(here)}")
    return None


def _changed_or_out_of_range(puzzle: Puzzle, arrows: Sequence[int], numbers: Sequence[int]) -> str | None:
    """The first arrow or given number of the puzzle the board changed, else the first
    number out of 1..N, or None."""
    size, where = puzzle.size, puzzle.where
    for cell in range(size):
        if arrows[cell] != puzzle.arrows[cell]:
            was = direction_name(puzzle.arrows[cell], puzzle.notation) or "no arrow"
            now = direction_name(arrows[cell], puzzle.notation) or "no arrow"
            return f"the arrow at {where(cell)} was {was}, the board has {now}"
    for cell in range(size):
        given = puzzle.numbers[cell]
        if given and numbers[cell] != given:
            return f"the given {given} at {where(cell)} was changed to {numbers[cell]}"
    for cell in range(size):
        if not 1 <= numbers[cell] <= size:
            return f"{numbers[cell]} at {where(cell)} is out of range 1..{size}"
    return None


def check_solution(puzzle: Puzzle, solution: Puzzle) -> str | None:
    """The first error of ``solution`` (a parsed board) as an answer to ``puzzle``, or None."""
    if (solution.rows, solution.cols) != (puzzle.rows, puzzle.cols):
        return (f"the board is {solution.rows}x{solution.cols}, "
                f"the puzzle {puzzle.rows}x{puzzle.cols}")
    return first_error(puzzle, solution.arrows, solution.numbers)


def path_of(solution: Puzzle) -> list[int]:
    """The cells of 1, 2, ... N of a fully numbered board."""
    cell_of = {number: cell for cell, number in enumerate(solution.numbers)}
    return [cell_of[n] for n in range(1, solution.size + 1)]
