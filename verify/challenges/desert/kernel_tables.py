"""Notations compiled into the byte tables the replay kernel reads.

The kernel knows one token shape: a direction byte, then either a sign byte and digits
(``D+0``: the kernel itself reads ONE digit and leaves longer numbers to the exact parser),
or a one-byte modifier with a fixed action (``RX``), or nothing (the action of a bare
letter); separator bytes may stand between tokens. Every table-driven notation of the
core whose modifiers are at most one byte has this shape: the standard notation and
``lrud-xy`` do. A notation of another shape (a custom regex pattern, a modifier of
several bytes) is not expressible: :func:`compile_notation` returns None and the judge
reads it on the exact path only. The prefix of an attempt's moves is read by the exact
path, before the kernel starts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.challenges.desert.engine import DIRECTIONS, DROP, FILL, PICK
from verify.challenges.desert.notation import MAP_ROW_CHARACTERS, Notation

# action kinds as the kernel codes them (0 = none)
KIND_CODES = {PICK: 1, DROP: 2, FILL: 3}

# keep in step with kernel_jit (not imported here: it imports numba)
T_DIRECTION, T_SIGN, T_MODIFIER, T_MOD_AMOUNT, T_SKIP = range(5)
TABLE_ROWS = 5
P_DEFAULT_KIND, P_DEFAULT_AMOUNT, P_ROUTE_SQUARES, P_WIDTH, P_HEIGHT, P_START, P_END = range(7)
PARAM_COUNT = 7
DIGITS = frozenset(b"0123456789")


@dataclass(frozen=True)
class CompiledNotation:
    """The byte tables of one notation (``params`` without the map's fields)."""

    name: str
    tables: np.ndarray      # int64[TABLE_ROWS, 256]
    params: np.ndarray      # int64[PARAM_COUNT]


def compile_notation(notation: Notation) -> CompiledNotation | None:
    """The tables for ``notation``, or None when the kernel cannot read it (exact path only)."""
    if not notation.table_driven:
        return None
    tables = np.zeros((TABLE_ROWS, 256), dtype=np.int64)
    params = np.zeros(PARAM_COUNT, dtype=np.int64)
    meaning: dict[int, str] = {}

    def claim(byte: int, what: str) -> bool:
        if meaning.get(byte, what) != what or byte in DIGITS:
            return False
        meaning[byte] = what
        return True

    for byte in notation.separator_bytes:
        # a separator that is a map character could begin a map row: keep such notations exact
        if byte in MAP_ROW_CHARACTERS or not claim(byte, "separator"):
            return None
        tables[T_SKIP, byte] = 1
    for byte, direction in notation.direction_bytes.items():
        if direction not in DIRECTIONS or not claim(byte, "direction"):
            return None
        tables[T_DIRECTION, byte] = DIRECTIONS.index(direction) + 1
    for modifier, (kind, amount) in notation.modifier_actions.items():
        code = KIND_CODES.get(kind)
        if code is None:
            return None
        if modifier == b"":
            if amount is None or not 0 <= amount <= 9:
                return None
            params[P_DEFAULT_KIND], params[P_DEFAULT_AMOUNT] = code, amount
            continue
        if len(modifier) != 1:
            return None                 # several bytes: the exact parser's shape
        byte = modifier[0]
        if amount is None:
            if kind not in (PICK, DROP) or not claim(byte, "sign"):
                return None
            tables[T_SIGN, byte] = code
        else:
            if not 0 <= amount <= 9 or not claim(byte, "modifier"):
                return None
            tables[T_MODIFIER, byte] = code
            tables[T_MOD_AMOUNT, byte] = amount
    return CompiledNotation(notation.name, tables, params)
