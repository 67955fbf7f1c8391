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

Number options: between placed numbers x (cell p) and y (cell q), x+j can
only be on a cell reachable from p in j steps and reaching q in y-x-j steps
over unnumbered cells (see _number_options). A cell with one possible number,
or a number with one possible cell, is placed; a link a -> b also needs some
number of a followed by one of b.

Propagation: a tail with one possible successor, or a head with one possible
predecessor (that cannot be the cell of 1 instead), is linked; a head with no
possible predecessor is the cell of 1; a tail with none (other than the last
cell) is a contradiction. When propagation stalls, the solver branches on the
tail, head or number with the fewest alternatives. Sets of cells and of
numbers are Python ints used as bitsets; the number options are found per
number (its cells) and turned into options per cell by one bit-matrix
transpose of a few big-int operations.

``Deduction`` is propagation alone, continued as numbers are given: the
generator's tool (a board it completes has exactly one solution).

``count_solutions(puzzle, limit)`` counts up to ``limit`` (2 proves a puzzle
unique); ``solve(puzzle)`` returns the solved board or None.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Union

from verify.contests.arrows.model import NO_ARROW, STEPS, Contradiction, Puzzle

if TYPE_CHECKING:
    from verify.contests.arrows.kernel import KernelGeometry

FEW_CELLS = 24  # up to this many cells, rays are joined cell by cell; beyond, slid all at once


class SearchBudgetExceeded(Exception):
    """A search ran past its node budget or deadline."""


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
        # Bitboard slides (Kogge-Stone fills) move a whole set of cells along their rays at once.
        rows, cols = puzzle.rows, puzzle.cols
        board = (1 << size) - 1
        self.arrow_cells = [0] * len(STEPS)
        for cell, direction in enumerate(puzzle.arrows):
            if direction != NO_ARROW:
                self.arrow_cells[direction] |= 1 << cell
        levels = max(rows, cols).bit_length()
        self.slides = []       # per direction: (shift, masks of cells enterable 1, 2, 4... steps on)
        for d_row, d_col in STEPS:
            shift = d_row * cols + d_col
            enterable = 0
            for cell in range(size):
                row, col = divmod(cell, cols)
                if 0 <= row - d_row < rows and 0 <= col - d_col < cols:
                    enterable |= 1 << cell
            masks = [enterable]
            for level in range(1, levels + 1):
                previous = masks[-1]
                masks.append(previous & _shift(previous, shift << (level - 1), board))
            self.slides.append((shift, masks))
        self.board = board

    # the interface shared with kernel.KernelGeometry: states built and propagated on these rays
    def start(self, puzzle: Puzzle) -> _State:
        return _initial_state(puzzle, self)

    def copy(self, state: _State) -> _State:
        return state.copy()

    def propagate(self, state: _State) -> list[_Move] | None:
        return _propagate(state, self)

    def apply(self, state: _State, move: _Move) -> None:
        _apply(state, move, self.size)

    def give(self, state: _State, givens: list[tuple[int, int]]) -> None:
        for cell, number in givens:
            _assign_segment(state, cell, number, self.size)

    def number(self, state: _State, cell: int) -> int:
        return state.num[cell]

    def numbers(self, state: _State) -> tuple[int, ...]:
        return tuple(state.num)

    def _fill(self, cells: int, direction: int) -> int:
        """Every cell on the rays from ``cells`` in ``direction`` (not the cells themselves)."""
        shift, masks = self.slides[direction]
        if shift > 0:
            fill = (cells << shift) & masks[0]
            for mask in masks[:-1]:
                fill |= mask & (fill << shift)
                shift <<= 1
        else:
            shift = -shift
            fill = (cells >> shift) & masks[0]
            for mask in masks[:-1]:
                fill |= mask & (fill >> shift)
                shift <<= 1
        return fill

    def forward(self, cells: int) -> int:
        """Every cell on the ray of some cell of ``cells``."""
        if cells.bit_count() <= FEW_CELLS:   # a few cells: their rays, one by one
            out = 0
            succ = self.succ
            while cells:
                low = cells & -cells
                out |= succ[low.bit_length() - 1]
                cells ^= low
            return out
        out = 0
        for direction, arrows in enumerate(self.arrow_cells):
            if cells & arrows:
                out |= self._fill(cells & arrows, direction)
        return out

    def backward(self, cells: int) -> int:
        """Every cell whose ray holds some cell of ``cells``."""
        if cells.bit_count() <= FEW_CELLS:
            out = 0
            pred = self.pred
            while cells:
                low = cells & -cells
                out |= pred[low.bit_length() - 1]
                cells ^= low
            return out
        out = 0
        for direction, arrows in enumerate(self.arrow_cells):
            out |= self._fill(cells, (direction + 4) % 8) & arrows
        return out


