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
import errno
import os
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

from verify.contests.desert.engine import Crossing, Outcome, Turn
from verify.contests.desert.kernel_tables import (
    CODE_DIRECTION,
    CODE_KIND,
    IO_COLUMN,
    IO_COUNT,
    IO_ERRNO,
    IO_FILLED,
    IO_LINES,
    IO_READ,
    IO_START,
    KIND_CODES,
    MIX1,
    MIX2,
    P_END,
    P_HEIGHT,
    P_ROUTE_SQUARES,
    P_START,
    P_WIDTH,
    PARAM_COUNT,
    R_BUDGET,
    R_CHUNK_END,
    R_DEATH,
    R_PIPE_END,
    R_READ_FAILED,
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
Io = ctypes.c_int64 * IO_COUNT
_BYTES = ctypes.POINTER(ctypes.c_ubyte)
_INT64S = ctypes.POINTER(ctypes.c_int64)
# desert_replay(buf, start, end, final, tables, params, water, visited, state, digest) -> stop reason
REPLAY_ARGUMENTS = (ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_char_p,
                    _INT64S, _BYTES, _BYTES, _INT64S, ctypes.POINTER(ctypes.c_uint64))
# desert_pump(fd, buffer, capacity, budget, io, tables, params, water, visited, state, digest) -> stop reason
PUMP_ARGUMENTS = (ctypes.c_int64, _BYTES, ctypes.c_int64, ctypes.c_int64, _INT64S, ctypes.c_char_p,
                  _INT64S, _BYTES, _BYTES, _INT64S, ctypes.POINTER(ctypes.c_uint64))
PUMP_BUFFER = 1 << 20       # the pump's buffer: one read of the runner's 1 MiB pipe


def byte_view(array: bytearray) -> Any:
    """A ctypes view of ``array`` (no copy): the loop writes into it in place."""
    return (ctypes.c_ubyte * len(array)).from_buffer(array)


# ---------------------------------------------------------------- loading the compiled loop

_LOADING = threading.Lock()      # judges built in parallel threads build the library once
_PUMP: list[Callable[..., int]] = []    # the library's desert_pump, loaded with its desert_replay


@cache
def compiled_replay() -> Callable[..., int] | None:
    """The compiled loop (``desert_replay`` of kernel.c, through ctypes), or None when there
    is none (the exact path judges alone)."""
    with _LOADING:
        return _load()


def compiled_pump() -> Callable[..., int] | None:
    """The loop reading a pipe itself (``desert_pump`` of the same library), or None."""
    return _PUMP[0] if compiled_replay() is not None and _PUMP else None


def _load() -> Callable[..., int] | None:
    _PUMP.clear()
    if from_process().contest_setting("desert", "kernel") == "0":     # VERIFY_DESERT_KERNEL=0: the exact path only
        return None
    from verify.contests.desert.kernel_build import build_library
    library = build_library()
    if library is None:
        return None
    try:
        loaded = ctypes.CDLL(str(library))
        replay, pump = loaded.desert_replay, loaded.desert_pump
    except (OSError, AttributeError):
        return None
    replay.argtypes = REPLAY_ARGUMENTS
    replay.restype = ctypes.c_int64
    pump.argtypes = PUMP_ARGUMENTS
    pump.restype = ctypes.c_int64
    _PUMP.append(pump)
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
                 replay: Callable, order: str = "moves-first", deaths: str = "turns",
                 pump: Callable | None = None):
        super().__init__(desert, notation, order, deaths)
        self._replay = replay
        self._pump = pump
        self._buffer: bytearray | None = None       # the pump's, made by its first read
        self._buffer_view: Any = None
        self._io = Io()
        self.piped = 0              # bytes read from a pipe by read_from
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
        views = self._enter(game)
        state = self._state
        reason = self._replay(bytes(data), pos, end, final, self._tables, self._params,
                              views[1], views[2], state, self._digest)
        stopped, newlines, line_start = state[S_STOP], state[S_NEWLINES], state[S_LINE_START]
        if newlines:                    # counted by the loop: no second pass over its bytes
            self._line += newlines
            self._column = stopped - line_start
        else:
            self._column += stopped - pos
        self._leave(game, reason)
        return reason, stopped

    def _enter(self, game: Crossing) -> tuple[Crossing, Any, Any]:
        """The game and the route handed to the loop (its water and visited squares in place)."""
        views = self._views
        if views is None or views[0] is not game:
            views = self._views = (game, byte_view(game.water), byte_view(game.visited))
        state, digest = self._state, self._digest
        state[S_POSITION] = game.row * self.map.width + game.col
        state[S_CARRIED], state[S_TURNS], state[S_DRAWN] = game.carried, game.turns, game.drawn
        digest[0], digest[1] = self._route.value
        return views

    def _leave(self, game: Crossing, reason: int) -> None:
        """The game and the route brought up to where the loop stopped."""
        values = self._state[:]
        position, carried, turns, drawn = values[S_POSITION], values[S_CARRIED], values[S_TURNS], values[S_DRAWN]
        digest = self._digest
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

    # ---------------------------------------------------------- reading the pipe itself

    def read_from(self, fd: int, budget: int) -> bool:
        """Read at most ``budget`` bytes from the non-blocking pipe ``fd`` and judge them as
        ``feed`` would (raising the same failures): the pump reads and replays them while the
        traveller is alive among moves; the reading loop reads the rest (map rows, the turns the
        loop refuses) as fed chunks. Returns True when the pipe is closed (the output ended),
        False when nothing more is written yet or the budget is spent. ``piped`` counts the bytes."""
        read = 0
        while read < budget:
            if self._pump_may_read():
                reason = self._pump_pipe(fd, budget - read)
                read += self._io[IO_READ]
                if reason == R_READ_FAILED:
                    error = self._io[IO_ERRNO]
                    if error == errno.EINTR:
                        continue
                    if error in (errno.EAGAIN, errno.EWOULDBLOCK):
                        return False
                    raise OSError(error, os.strerror(error))
                if reason == R_BUDGET:
                    return False
                self.feed_held()       # stopped before a token, or the pipe ended: the reading loop goes on
                if reason == R_PIPE_END:
                    return True
                continue
            if self._io[IO_FILLED] > self._io[IO_START]:
                self.feed_held()
                continue
            try:
                chunk = os.read(fd, min(budget - read, PUMP_BUFFER))
            except BlockingIOError:
                return False
            if not chunk:
                return True
            read += len(chunk)
            self.piped += len(chunk)
            self.feed(chunk)
        return False

    def _pump_may_read(self) -> bool:
        """Whether the next bytes are the moves of a live attempt, as the loop reads them: nothing
        waits in the reading loop, no map block is being read, the moves' prefix is behind."""
        game = self._game
        return (self._pump is not None and not self._pending and not self._block and game is not None
                and game.outcome is Outcome.ALIVE and not self._prefix_allowed and not self._finished)

    def _pump_pipe(self, fd: int, budget: int) -> int:
        """One call of the pump: reads and replays up to its first stop; returns the reason."""
        if self._buffer is None:
            self._buffer = bytearray(PUMP_BUFFER)
            self._buffer_view = byte_view(self._buffer)
        game = self._game
        assert game is not None and self._pump is not None
        views = self._enter(game)
        io = self._io
        io[IO_COLUMN], io[IO_READ] = self._column, 0
        reason = self._pump(fd, self._buffer_view, PUMP_BUFFER, budget, io, self._tables, self._params,
                            views[1], views[2], self._state, self._digest)
        self.piped += io[IO_READ]
        self._line += io[IO_LINES]
        self._column = io[IO_COLUMN]
        self._leave(game, reason)
        return reason

    def feed_held(self) -> None:
        """The bytes the pump read and did not consume (a cut token), fed to the reading loop: the
        judge calls it before ``finish``, where they are the output's last bytes."""
        io = self._io
        start, filled = io[IO_START], io[IO_FILLED]
        if filled <= start:
            return
        io[IO_START] = io[IO_FILLED] = 0
        assert self._buffer is not None
        self.feed(bytes(memoryview(self._buffer)[start:filled]))


def make_transcript(desert: DesertMap, notation: Notation = STANDARD, order: str = "moves-first",
                    deaths: str = "turns", fast: bool = True) -> Transcript:
    """A :class:`FastTranscript` when ``fast`` and the kernel can read ``notation``, else the exact one."""
    if fast:
        compiled = compile_notation(notation)
        if compiled is not None:
            replay = compiled_replay()
            if replay is not None:
                return FastTranscript(desert, notation, compiled, replay, order, deaths, compiled_pump())
    return Transcript(desert, notation, order, deaths)
