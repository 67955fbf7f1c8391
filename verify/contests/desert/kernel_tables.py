"""What the replay kernel's two sides share: notations compiled into byte tables, and
the layout of every array and code the compiled loop (``kernel.c``) and its Python
side (:mod:`kernel`) pass between them.

The kernel knows one token shape: a direction byte, then either a sign byte and digits
(``D+0``: the kernel itself reads ONE digit and leaves longer numbers to the exact parser),
or a one-byte modifier with a fixed action (``RX``), or nothing (the action of a bare
letter); separator bytes may stand between tokens. Every table-driven notation of the
core whose modifiers are at most one byte has this shape: the standard notation and
``lrud-xy`` do. A notation of another shape (a custom regex pattern, a modifier of
several bytes) is not expressible: :func:`compile_notation` returns None and the judge
reads it on the exact path only. The prefix of an attempt's moves is read by the exact
path, before the kernel starts.

``kernel.c`` takes its constants from here and from :mod:`.rules`, through the header
:mod:`kernel_build` writes from their values; the compiled library's folder is named
after a digest of that header and the C source, so a changed rule rebuilds it.
"""
from __future__ import annotations

from dataclasses import dataclass

from verify.contests.desert.notation import MAP_ROW_CHARACTERS, Notation
from verify.contests.desert.rules import DIRECTIONS, DROP, FILL, PICK

# action kinds as the kernel codes them (0: none)
K_PICK, K_DROP, K_FILL = 1, 2, 3
KIND_CODES = {PICK: K_PICK, DROP: K_DROP, FILL: K_FILL}
MAX_AMOUNT = 9          # the kernel reads one digit; a fixed amount above it is left to the exact path

# rows of the byte tables (one flat array of bytes: row r at offset 256 * r)
T_DIRECTION = 0     # 1 + direction index (in DIRECTIONS order), 0: not a direction
T_SIGN = 1          # action kind of a sign that ONE digit follows (pick or drop), else 0
T_MODIFIER = 2      # action kind of a one-byte modifier, else 0
T_MOD_AMOUNT = 3    # its amount
T_SKIP = 4          # 1: a separator, skipped between tokens
TABLE_ROWS = 5

# params
P_DEFAULT_KIND = 0      # action kind of a bare direction (0: a bare direction is not a token)
P_DEFAULT_AMOUNT = 1
P_ROUTE_SQUARES = 2     # 1: a route is the squares visited only (the directions)
P_WIDTH = 3
P_HEIGHT = 4
P_START = 5             # flat index of S
P_END = 6               # flat index of E
PARAM_COUNT = 7

# state, read and written by the loop
S_POSITION = 0      # flat index of the traveller
S_CARRIED = 1
S_TURNS = 2         # turns played in this attempt
S_DRAWN = 3         # net units taken from S (the engine's ``drawn``)
S_STOP = 4          # offset of the first byte not consumed
S_REASON = 5        # why it stopped (R_*)
S_NEWLINES = 6      # newlines consumed by this call (the caller keeps line numbers without recounting)
S_LINE_START = 7    # offset just after the last newline consumed, -1 if none
STATE_COUNT = 8

# why the loop stopped
R_CHUNK_END = 0     # ran out of bytes (a cut token may be left)
R_NOT_A_TOKEN = 1   # a byte that starts no token here, or an unusual token shape
R_OFF_GRID = 2
R_ILLEGAL = 3       # breaks a water rule: the exact engine says which
R_DEATH = 4         # the dying turn IS played (a legal turn); nothing after it is
R_WIN = 5
# and why the pump (the loop reading the pipe itself) stopped, besides the loop's reasons
R_BUDGET = 6        # read as many bytes as it was allowed
R_PIPE_END = 7      # the pipe is closed: the entry's output ended
R_READ_FAILED = 8   # read() failed, its errno in IO_ERRNO (EAGAIN: nothing written yet)
REASONS = ("chunk end", "not a token", "off grid", "illegal", "death", "win",
           "budget", "pipe end", "read failed")