Geometry = Union[_Geometry, "KernelGeometry"]   # either propagation, one interface


def _shift(cells: int, shift: int, board: int) -> int:
    return (cells << shift) & board if shift >= 0 else cells >> -shift


class _State:
    """The chain so far (see the module text); sets of cells and of numbers are int bitsets."""

    __slots__ = ("nxt", "prv", "num", "cell_of", "used", "head_of", "tail_of", "length",
                 "open_heads", "open_tails", "links", "unnumbered")
    nxt: list[int]          # the cell linked after each cell, -1 if none
    prv: list[int]          # the cell linked before each cell, -1 if none
    num: list[int]          # each cell's number, 0 if not known
    cell_of: list[int]      # each number's cell, -1 if not placed
    used: int               # the numbers placed
    head_of: list[int]      # a segment's tail -> its head
    tail_of: list[int]      # a segment's head -> its tail
    length: list[int]       # a segment's head -> its length
    open_heads: int         # the heads that may still be linked to
    open_tails: int         # the tails that may still be linked from
    links: int              # how many links are made (size - 1: solved)
    unnumbered: int         # the cells with no number yet

    def copy(self) -> _State:
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
        other.unnumbered = self.unnumbered
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
    state.unnumbered = (1 << size) - 1
    numbers = list(puzzle.numbers)
    numbers[geo.last] = size   # the arrowless cell holds N*N (the spec's rule)
    for cell, number in enumerate(numbers):
        if number:
            _assign(state, cell, number, size)
    return state


def _assign(state: _State, cell: int, number: int, size: int) -> None:
    if number < 1 or number > size or (state.used >> number) & 1:
        raise Contradiction
    state.num[cell] = number
    state.cell_of[number] = cell
    state.used |= 1 << number
    state.unnumbered &= ~(1 << cell)
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
        raise Contradiction


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


def _assign_segment(state: _State, cell: int, number: int, size: int) -> None:
    """Give ``cell`` the number ``number``, and its whole (unnumbered) segment the numbers around it."""
    if state.num[cell]:
        if state.num[cell] != number:
            raise Contradiction
        return
    head, offset = cell, 0
    while state.prv[head] >= 0:
        head, offset = state.prv[head], offset + 1
    here, value = head, number - offset
    for _ in range(state.length[head]):
        _assign(state, here, value, size)
        here, value = state.nxt[here], value + 1


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _one_step(layer: int, move, open_out: int, open_in: int, links: list[int]) -> int:
    """The cells one number further from `layer` (forward or backward, as `move` and `links`
    say): along a ray from the cells whose link that way is still open, else the linked cell."""
    reach = move(layer & open_out) & open_in
    linked = layer & ~open_out
    while linked:
        low = linked & -linked
        other = links[low.bit_length() - 1]
        if other >= 0:
            reach |= 1 << other
        linked ^= low
    return reach


@cache
def _swap_masks(width: int) -> tuple[tuple[int, int], ...]:
    """The delta swaps that transpose a width x width bit matrix held in one int (row r at bit
    r * width): for each block size s, the bits at (r, c) with r & s == 0 and c & s != 0."""
    masks = []
    step = width // 2
    while step:
        row = sum(1 << column for column in range(width) if column & step)
        rows = sum(row << (r * width) for r in range(width) if not r & step)
        masks.append((step * (width - 1), rows))
        step //= 2
    return tuple(masks)


def _transpose(rows: list[int], columns: int) -> list[int]:
    """Bit matrix transposed: ``rows[r]`` holds bit c when (r, c) is set; returns, for each of
    ``columns`` columns, the int holding bit r when (r, c) is set. A few big-int operations
    (log2 of the width), instead of one Python step per bit."""
    width = max(8, 1 << (max(len(rows), columns) - 1).bit_length())
    span = width // 8
    matrix = int.from_bytes(b"".join(row.to_bytes(span, "little") for row in rows), "little")
    for shift, mask in _swap_masks(width):
        swapped = ((matrix >> shift) ^ matrix) & mask
        matrix ^= swapped ^ (swapped << shift)
    data = matrix.to_bytes(width * span, "little")
    return [int.from_bytes(data[c * span:(c + 1) * span], "little") for c in range(columns)]


