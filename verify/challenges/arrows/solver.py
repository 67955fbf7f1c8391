"""The reference solver: constraint propagation on the chain, search only where needed.

The solution is a path through every cell, each step going from a cell to
some cell on its ray. The solver builds that path out of *segments* (chains
of cells already known to follow one another; at first every cell is a
segment of one). A segment is *numbered* when one of its cells carries a
number (given, or deduced): then all its cells do.

A link a -> b (a the tail of its segment, b the head of another, b on a's ray)
is possible only when

* it closes no loop (b is not the head of a's own segment);
* the numbers agree: both numbered and num(b) = num(a) + 1; or one side
  numbered and the numbers the other segment would take are free and in
  range, and if the number just past them is already placed, the segment
  can reach it (its tail's ray holds that cell, or that cell's ray holds its
  head); or neither numbered and the joined segment fits into the longest
  run of still free numbers.

Propagation: a tail with one possible successor, or a head with one possible
predecessor, is linked; a head with no possible predecessor is the cell of 1;
a tail with none (other than the last cell) is a contradiction. When
propagation stalls, the solver branches on the tail or head with the fewest
options. Sets of cells and of numbers are Python ints used as bitsets.

``count_solutions(puzzle, limit)`` counts up to ``limit`` (2 proves a puzzle
unique); ``solve(puzzle)`` returns the solved board or None.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

from verify.challenges.arrows.model import NO_ARROW, Puzzle


class _Contradiction(Exception):
    pass


@dataclass
class SolveStats:
    nodes: int = 0          # search nodes (1 when propagation alone solves it)
    branches: int = 0       # branching points
    solutions: int = 0


class _Geometry:
    """What never changes while solving: rays as bitsets, both ways."""

    def __init__(self, puzzle: Puzzle):
        size = puzzle.size
        self.size = size
        self.last = puzzle.last_cell
        self.succ = [0] * size   # cells on c's ray
        self.pred = [0] * size   # cells whose ray holds c
        for cell in range(size):
            for other in puzzle.ray(cell):
                self.succ[cell] |= 1 << other
                self.pred[other] |= 1 << cell


class _State:
    __slots__ = ("nxt", "prv", "num", "cell_of", "used", "head_of", "tail_of", "length",
                 "open_heads", "open_tails", "links")

    def copy(self) -> "_State":
        other = _State.__new__(_State)
        other.nxt = self.nxt[:]
        other.prv = self.prv[:]
        other.num = self.num[:]
        other.cell_of = self.cell_of[:]
        other.used = self.used
        other.head_of = self.head_of[:]
        other.tail_of = self.tail_of[:]
        other.length = self.length[:]
        other.open_heads = self.open_heads
        other.open_tails = self.open_tails
        other.links = self.links
        return other


def _initial_state(puzzle: Puzzle, geo: _Geometry) -> _State:
    size = puzzle.size
    state = _State()
    state.nxt = [-1] * size
    state.prv = [-1] * size
    state.num = [0] * size
    state.cell_of = [-1] * (size + 2)
    state.used = 0
    state.head_of = list(range(size))
    state.tail_of = list(range(size))
    state.length = [1] * size
    state.open_heads = (1 << size) - 1
    state.open_tails = ((1 << size) - 1) & ~(1 << geo.last)
    state.links = 0
    numbers = list(puzzle.numbers)
    numbers[geo.last] = size   # the arrowless cell holds N*N (the spec's rule)
    for cell, number in enumerate(numbers):
        if number:
            _assign(state, cell, number, size)
    return state


def _assign(state: _State, cell: int, number: int, size: int) -> None:
    if number < 1 or number > size or (state.used >> number) & 1:
        raise _Contradiction
    state.num[cell] = number
    state.cell_of[number] = cell
    state.used |= 1 << number
    if number == 1:
        state.open_heads &= ~(1 << cell)


def _link(state: _State, a: int, b: int, size: int) -> None:
    """Join a's segment (a its tail) to b's (b its head), numbering the joined segment."""
    head_a, tail_b = state.head_of[a], state.tail_of[b]
    len_a, len_b = state.length[head_a], state.length[b]
    state.nxt[a] = b
    state.prv[b] = a
    state.open_tails &= ~(1 << a)
    state.open_heads &= ~(1 << b)
    state.tail_of[head_a] = tail_b
    state.head_of[tail_b] = head_a
    state.length[head_a] = len_a + len_b
    state.links += 1
    num = state.num
    if num[a] and not num[b]:
        number, cell = num[a] + 1, b
        for _ in range(len_b):
            _assign(state, cell, number, size)
            number, cell = number + 1, state.nxt[cell]
    elif num[b] and not num[a]:
        number, cell = num[b] - 1, a
        for _ in range(len_a):
            _assign(state, cell, number, size)
            number, cell = number - 1, state.prv[cell]
    elif num[a] and num[b] and num[b] != num[a] + 1:
        raise _Contradiction


def _longest_free_run(used: int, size: int) -> int:
    """The longest run of numbers in 1..size not yet placed."""
    free = ~used & (((1 << (size + 1)) - 1) ^ 1)
    best = 0
    while free:
        low = free & -free
        start = low.bit_length() - 1
        run_end = (free + low) & ~free  # first placed number above the run
        stop = run_end.bit_length() - 1
        best = max(best, stop - start)
        free &= ~(run_end - 1)
    return best


def _possible(state: _State, geo: _Geometry, a: int, b: int, max_free: int) -> bool:
    """May the tail a be followed by the head b (b on a's ray, no loop)? See the module text."""
    num, used = state.num, state.used
    xa, yb = num[a], num[b]
    if xa:
        if yb:
            return yb == xa + 1
        span = state.length[b]
        top = xa + span
        if top >= geo.size or (used >> (xa + 1)) & ((1 << span) - 1):
            return False
        if (used >> (top + 1)) & 1:
            return bool((geo.succ[state.tail_of[b]] >> state.cell_of[top + 1]) & 1)
        return True
    head_a = state.head_of[a]
    if yb:
        span = state.length[head_a]
        low = yb - span
        if low < 1 or (used >> low) & ((1 << span) - 1):
            return False
        if low > 1 and (used >> (low - 1)) & 1:
            return bool((geo.succ[state.cell_of[low - 1]] >> head_a) & 1)
        return True
    return state.length[head_a] + state.length[b] <= max_free


def _successors(state: _State, geo: _Geometry, a: int, max_free: int) -> list[int]:
    options = []
    mask = geo.succ[a] & state.open_heads & ~(1 << state.head_of[a])
    while mask:
        low = mask & -mask
        b = low.bit_length() - 1
        mask ^= low
        if _possible(state, geo, a, b, max_free):
            options.append(b)
    return options


def _predecessors(state: _State, geo: _Geometry, b: int, max_free: int) -> list[int]:
    options = []
    mask = geo.pred[b] & state.open_tails & ~(1 << state.tail_of[b])
    while mask:
        low = mask & -mask
        a = low.bit_length() - 1
        mask ^= low
        if _possible(state, geo, a, b, max_free):
            options.append(a)
    return options


def _propagate(state: _State, geo: _Geometry) -> tuple[bool, int, list[int]] | None:
    """Apply forced links until none is left.

    Returns None when solved, else the best branching point: (is_tail, cell, options),
    where is_tail says whether the options are successors of a tail or predecessors of a head.
    Raises _Contradiction.
    """
    size = geo.size
    while True:
        if state.links == size - 1:
            return None
        changed = False
        best: tuple[bool, int, list[int]] | None = None
        max_free = _longest_free_run(state.used, size)
        mask = state.open_tails
        while mask:
            low = mask & -mask
            a = low.bit_length() - 1
            mask ^= low
            if not (state.open_tails >> a) & 1:
                continue
            options = _successors(state, geo, a, max_free)
            if not options:
                raise _Contradiction
            if len(options) == 1:
                _link(state, a, options[0], size)
                changed = True
            elif not changed and (best is None or len(options) < len(best[2])):
                best = (True, a, options)
        mask = state.open_heads
        while mask:
            low = mask & -mask
            b = low.bit_length() - 1
            mask ^= low
            if not (state.open_heads >> b) & 1:
                continue
            options = _predecessors(state, geo, b, max_free)
            if not options:
                # nothing can come before b: its segment starts the path
                if state.num[b] or (state.used >> 1) & 1:
                    raise _Contradiction
                cell = b
                for number in range(1, state.length[b] + 1):
                    _assign(state, cell, number, size)
                    cell = state.nxt[cell]
                changed = True
            elif len(options) == 1:
                _link(state, options[0], b, size)
                changed = True
            elif not changed and (best is None or len(options) < len(best[2])):
                best = (False, b, options)
        if not changed:
            assert best is not None
            return best


def _search(state: _State, geo: _Geometry, limit: int, found: list[tuple[int, ...]],
            stats: SolveStats) -> None:
    stats.nodes += 1
    try:
        choice = _propagate(state, geo)
    except _Contradiction:
        return
    if choice is None:
        found.append(tuple(state.num))
        return
    stats.branches += 1
    is_tail, cell, options = choice
    for option in options:
        child = state.copy()
        try:
            if is_tail:
                _link(child, cell, option, geo.size)
            else:
                _link(child, option, cell, geo.size)
        except _Contradiction:
            continue
        _search(child, geo, limit, found, stats)
        if len(found) >= limit:
            return


def solutions(puzzle: Puzzle, limit: int = 2, stats: SolveStats | None = None) -> list[Puzzle]:
    """Up to ``limit`` distinct solutions of ``puzzle`` (fewer means there are no more)."""
    geo = _Geometry(puzzle)
    stats = stats if stats is not None else SolveStats()
    found: list[tuple[int, ...]] = []
    try:
        state = _initial_state(puzzle, geo)
    except _Contradiction:
        return []
    depth_needed = puzzle.size + 100
    old_limit = sys.getrecursionlimit()
    if old_limit < depth_needed:
        sys.setrecursionlimit(depth_needed)
    _search(state, geo, limit, found, stats)
    stats.solutions = len(found)
    return [puzzle.with_numbers(numbers) for numbers in found]


def count_solutions(puzzle: Puzzle, limit: int = 2) -> int:
    """How many solutions the puzzle has, counting no further than ``limit``."""
    return len(solutions(puzzle, limit))


def solve(puzzle: Puzzle) -> Puzzle | None:
    """One solution (the first found), or None when there is none."""
    found = solutions(puzzle, 1)
    return found[0] if found else None


__all__ = ["solve", "solutions", "count_solutions", "SolveStats", "NO_ARROW"]