# the pump's buffer state, read and written by it: the bytes not yet consumed are
# buffer[IO_START:IO_FILLED]; IO_LINES and IO_COLUMN follow the position consumed
IO_START = 0
IO_FILLED = 1
IO_LINES = 2        # newlines consumed by this call
IO_COLUMN = 3       # 0-based column after the last byte consumed (in and out)
IO_READ = 4         # bytes read from the pipe by this call
IO_ERRNO = 5
IO_COUNT = 6

# route identity: a turn's code is (1 + direction index) * CODE_DIRECTION + its action,
# the action being kind * CODE_KIND + amount (0 for +0 and -0, "no action"); a route is
# two rolling 64-bit hashes of its codes (xor-multiply-shift, add-multiply-shift)
CODE_DIRECTION = 64
CODE_KIND = 16
MIX1 = 0x9E3779B97F4A7C15
MIX2 = 0xC2B2AE3D27D4EB4F
SHIFT1 = 29
SHIFT2 = 31
DIGITS = frozenset(b"0123456789")


@dataclass(frozen=True)
class CompiledNotation:
    """The byte tables of one notation (``params`` without the map's fields)."""

    name: str
    tables: bytes                   # TABLE_ROWS rows of 256 bytes, flat
    params: tuple[int, ...]         # PARAM_COUNT values

    def row(self, table: int) -> bytes:
        """One row of the tables: byte -> value."""
        return self.tables[256 * table:256 * (table + 1)]


def compile_notation(notation: Notation) -> CompiledNotation | None:
    """The tables for ``notation``, or None when the kernel cannot read it (exact path only)."""
    if not notation.table_driven:
        return None
    tables = bytearray(TABLE_ROWS * 256)
    params = [0] * PARAM_COUNT
    meaning: dict[int, str] = {}
    if not (_separators(notation, tables, meaning) and _directions(notation, tables, meaning)
            and _modifiers(notation, tables, params, meaning)):
        return None
    return CompiledNotation(notation.name, bytes(tables), tuple(params))


def _claim(meaning: dict[int, str], byte: int, what: str) -> bool:
    """Give `byte` the meaning `what` in `meaning`; False when it has another, or is a digit."""
    if meaning.get(byte, what) != what or byte in DIGITS:
        return False
    meaning[byte] = what
    return True


def _separators(notation: Notation, tables: bytearray, meaning: dict[int, str]) -> bool:
    """Fill the separators' table; False when the kernel cannot read them."""
    for byte in notation.separator_bytes:
        # a separator that is a map character could begin a map row: keep such notations exact
        if byte in MAP_ROW_CHARACTERS or not _claim(meaning, byte, "separator"):
            return False
        tables[256 * T_SKIP + byte] = 1
    return True


def _directions(notation: Notation, tables: bytearray, meaning: dict[int, str]) -> bool:
    """Fill the directions' table; False when the kernel cannot read them."""
    for byte, direction in notation.direction_bytes.items():
        if direction not in DIRECTIONS or not _claim(meaning, byte, "direction"):
            return False
        tables[256 * T_DIRECTION + byte] = DIRECTIONS.index(direction) + 1
    return True


def _modifiers(notation: Notation, tables: bytearray, params: list[int], meaning: dict[int, str]) -> bool:
    """Fill the signs' and modifiers' tables and the default action; False when the kernel
    cannot read them."""
    for modifier, (kind, amount) in notation.modifier_actions.items():
        code = KIND_CODES.get(kind)
        if code is None:
            return False
        if modifier == b"":
            if amount is None or not 0 <= amount <= MAX_AMOUNT:
                return False
            params[P_DEFAULT_KIND], params[P_DEFAULT_AMOUNT] = code, amount
            continue
        if len(modifier) != 1:
            return False                # several bytes: the exact parser's shape
        byte = modifier[0]
        if amount is None:
            if kind not in (PICK, DROP) or not _claim(meaning, byte, "sign"):
                return False
            tables[256 * T_SIGN + byte] = code
        else:
            if not 0 <= amount <= MAX_AMOUNT or not _claim(meaning, byte, "modifier"):
                return False
            tables[256 * T_MODIFIER + byte] = code
            tables[256 * T_MOD_AMOUNT + byte] = amount
    return True
