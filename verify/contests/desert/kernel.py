"""The fast path of desert judging: a compiled loop replays the bulk of the turns.

:class:`FastTranscript` is the core's :class:`Transcript` (one reading loop for both
paths) with its seam ``_play_turns`` replaced: where the exact path tokenises a run of
moves and plays it through :meth:`Crossing.play`, it first lets the kernel
(``kernel.c``) replay that run straight from the bytes, into the same
:class:`Crossing` (the kernel writes into its water and visited bytearrays in place and
hands back its scalars). The kernel plays legal turns that do not reach
E (a dying turn too: the attempt is then marked dead, as the engine does) and stops before
any other token (illegal, winning, unusual, a map row); the exact path then reads from
there, for one line at most, and hands back. So every verdict and message comes from the
exact engine, on either path.

Route identity. The exact path names a route by BLAKE2b over its turns; that cannot run
at the kernel's speed, so a :class:`FastTranscript` names every route (whichever path
played its turns) by two independent 64-bit rolling hashes of its turn codes (xor-multiply-
shift and add-multiply-shift with different odd multipliers): 128 bits, the same value
whichever path or chunking played the turns. A repeated death always gives the same
value, so it is never missed; two different routes collide with probability about 2^-128
per pair (for output not crafted against these constants, and a collision could only
reject an honest entry, never let a repeat through).

Loading. The loop is plain C, compiled once into verify's cache with the system C
compiler (:mod:`kernel_build`, about a second) and loaded with ctypes, which releases the
GIL for each call: the loop replays while the runner's thread reads the next chunk.
Without a C compiler (or with ``VERIFY_DESERT_KERNEL=0``) the exact path judges alone,
with the same verdicts, more slowly. Nothing is loaded before a desert output is judged:
``verify --help`` stays fast.
"""
from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

from verify.contests.desert.engine import Crossing, Outcome, Turn
from verify.contests.desert.kernel_tables import (
    CODE_DIRECTION,
    CODE_KIND,
    KIND_CODES,
    MIX1,
    MIX2,
    P_END,
    P_HEIGHT,
    P_ROUTE_SQUARES,
    P_START,
    P_WIDTH,
    PARAM_COUNT,
    R_CHUNK_END,
    R_DEATH,
    REASONS,
    S_CARRIED,
    S_DRAWN,
    S_LINE_START,
    S_NEWLINES,
    S_POSITION,
    S_STOP,
    S_TURNS,
    SHIFT1,
    SHIFT2,
    STATE_COUNT,
    CompiledNotation,
    compile_notation,
)
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import STANDARD, Notation
from verify.contests.desert.rules import DIRECTIONS, FILL
from verify.contests.desert.transcript import MAP_ROW_BYTES, Transcript
from verify.settings import from_process

MASK = (1 << 64) - 1


Params = ctypes.c_int64 * PARAM_COUNT
State = ctypes.c_int64 * STATE_COUNT
Digest = ctypes.c_uint64 * 2
_BYTES = ctypes.POINTER(ctypes.c_ubyte)
_INT64S = ctypes.POINTER(ctypes.c_int64)
# desert_replay(buf, start, end, final, tables, params, water, visited, state, digest) -> stop reason
REPLAY_ARGUMENTS = (ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_char_p,
                    _INT64S, _BYTES, _BYTES, _INT64S, ctypes.POINTER(ctypes.c_uint64))


def byte_view(array: bytearray) -> Any:
    """A ctypes view of ``array`` (no copy): the loop writes into it in place."""
    return (ctypes.c_ubyte * len(array)).from_buffer(array)


# ---------------------------------------------------------------- loading the compiled loop

_LOADING = threading.Lock()      # judges built in parallel threads build the library once


@cache
def compiled_replay() -> Callable[..., int] | None:
    """The compiled loop (``desert_replay`` of kernel.c, through ctypes), or None when there
    is none (the exact path judges alone)."""
    with _LOADING:
        return _load()


def _load() -> Callable[..., int] | None:
    if from_process().contest_setting("desert", "kernel") == "0":     # VERIFY_DESERT_KERNEL=0: the exact path only
        return None
    from verify.contests.desert.kernel_build import build_library
    library = build_library()
    if library is None:
        return None
    try:
        replay = ctypes.CDLL(str(library)).desert_replay
    except (OSError, AttributeError):
        return None
    replay.argtypes = REPLAY_ARGUMENTS
    replay.restype = ctypes.c_int64
    return replay


# ---------------------------------------------------------------- route identity

def turn_code(turn: Turn, squares_only: bool = False) -> int:
    """The number a turn adds to its route (as the kernel codes it): +0 and -0 are "no action"."""
    direction, action, amount = turn
    code = (DIRECTIONS.index(direction) + 1) * CODE_DIRECTION
    if squares_only or (amount == 0 and action != FILL):
        return code
    # amounts the kernel plays are 0-9; a bigger one is never legal (its turn is rejected before
    # its route can matter), but it is coded before it is played: kept within its field
    return code + KIND_CODES[action] * CODE_KIND + min(amount, CODE_KIND - 1)


def fold(route: tuple[int, int], code: int) -> tuple[int, int]:
    """The route's two hashes after one more turn code: the kernel's step, in Python."""
    h1, h2 = route
    h1 = ((h1 ^ code) * MIX1) & MASK
    h1 ^= h1 >> SHIFT1
    h2 = ((h2 + code) * MIX2) & MASK
    h2 ^= h2 >> SHIFT2
    return h1, h2