def _number_options(state: _State, geo: _Geometry) -> tuple[list[int], list[tuple[int, int]],
                                                            tuple[int, int] | None]:
    """Which numbers each cell can still take, from reachability between placed numbers.

    Between placed numbers x (cell p) and y (cell q), number x+k can only be on a
    cell reachable from p in k steps and reaching q in y-x-k steps, through
    unnumbered cells, following known links. Returns (options per cell as a
    bitset of numbers, forced (cell, number) pairs, the free number with the
    fewest cells as (number, cells) for branching). Raises Contradiction.
    """
    size = geo.size
    nxt, cell_of = state.nxt, state.cell_of
    free_cells, open_heads, open_tails = state.unnumbered, state.open_heads, state.open_tails
    cells_of = [0] * (size + 1)     # each free number -> the cells that may hold it
    forced: list[tuple[int, int]] = []
    best: tuple[int, int] | None = None
    best_count = size + 1

    def record(number: int, cells: int) -> None:
        nonlocal best, best_count
        cells_of[number] = cells
        count = cells.bit_count()
        if count == 1:
            forced.append((cells.bit_length() - 1, number))
        elif count < best_count:
            best, best_count = (number, cells), count

    forward = geo.forward
    previous = 0
    for number in range(1, size + 1):
        if cell_of[number] < 0:
            continue
        gap = number - previous
        if gap > 1:
            # a layer is a function of the one before (the state does not change here): when
            # that one equals the layer two before it, so does this one the layer two before
            layers_back = _layers_back(state, geo, cell_of[number], gap)
            if previous:
                layer = 1 << cell_of[previous]
                recent = [(-1, 0), (-1, 0)]     # (layer, its moves) of the last two steps
                for step in range(1, gap):
                    before, moves = recent[step & 1]
                    if layer != before:
                        moves = _one_step(layer, forward, open_tails, open_heads, nxt)
                        recent[step & 1] = (layer, moves)
                    layer = moves & free_cells & layers_back[gap - step]
                    if not layer:
                        raise Contradiction
                    record(previous + step, layer)
            else:  # 1 not placed yet: the path may start anywhere
                for step in range(1, gap):
                    record(step, layers_back[gap - step])
        previous = number
    return _options_per_cell(state, cells_of, forced, size), forced, best


def _layers_back(state: _State, geo: _Geometry, cell: int, gap: int) -> list[int]:
    """The cells from which the number on `cell` is reached in 0, 1, ... gap-1 steps through
    unnumbered cells. Raises Contradiction when a layer is empty."""
    backward, open_heads, open_tails = geo.backward, state.open_heads, state.open_tails
    prv, free_cells = state.prv, state.unnumbered
    layers_back = [1 << cell]
    layer = layers_back[0]
    for i in range(1, gap):
        if i >= 3 and layers_back[i - 1] == layers_back[i - 3]:
            layer = layers_back[i - 2]
        else:
            layer = _one_step(layer, backward, open_heads, open_tails, prv) & free_cells
            if not layer:
                raise Contradiction
        layers_back.append(layer)
    return layers_back


def _options_per_cell(state: _State, cells_of: list[int], forced: list[tuple[int, int]], size: int) -> list[int]:
    """Per cell, the numbers it may hold (the number x cell matrix transposed, all at once);
    a free cell left with one is added to `forced`. Raises Contradiction when one has none."""
    options = _transpose(cells_of, size)
    for cell, number in enumerate(state.num):
        if number:
            options[cell] = 1 << number
    for cell in _bits(state.unnumbered):
        bits = options[cell]
        if not bits:
            raise Contradiction
        if not bits & (bits - 1):
            forced.append((cell, bits.bit_length() - 1))
    return options


def _possible(state: _State, geo: _Geometry, a: int, b: int, max_free: int, options: list[int]) -> bool:
    """May the tail a be followed by the head b (b on a's ray, no loop)? See the module text."""
    if not (options[a] << 1) & options[b]:
        return False
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


# A branching point: a list of alternative moves, each ("link", a, b) or ("number", cell, n).
_Move = tuple[str, int, int]


def _propagate(state: _State, geo: _Geometry) -> list[_Move] | None:
    """Apply forced numbers and links until none is left.

    Returns None when solved, else the moves of the best branching point (fewest
    alternatives). Raises Contradiction. The cheap link sweeps run to a fixed
    point with the number options last computed (stale options only allow more,
    so they stay sound); the costly number options are recomputed only then.
    """
    size = geo.size
    options, forced, number_choice = _number_options(state, geo)
    fresh = True
    while True:
        if state.links == size - 1:
            return None
        if forced:
            for cell, number in forced:
                _assign_segment(state, cell, number, size)
            forced = []
            fresh = False
            continue
        best = _sweep_links(state, geo, options)
        if best is None:          # some link was forced
            fresh = False
            continue
        if fresh:
            if number_choice is not None and number_choice[1].bit_count() < len(best):
                number, cells = number_choice
                return [("number", cell, number) for cell in _bits(cells)]
            return best
        options, forced, number_choice = _number_options(state, geo)
        fresh = True


