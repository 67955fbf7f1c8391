"""The solver's propagation in C (``kernel.c``), behind the same small interface as the
pure-Python geometry of :mod:`.solver`: ``start``, ``propagate``, ``apply``, ``copy``,
``number``, ``numbers`` (the whole generator in C is :func:`.library.generate`).

The C code makes the same deductions in the same order as the Python propagation, so both
find the same branching points, and the generators the same puzzles for a seed (a test
generates with both and compares). A state is a buffer of 64-bit words owned here: copying
one (a search branch, a deduction saved by the generator) is copying its bytes.

The library is loaded by :mod:`.library` (compiled once into verify's cache; without a C
compiler the pure-Python propagation runs instead, with the same results, more slowly).
"""
from __future__ import annotations

import ctypes
from typing import Any

from verify.contests.arrows.library import library
from verify.contests.arrows.model import Contradiction, Puzzle

__all__ = ["KernelGeometry", "MOVE_KINDS", "library"]

MOVE_KINDS = ("link", "number")     # kernel.c's MOVE_LINK, MOVE_NUMBER


class KernelGeometry:
    """The rays of a puzzle's arrows in the kernel's layout, and the states built on them."""

    def __init__(self, puzzle: Puzzle, lib: ctypes.CDLL):
        self.lib = lib
        self.size = size = puzzle.size
        self.geo = (ctypes.c_uint64 * lib.arrows_geo_words(puzzle.rows, puzzle.cols))()
        lib.arrows_geo_init(self.geo, puzzle.rows, puzzle.cols, (ctypes.c_int32 * size)(*puzzle.arrows))
        self.state_type = ctypes.c_uint64 * lib.arrows_state_words(size)
        self.words = words = (size + 2 + 63) // 64
        self.num_offset = 2 * (1 + 4 * words) + 2 * size    # kernel.c's bind(): nxt, prv, then num
        self.moves = (ctypes.c_int32 * (3 * (size + 2)))()

    def start(self, puzzle: Puzzle) -> Any:
        state = self.state_type()
        if self.lib.arrows_state_init(self.geo, state, (ctypes.c_int32 * self.size)(*puzzle.numbers)) < 0:
            raise Contradiction
        return state

    def copy(self, state: Any) -> Any:
        return self.state_type.from_buffer_copy(state)

    def propagate(self, state: Any) -> list[tuple[str, int, int]] | None:
        count = self.lib.arrows_propagate(self.geo, state, self.moves)
        if count < 0:
            if count < -1:
                raise MemoryError("the arrows kernel could not allocate its work space")
            raise Contradiction
        if count == 0:
            return None
        flat = self.moves[:3 * count]
        return [(MOVE_KINDS[flat[i]], flat[i + 1], flat[i + 2]) for i in range(0, 3 * count, 3)]

    def apply(self, state: Any, move: tuple[str, int, int]) -> None:
        kind, first, second = move
        if self.lib.arrows_apply(self.geo, state, MOVE_KINDS.index(kind), first, second) < 0:
            raise Contradiction

    def give(self, state: Any, givens: list[tuple[int, int]]) -> None:
        """Each (cell, number) given in turn, in one call (Contradiction at the first that contradicts)."""
        count = len(givens)
        cells, numbers = zip(*givens, strict=True) if givens else ((), ())
        if self.lib.arrows_give(self.geo, state, (ctypes.c_int32 * count)(*cells),
                                (ctypes.c_int32 * count)(*numbers), count) < 0:
            raise Contradiction

    def rays(self, cells: int, forward: bool, join: bool) -> int:
        """The cells on the rays of ``cells`` (forward) or whose rays hold one of them, as the
        kernel finds them joined from its ray tables (``join``) or slid: propagation picks one
        by the size of the set; the tests check both against the Python geometry."""
        words = ctypes.c_uint64 * self.words
        out = words()
        if self.lib.arrows_rays(self.geo, words.from_buffer_copy(cells.to_bytes(8 * self.words, "little")),
                                forward, join, out) < 0:
            raise MemoryError("the arrows kernel could not allocate its work space")
        return int.from_bytes(bytes(out), "little")

    def number(self, state: Any, cell: int) -> int:
        return memoryview(state).cast("B").cast("i")[self.num_offset + cell]

    def numbers(self, state: Any) -> tuple[int, ...]:
        view = memoryview(state).cast("B").cast("i")
        return tuple(view[self.num_offset:self.num_offset + self.size])