class RollingRoute:
    """Stands where the exact path keeps a BLAKE2b object: ``update(codes)``, ``digest()``.

    ``codes`` are 2-byte little-endian turn codes (see :class:`TurnCodes`).
    """

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = (0, 0)

    def update(self, codes: bytes) -> None:
        value = self.value
        for index in range(0, len(codes), 2):
            value = fold(value, codes[index] | codes[index + 1] << 8)
        self.value = value

    def digest(self) -> bytes:
        h1, h2 = self.value
        return h1.to_bytes(8, "little") + h2.to_bytes(8, "little")


class TurnCodes(dict):
    """Turn -> its 2-byte code, in place of the exact path's route codes."""

    def __init__(self, squares: bool):
        super().__init__()
        self.squares = squares

    def __missing__(self, turn: Turn) -> bytes:
        code = turn_code(turn, self.squares).to_bytes(2, "little")
        self[turn] = code
        return code


# ---------------------------------------------------------------- the transcript with a kernel

class FastTranscript(Transcript):
    """A :class:`Transcript` whose runs of turns are played by the kernel wherever it can.

    The reading loop, map rows, attempts, prefixes and every failure are the core's; this
    class replaces its two seams only: :meth:`_play_turns` (the kernel first, the core's
    tokenizer for what the kernel refuses) and the route identity (two rolling hashes the
    kernel computes, instead of BLAKE2b).
    """

    def __init__(self, desert: DesertMap, notation: Notation, compiled: CompiledNotation,
                 replay: Callable, order: str = "moves-first", deaths: str = "turns"):
        super().__init__(desert, notation, order, deaths)
        self._replay = replay
        self._tables = compiled.tables
        params = list(compiled.params)
        params[P_ROUTE_SQUARES] = int(deaths == "squares")
        params[P_WIDTH], params[P_HEIGHT] = desert.width, desert.height
        params[P_START] = desert.start[0] * desert.width + desert.start[1]
        params[P_END] = desert.end[0] * desert.width + desert.end[1]
        self._params = Params(*params)
        self._state = State()
        self._digest = Digest()
        self._views: tuple[Crossing, Any, Any] | None = None
        self.kernel_turns = 0       # turns the kernel played (a statistic)
        self.stops = [0] * len(REASONS)

    def _new_route(self) -> RollingRoute:
        return RollingRoute()

    def _turn_codes(self, squares: bool) -> TurnCodes:
        return TurnCodes(squares)

    def _play_turns(self, game: Crossing, data: bytes, pos: int, end: int, final: bool) -> int:
        """The core's seam, with the kernel reading first: it plays the turns of a live attempt
        up to the first token it refuses (illegal, winning, unusual, not a turn: a map row
        among them) or just after a dying turn; the core's tokenizer reads from there to the
        end of that line (every verdict is the exact engine's), and the kernel goes on."""
        refused = -1                # where the kernel last stopped short: the core reads from there
        while pos < end:
            if self._column == 0 and data[pos] in MAP_ROW_BYTES:
                return pos          # the reading loop reads map rows
            if game.outcome is Outcome.ALIVE and pos != refused:
                reason, pos = self._kernel(game, data, pos, end, final)
                if reason == R_CHUNK_END:
                    return pos      # all read, or a token cut by the end of the chunk
                refused = pos
                continue
            newline = data.find(b"\n", pos, end)
            stop, complete = (newline + 1, True) if newline >= 0 else (end, final)
            read = super()._play_turns(game, data, pos, stop, complete)
            if read < stop:
                return read         # the line is still arriving
            pos = read
        return pos

    def _kernel(self, game: Crossing, data: bytes, pos: int, end: int, final: bool) -> tuple[int, int]:
        """One call of the compiled loop from ``pos``: returns (stop reason, where it stopped),
        with the game, the route, ``_line`` and ``_column`` brought up to there."""
        views = self._views
        if views is None or views[0] is not game:
            views = self._views = (game, byte_view(game.water), byte_view(game.visited))
        state, digest = self._state, self._digest
        state[S_POSITION] = game.row * self.map.width + game.col
        state[S_CARRIED], state[S_TURNS], state[S_DRAWN] = game.carried, game.turns, game.drawn
        digest[0], digest[1] = self._route.value
        reason = self._replay(bytes(data), pos, end, final, self._tables, self._params,
                              views[1], views[2], state, digest)
        values = state[:]
        position, carried, turns, drawn = values[S_POSITION], values[S_CARRIED], values[S_TURNS], values[S_DRAWN]
        stopped, newlines, line_start = values[S_STOP], values[S_NEWLINES], values[S_LINE_START]
        if newlines:                    # counted by the loop: no second pass over its bytes
            self._line += newlines
            self._column = stopped - line_start
        else:
            self._column += stopped - pos
        played = turns - game.turns
        if played:
            game.row, game.col = divmod(position, self.map.width)
            game.carried = carried
            game.turns = turns
            game.consumed += played
            game.drawn = drawn
            self._route.value = (digest[0], digest[1])
            self.kernel_turns += played
            if reason == R_DEATH:           # the loop played the dying turn
                game.outcome, game.ended_on = Outcome.DEAD, turns
        self.stops[reason] += 1
        return reason, stopped


def make_transcript(desert: DesertMap, notation: Notation = STANDARD, order: str = "moves-first",
                    deaths: str = "turns", fast: bool = True) -> Transcript:
    """A :class:`FastTranscript` when ``fast`` and the kernel can read ``notation``, else the exact one."""
    if fast:
        compiled = compile_notation(notation)
        if compiled is not None:
            replay = compiled_replay()
            if replay is not None:
                return FastTranscript(desert, notation, compiled, replay, order, deaths)
    return Transcript(desert, notation, order, deaths)