def _sweep_links(state: _State, geo: _Geometry, options: list[int]) -> list[_Move] | None:
    """One pass over open tails and heads, making every forced link.

    Returns None when something changed, else the tail's or head's alternatives
    that are fewest (a branching point). Raises Contradiction.
    """
    max_free = _longest_free_run(state.used, geo.size)
    changed, best = _sweep_tails(state, geo, options, max_free)
    changed, best = _sweep_heads(state, geo, options, max_free, changed, best)
    if changed:
        return None
    assert best is not None
    return best


def _sweep_tails(state: _State, geo: _Geometry, options: list[int],
                 max_free: int) -> tuple[bool, list[_Move] | None]:
    """The tails' half of the sweep: whether a forced link was made, and the fewest
    alternatives of a tail while none was."""
    size, succ = geo.size, geo.succ
    best: list[_Move] | None = None
    changed = False
    for a in _bits(state.open_tails):
        if not (state.open_tails >> a) & 1:
            continue
        mask = succ[a] & state.open_heads & ~(1 << state.head_of[a])
        shifted = options[a] << 1  # the numbers a successor may hold
        # enough of them to tell forced from not, and to tell a better branching point
        enough = 2 if changed else max(2, len(best)) if best is not None else size
        nexts = []
        while mask:
            low = mask & -mask
            mask ^= low
            b = low.bit_length() - 1
            if shifted & options[b] and _possible(state, geo, a, b, max_free, options):
                nexts.append(b)
                if len(nexts) == enough:
                    break
        if not nexts:
            raise Contradiction
        if len(nexts) == 1:
            _link(state, a, nexts[0], size)
            changed = True
        elif not changed and (best is None or len(nexts) < len(best)):
            best = [("link", a, b) for b in nexts]
    return changed, best


def _sweep_heads(state: _State, geo: _Geometry, options: list[int], max_free: int, changed: bool,
                 best: list[_Move] | None) -> tuple[bool, list[_Move] | None]:
    """The heads' half of the sweep, after the tails' (`changed`, `best`): the same, with
    the head's alternative of starting the path while 1 is not placed."""
    size, pred = geo.size, geo.pred
    for b in _bits(state.open_heads):
        if not (state.open_heads >> b) & 1:
            continue
        mask = pred[b] & state.open_tails & ~(1 << state.tail_of[b])
        shifted = options[b] >> 1  # the numbers a predecessor may hold
        enough = 2 if changed else max(2, len(best)) if best is not None else size
        befores = []
        while mask:
            low = mask & -mask
            mask ^= low
            a = low.bit_length() - 1
            if shifted & options[a] and _possible(state, geo, a, b, max_free, options):
                befores.append(a)
                if len(befores) == enough:
                    break
        # while 1 is not placed, b may start the path instead of following any of them
        may_start = not state.num[b] and not (state.used >> 1) & 1 and options[b] & 2
        if not befores:
            # nothing can come before b: its segment starts the path
            if not may_start:
                raise Contradiction
            _assign_segment(state, b, 1, size)
            changed = True
        elif len(befores) == 1 and not may_start:
            _link(state, befores[0], b, size)
            changed = True
        elif not changed and (best is None or len(befores) + bool(may_start) < len(best)):
            best = [("link", a, b) for a in befores]
            if may_start:
                best.append(("number", b, 1))
    return changed, best


def _apply(state: _State, move: _Move, size: int) -> None:
    kind, first, second = move
    if kind == "link":
        _link(state, first, second, size)
    else:
        _assign_segment(state, first, second, size)


def _search(state: Any, geo: Geometry, limit: int, found: list[tuple[int, ...]],
            stats: SolveStats, max_nodes: int | None) -> None:
    stats.nodes += 1
    if max_nodes is not None and stats.nodes > max_nodes:
        raise SearchBudgetExceeded(f"more than {max_nodes} search nodes")
    try:
        moves = geo.propagate(state)
    except Contradiction:
        return
    if moves is None:
        found.append(geo.numbers(state))
        return
    stats.branches += 1
    for move in moves:
        child = geo.copy(state)
        try:
            geo.apply(child, move)
        except Contradiction:
            continue
        _search(child, geo, limit, found, stats, max_nodes)
        if len(found) >= limit:
            return


