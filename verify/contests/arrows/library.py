"""The compiled kernel (``generate.c`` with ``kernel.c``) loaded with ctypes, and the whole
generator in one call of it (:func:`generate`); :mod:`.kernel` puts the propagation behind the
solver's interface. (The quick ``verify gen arrows`` starts the generator as a program of its
own instead, ``generate_main.c``: importing ctypes costs more than starting it.)

Loading. Compiled once into verify's cache with the system C compiler (:mod:`.kernel_build`,
well under a second) and loaded with ctypes; without a C compiler the pure-Python
propagation and generator run instead, with the same results, more slowly.
"""
from __future__ import annotations

import ctypes
import threading
from functools import cache
from typing import Any

from verify.contests.arrows.generation import NO_BUDGET_REACHED

_WORDS = ctypes.POINTER(ctypes.c_uint64)
_INT32S = ctypes.POINTER(ctypes.c_int32)
_INT64S = ctypes.POINTER(ctypes.c_int64)
_UINT32S = ctypes.POINTER(ctypes.c_uint32)
_SIGNATURES: dict[str, tuple[tuple[Any, ...], Any]] = {
    "arrows_geo_words": ((ctypes.c_int64, ctypes.c_int64), ctypes.c_int64),
    "arrows_state_words": ((ctypes.c_int64,), ctypes.c_int64),
    "arrows_geo_init": ((_WORDS, ctypes.c_int64, ctypes.c_int64, _INT32S), None),
    "arrows_state_init": ((_WORDS, _WORDS, _INT32S), ctypes.c_int64),
    "arrows_apply": ((_WORDS, _WORDS, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64), ctypes.c_int64),
    "arrows_propagate": ((_WORDS, _WORDS, _INT32S), ctypes.c_int64),
    "arrows_give": ((_WORDS, _WORDS, _INT32S, _INT32S, ctypes.c_int64), ctypes.c_int64),
    "arrows_rays": ((_WORDS, _WORDS, ctypes.c_int64, ctypes.c_int64, _WORDS), ctypes.c_int64),
    "arrows_solutions": ((_WORDS, _INT32S, ctypes.c_int64, ctypes.c_int64, _INT32S, _INT64S), ctypes.c_int64),
    "arrows_seed": ((_UINT32S, ctypes.c_int64, _UINT32S), None),
    "arrows_generate": ((ctypes.c_int64, ctypes.c_int64, _UINT32S, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                         ctypes.c_int64, _INT32S, _INT32S, _INT32S, _INT64S), ctypes.c_int64),
}
_LOADING = threading.Lock()


@cache
def library() -> ctypes.CDLL | None:
    """The compiled kernel, or None when there is none (the pure-Python propagation then)."""
    with _LOADING:
        from verify.contests.arrows.kernel_build import library_path
        path = library_path()
        if path is None:
            return None
        try:
            lib = ctypes.CDLL(path)
            for name, (arguments, result) in _SIGNATURES.items():
                function = getattr(lib, name)
                function.argtypes, function.restype = arguments, result
        except (OSError, AttributeError):
            return None
        return lib


def generate(lib: ctypes.CDLL, rows: int, cols: int, random_state: tuple[int, ...], start_count: int,
             minimize: bool, hard: bool, max_nodes: int) -> tuple[list[int], list[int], list[int], int, int]:
    """The generator of :mod:`.generator` run whole in C (``generate.c``) from ``random_state``
    (``random.Random.getstate()[1]``: the same random numbers): the solution's arrows and
    numbers, the puzzle's givens, and the search nodes and branching points that proved it unique."""
    size = rows * cols
    arrows, answer, givens = ((ctypes.c_int32 * size)() for _ in range(3))
    figures = (ctypes.c_int64 * 2)()
    code = lib.arrows_generate(rows, cols, (ctypes.c_uint32 * len(random_state))(*random_state), start_count,
                               minimize, hard, min(max_nodes, NO_BUDGET_REACHED), arrows, answer, givens, figures)
    if code == -2:
        raise MemoryError("the arrows generator could not allocate its work space")
    if code:
        raise RuntimeError(f"generated a {rows}x{cols} puzzle that is not unique")
    return list(arrows), list(answer), list(givens), figures[0], figures[1]