def solutions(puzzle: Puzzle, limit: int = 2, stats: SolveStats | None = None,
              max_nodes: int | None = None, kernel: bool = True) -> list[Puzzle]:
    """Up to ``limit`` distinct solutions of ``puzzle`` (fewer means there are no more).

    With ``max_nodes``, raises SearchBudgetExceeded past that many search nodes.
    ``kernel=False``: the pure-Python propagation even where the compiled one loads.
    """
    geo = geometry(puzzle, kernel)
    stats = stats if stats is not None else SolveStats()
    found: list[tuple[int, ...]] = []
    try:
        state = geo.start(puzzle)
    except Contradiction:
        return []
    depth_needed = puzzle.size + 100
    old_limit = sys.getrecursionlimit()
    if old_limit < depth_needed:
        sys.setrecursionlimit(depth_needed)
    _search(state, geo, limit, found, stats, max_nodes)
    stats.solutions = len(found)
    return [puzzle.with_numbers(numbers) for numbers in found]


class Deduction:
    """Propagation alone, no search, continued as numbers are given: what a generator needs.

    Every number it places and every link it makes is forced by the givens, so when it
    completes the board (:meth:`stalled` returns None) the puzzle has exactly one solution.
    ``shared`` may be shared by deductions on the same arrows (see :func:`geometry`).
    """

    def __init__(self, puzzle: Puzzle, shared: Geometry | None = None, kernel: bool = True):
        self.geo = shared if shared is not None else geometry(puzzle, kernel)
        self.contradiction = False
        self.state: Any = None
        try:
            self.state = self.geo.start(puzzle)
        except Contradiction:
            self.contradiction = True

    def stalled(self) -> list[int] | None:
        """Propagate; None when the board is complete, else the cells of the branching point
        the search would take next (fewest alternatives). ValueError when the givens contradict."""
        if self.contradiction:
            raise ValueError("the givens contradict each other")
        try:
            moves = self.geo.propagate(self.state)
        except Contradiction:
            self.contradiction = True
            raise ValueError("the givens contradict each other") from None
        if moves is None:
            return None
        cells: set[int] = set()
        for kind, first, second in moves:
            cells.update((first, second) if kind == "link" else (first,))
        return sorted(cells)

    def copy(self) -> Deduction:
        """An independent deduction from the same point (the geometry shared)."""
        other = Deduction.__new__(Deduction)
        other.geo, other.contradiction = self.geo, self.contradiction
        other.state = self.geo.copy(self.state) if not self.contradiction else self.state
        return other

    def give(self, cell: int, number: int) -> None:
        """One more given (it must agree with what was deduced: the generator's own solution does)."""
        self.give_all([(cell, number)])

    def give_all(self, givens: list[tuple[int, int]]) -> None:
        """More givens, (cell, number) each, in turn: as many :meth:`give` calls, in one."""
        if self.contradiction or not givens:
            return
        try:
            self.geo.give(self.state, givens)
        except Contradiction:
            self.contradiction = True

    def number(self, cell: int) -> int:
        """The number placed on ``cell`` (given or deduced), 0 if none yet."""
        return self.geo.number(self.state, cell)


def geometry(puzzle: Puzzle, kernel: bool = True) -> Geometry:
    """The rays of ``puzzle``'s arrows, computed once for several :class:`Deduction` runs: in the
    compiled kernel's layout when it loads (and ``kernel``), else for the pure-Python propagation.
    Both give the same deductions and branching points."""
    if kernel:
        from verify.contests.arrows import kernel as compiled
        lib = compiled.library()
        if lib is not None:
            return compiled.KernelGeometry(puzzle, lib)
    return _Geometry(puzzle)


def deduces(puzzle: Puzzle, shared: Geometry | None = None) -> bool:
    """Whether propagation alone completes ``puzzle`` (then its solution is unique)."""
    try:
        return Deduction(puzzle, shared).stalled() is None
    except ValueError:
        return False


def count_solutions(puzzle: Puzzle, limit: int = 2) -> int:
    """How many solutions the puzzle has, counting no further than ``limit``."""
    return len(solutions(puzzle, limit))


def solve(puzzle: Puzzle) -> Puzzle | None:
    """One solution (the first found), or None when there is none."""
    found = solutions(puzzle, 1)
    return found[0] if found else None


__all__ = ["solve", "solutions", "count_solutions", "deduces", "Deduction", "geometry", "SolveStats",
           "SearchBudgetExceeded"]
