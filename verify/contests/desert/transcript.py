"""Reads a program's output as it streams: attempts (moves + final map), replayed while reading.

The output is a sequence of lines. A line whose first byte is a map character
(``SE1-9.#``) is a map row; H consecutive rows make a map block, which must have
S and E exactly where the input has them. Any other text is moves, read with the
entry's notation. In order ``moves-first`` (the spec's) an attempt is its moves
then its final map; in ``map-first`` (lenient, declared by the entry) its final
map then its moves.

Memory stays bounded by the map, not by the output: turns are replayed as they
are read, and a death is remembered by a 16-byte BLAKE2b digest of its route.
"""
from __future__ import annotations

import hashlib
import re
from typing import Any

from verify.contests.desert.engine import FILL, Crossing, IllegalTurn, Outcome, Turn
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import MAP_ROW_CHARACTERS, STANDARD, Notation, TokenError

ORDERS = ("moves-first", "map-first")
DEATH_RULES = ("turns", "squares")
ROW_SLACK = 64            # bytes past the map's width we wait for before calling a row too long
LONG_LINE = 1 << 16       # a moves line with no newline yet is read once this much of it is waiting
MAX_WARNINGS = 20
_MAP_ROW_START = re.compile(b"\n[" + re.escape(MAP_ROW_CHARACTERS) + b"]")
MAP_ROW_BYTES = frozenset(MAP_ROW_CHARACTERS)


# ---------------------------------------------------------------- what can go wrong

class TranscriptError(Exception):
    """The first failure of an output. ``presentation`` is True when the text cannot be read
    (neither moves nor a map, or in the wrong order), False when it is read and wrong."""

    presentation = False

    def __init__(self, message: str, detail: str = ""):
        self.message, self.detail = message, detail
        super().__init__(message)


class Unreadable(TranscriptError):
    """Text that is neither moves in the notation nor a map row, or a broken map block."""

    presentation = True

    def __init__(self, line: int, column: int | None, problem: str):
        self.line, self.column = line, column
        where = f"line {line}" + (f", column {column}" if column is not None else "")
        super().__init__(f"output {where}: {problem}")


class MapFirst(Unreadable):
    """A map with no moves before it, in order moves-first (an entry printing the map first)."""


class IllegalTurnError(TranscriptError):
    """A turn the rules refuse; ``error`` is the engine's :class:`IllegalTurn`."""

    def __init__(self, error: IllegalTurn, line: int, column: int):
        self.error, self.line, self.column = error, line, column
        super().__init__(error.message, f"the turn is written at output line {line}, column {column}")


class NotOver(TranscriptError):
    """An attempt whose map comes while the traveller is alive and not on E."""


class WrongMap(TranscriptError):
    """A final map that differs from the replayed one; ``square`` is the first difference."""

    def __init__(self, message: str, detail: str, square: tuple[int, int]):
        self.square = square
        super().__init__(message, detail)


class RepeatedDeath(TranscriptError):
    """A death by a route an earlier attempt died by."""


class AfterWin(TranscriptError):
    """Output after the winning attempt."""


class MissingMap(TranscriptError):
    """The output ended after an attempt's moves, without its final map."""


class NoWin(TranscriptError):
    """The output ended with no winning attempt."""


# ---------------------------------------------------------------- the parser

class Transcript:
    """``feed(chunk)`` as output arrives, ``finish()`` at its end; each raises the first
    :class:`TranscriptError`. After ``finish``: ``attempts``, ``deaths``, ``winning_turns``,
    ``total_turns``, ``warnings``."""

    def __init__(self, desert: DesertMap, notation: Notation = STANDARD, order: str = "moves-first",
                 deaths: str = "turns"):
        if order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}, not {order!r}")
        if deaths not in DEATH_RULES:
            raise ValueError(f"deaths must be one of {DEATH_RULES}, not {deaths!r}")
        self.map, self.notation, self.order, self.death_rule = desert, notation, order, deaths
        self.tokenizer = notation.tokenizer()
        self._separators_start_rows = any(byte in MAP_ROW_BYTES for byte in notation.separator_bytes)
        self._map_first = order == "map-first"
        self._expected_rows = desert.row_bytes()       # linear in the map: set-up is O(W*H)
        self._landmarks = [tuple(c for c, byte in enumerate(row) if byte in b"SE") for row in self._expected_rows]
        self._route_code = self._turn_codes(deaths == "squares")
        # position of self._pending[0] in the output: 1-based line, 0-based column
        self._pending = b""
        self._line, self._column = 1, 0
        # the map block being read
        self._block: list[bytes] = []
        self._block_line = 0
        # the attempt being read
        self._game: Crossing | None = None
        self._route = self._new_route()
        self._prefix_allowed = True
        self._printed_map: list[bytes] | None = None   # map-first: the attempt's map, checked at its end
        self._printed_map_line = 0
        # totals
        self.attempts = 0
        self.deaths = 0
        self.total_turns = 0
        self.winning_attempt: int | None = None
        self.winning_turns = 0
        self.warnings: list[str] = []
        self._death_routes: dict[bytes, int] = {}
        self._finished = False

    # ---------------------------------------------------------- the stream

    def feed(self, chunk: bytes) -> None:
        self._pending += chunk
        self._read(final=False)

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._read(final=True)
        if self._block:
            raise Unreadable(self._line, None, f"the output ends inside the map block of line {self._block_line} "
                             f"({len(self._block)} of {self.map.height} rows)")
        if self._map_first and self._printed_map is not None:
            self._end_attempt(self._printed_map, self._printed_map_line)
        elif self._game is not None:
            game = self._game
            raise MissingMap(f"attempt {game.attempt}: the output ends after its moves (turn {game.turns}) "
                             "without its final map")
        if self.winning_attempt is None:
            if self.attempts == 0:
                raise NoWin("the output ends with no winning attempt: no attempt at all")
            raise NoWin(f"the output ends with no winning attempt ({self.attempts} attempt"
                        f"{'s' if self.attempts != 1 else ''}, {self.deaths} death{'s' if self.deaths != 1 else ''})")

    @property
    def current_turn(self) -> int:
        return self._game.turns if self._game is not None else 0

    def _read(self, final: bool) -> None:
        """The one reading loop (of both paths): map rows here, the moves between them in
        :meth:`_moves`, which hands runs of turns to :meth:`_play_turns`."""
        data = self._pending
        pos, end = 0, len(data)
        try:
            while pos < end:
                if self._column == 0 and data[pos] in MAP_ROW_BYTES:
                    newline = data.find(b"\n", pos)
                    if newline < 0:
                        if not final and end - pos <= self.map.width + ROW_SLACK:
                            break
                        stop = min(end, pos + self.map.width + ROW_SLACK + 1)
                        self._map_row(data[pos:stop], complete=newline >= 0 or final and stop == end)
                        pos = end
                        continue
                    self._map_row(data[pos:newline], complete=True)
                    pos = newline + 1
                    self._line += 1
                    continue
                if self._block:
                    raise Unreadable(self._line, self._column + 1,
                                     f"the map block of line {self._block_line} has {len(self._block)} rows, "
                                     f"expected {self.map.height}")
                pos = self._moves(data, pos, end, final)
                if pos < end and not (self._column == 0 and data[pos] in MAP_ROW_BYTES):
                    break               # a token or a line cut by the end of the chunk: wait for the rest
        finally:
            self._pending = data[pos:]

    def _advance(self, data: bytes, start: int, stop: int) -> None:
        newlines = data.count(b"\n", start, stop)
        if newlines:
            self._line += newlines
            self._column = stop - data.rfind(b"\n", start, stop) - 1
        else:
            self._column += stop - start

    def _where(self, data: bytes, start: int, offset: int) -> tuple[int, int]:
        """Line and 1-based column of ``data[offset]``, reading started at ``start`` (= self._line/_column)."""
        newlines = data.count(b"\n", start, offset)
        if newlines:
            return self._line + newlines, offset - data.rfind(b"\n", start, offset)
        return self._line, self._column + offset - start + 1

    # ---------------------------------------------------------- moves

    def _moves(self, data: bytes, start: int, end: int, final: bool) -> int:
        """Read the moves in ``data[start:end]`` up to the next map row, as far as they can be
        read now (``final``: nothing follows ``end``); return where reading stopped: ``end``,
        the start of a map row, or bytes that must wait for the next chunk. On entry and on
        return, ``_line`` and ``_column`` give the position reached."""
        pos = self.tokenizer.skip_separators(data, start, end)
        if self._separators_start_rows and pos > start:     # e.g. '.': stop at a map row's first byte
            row = _MAP_ROW_START.search(data, start, pos + 1)
            if row:
                pos = row.start() + 1
        if pos == end or data[pos] in MAP_ROW_BYTES and (data[pos - 1] == 10 if pos > start else self._column == 0):
            self._advance(data, start, pos)
            return pos                  # (a map row: the reading loop reads it)
        game = self._attempt_for_moves(data, start, pos)
        if self._prefix_allowed:
            prefix = self.notation.prefix_bytes
            if prefix:
                available = data[pos:min(end, pos + len(prefix))]
                if available == prefix:
                    pos += len(prefix)
                elif prefix.startswith(available) and not final:
                    return start
            self._prefix_allowed = False
        self._advance(data, start, pos)
        return self._play_turns(game, data, pos, end, final)

    # ---------------------------------------------------------- what a subclass may replace
    # (the fast path, kernel.FastTranscript: the kernel plays runs of turns, its own route hash)

    def _play_turns(self, game: Crossing, data: bytes, pos: int, end: int, final: bool) -> int:
        """Play the turns written from ``data[pos]`` on, up to the next map row, as far as they
        can be read now; return where reading stopped, as :meth:`_moves` does (``_line`` and
        ``_column`` follow). Raises the first failure among them in output order. Here: the
        notation's tokenizer, then :meth:`Crossing.play`; a line still arriving is read once
        it is whole (or long)."""
        found = _MAP_ROW_START.search(data, pos, end)
        if found:
            stop, complete = found.start() + 1, True
        elif final:
            stop, complete = end, True
        else:
            last_newline = data.rfind(b"\n", pos, end)
            line_start = last_newline + 1 if last_newline >= 0 else pos
            if end - line_start >= LONG_LINE:
                stop, complete = end, False
            elif last_newline >= 0:
                stop, complete = line_start, True
            else:
                return pos
        tokenizer = self.tokenizer
        region = data[pos:stop]
        unreadable = None
        try:
            turns, read = tokenizer.tokenize(region, 0, complete)
        except TokenError as error:
            # the turns written before the unreadable text come first in the output: an illegal
            # one among them is the first failure (whatever the chunk holds after it)
            turns, _ = tokenizer.tokenize(region[:error.offset], 0, True)
            line, column = self._where(data, pos, pos + error.offset)
            unreadable = Unreadable(line, column, f"expected {error.expected}, found {error.found}")
        except TimeoutError:
            line, column = self._where(data, pos, pos)
            raise Unreadable(line, column, "the notation's token pattern took too long on this text") from None
        if turns:
            self._route.update(b"".join(map(self._route_code.__getitem__, turns)))
            before = game.turns
            try:
                game.play(turns)
            except IllegalTurn as error:
                index = error.turn - before - 1
                offsets = tokenizer.token_offsets(region, 0, index + 1)
                line, column = self._where(data, pos, pos + offsets[index])
                raise IllegalTurnError(error, line, column) from None
        if unreadable is not None:
            raise unreadable
        self._advance(data, pos, pos + read)
        return pos + read

    def _new_route(self) -> Any:
        """An empty route identity (``update(codes)``, ``digest()``): a 16-byte BLAKE2b here."""
        return hashlib.blake2b(digest_size=16)

    def _turn_codes(self, squares: bool) -> dict[Turn, bytes]:
        """Turn -> the bytes it adds to its route (``squares``: the direction only)."""
        return _RouteCodes(squares)

    # ---------------------------------------------------------- attempts

    def _attempt_for_moves(self, data: bytes, start: int, pos: int) -> Crossing:
        if self.winning_attempt is not None:
            line, column = self._where(data, start, pos)
            raise AfterWin(f"output line {line}, column {column}: the output goes on after the winning "
                           f"attempt {self.winning_attempt}")
        game = self._game
        if game is None:
            if self._map_first:
                line, column = self._where(data, start, pos)
                raise Unreadable(line, column, "moves before any map (in order map-first each attempt "
                                 "begins with its final map)")
            game = self._new_attempt()
        return game

    def _new_attempt(self) -> Crossing:
        game = self._game = Crossing(self.map, self.attempts + 1)
        self._route = self._new_route()
        self._prefix_allowed = True
        return game

    # ---------------------------------------------------------- maps

    def _map_row(self, raw: bytes, complete: bool) -> None:
        line = self._line
        row = raw.rstrip(b" \t\r")
        width = self.map.width
        if row.translate(None, MAP_ROW_CHARACTERS):           # some byte is not a map character: which?
            for column, byte in enumerate(row[:width + 1]):
                if byte not in MAP_ROW_BYTES:
                    raise Unreadable(line, column + 1, f"{_show(byte)} in a map row (expected one of SE1-9.#)")
        if len(row) != width or not complete:
            shown = f"{len(row)}" if complete and len(row) <= width + ROW_SLACK else f"more than {width + ROW_SLACK}"
            raise Unreadable(line, min(len(row), width) + 1,
                             f"a map row has {width} characters, this one has {shown}")
        index = len(self._block)
        if index == 0:
            self._start_block(line)
        expected = self._expected_rows[index]
        landmarks = self._landmarks[index]                      # columns of S and E in this row of the input
        if row.count(b"S") + row.count(b"E") != len(landmarks) or any(row[c] != expected[c] for c in landmarks):
            self._misplaced_landmark(row, expected, index, line)
        self._block.append(bytes(row))
        if len(self._block) == self.map.height:
            block, self._block = self._block, []
            self._end_block(block, self._block_line)

    def _misplaced_landmark(self, row: bytes, expected: bytes, index: int, line: int) -> None:
        for column in range(self.map.width):
            printed, wanted = row[column], expected[column]
            if (printed in b"SE" or wanted in b"SE") and printed != wanted:
                raise Unreadable(line, column + 1,
                                 f"row {index} of the map block of line {self._block_line} has {_show(printed)} "
                                 f"where the input has {_show(wanted)} (S and E must be where the input has them)")

    def _start_block(self, line: int) -> None:
        self._block_line = line
        if self.winning_attempt is not None:
            raise AfterWin(f"output line {line}: the output goes on after the winning attempt "
                           f"{self.winning_attempt}")
        if self._map_first:
            if self._printed_map is not None:
                self._end_attempt(self._printed_map, self._printed_map_line)
                if self.winning_attempt is not None:
                    raise AfterWin(f"output line {line}: the output goes on after the winning attempt "
                                   f"{self.winning_attempt}")
        elif self._game is None or self._game.turns == 0:
            attempt = self.attempts + 1
            raise MapFirst(line, None, f"attempt {attempt} prints a map before any move; in order moves-first "
                           "the final map comes after the moves (an entry printing the map first declares "
                           "order = \"map-first\")")

    def _end_block(self, block: list[bytes], line: int) -> None:
        if self._map_first:
            self._printed_map, self._printed_map_line = block, line
            self._new_attempt()
        else:
            self._end_attempt(block, line)

    def _end_attempt(self, printed: list[bytes], line: int) -> None:
        game = self._game
        assert game is not None
        self._game, self._printed_map = None, None
        if game.outcome is Outcome.ALIVE:
            raise NotOver(f"attempt {game.attempt} ends after turn {game.turns} at ({game.row},{game.col}) "
                          f"carrying {game.carried} unit{'s' if game.carried != 1 else ''}: the traveller is "
                          "neither dead nor on E")
        rendered = game.render_bytes()
        if rendered == b"\n".join(printed) + b"\n":
            expected = printed
        else:
            expected = rendered.split(b"\n")[:-1]
        for row, (want, got) in enumerate(zip(expected, printed, strict=True)):
            if want != got:
                col = next(c for c in range(len(want)) if want[c] != got[c])
                raise WrongMap(f"attempt {game.attempt}: the final map (output line {line}) differs at "
                               f"({row},{col}): expected {chr(want[col])!r}, printed {chr(got[col])!r}",
                               side_by_side(expected, printed, row), (row, col))
        self.attempts += 1
        self.total_turns += game.turns
        for warning in game.warnings:
            if len(self.warnings) < MAX_WARNINGS:
                self.warnings.append(warning)
        if game.outcome is Outcome.DEAD:
            digest = self._route.digest()
            earlier = self._death_routes.get(digest)
            if earlier is not None:
                same = "visits the same squares as" if self.death_rule == "squares" else "repeats the turns of"
                raise RepeatedDeath(f"attempt {game.attempt} dies on turn {game.turns} at ({game.row},{game.col}) "
                                    f"and {same} attempt {earlier}, which died the same way: every death must "
                                    "take a different route")
            self._death_routes[digest] = game.attempt
            self.deaths += 1
        else:
            self.winning_attempt = game.attempt
            self.winning_turns = game.turns


class _RouteCodes(dict):
    """Turn -> the bytes a route digest is made of. ``turns``: direction and water action
    (+0 and -0 both "no action"; fill stays fill); ``squares``: the direction only."""

    def __init__(self, squares: bool):
        super().__init__()
        self.squares = squares

    def __missing__(self, turn: Turn) -> bytes:
        direction, action, amount = turn
        if self.squares:
            code = direction.encode()
        elif action == FILL:
            code = f"{direction}f,".encode()
        elif amount == 0:
            code = f"{direction}0,".encode()
        else:
            code = f"{direction}{action[0]}{amount},".encode()
        self[turn] = code
        return code


def side_by_side(expected: list[bytes], printed: list[bytes], marked_row: int) -> str:
    width = max(len(expected[0]), len("expected"))
    lines = [f"{'expected':<{width}}   printed"]
    for row, (want, got) in enumerate(zip(expected, printed, strict=True)):
        mark = "  <- first difference" if row == marked_row else ""
        lines.append(f"{want.decode('latin-1'):<{width}}   {got.decode('latin-1')}{mark}")
    return "\n".join(lines)


def _show(byte: int) -> str:
    if 32 <= byte < 127:
        return repr(chr(byte))
    return f"byte 0x{byte:02x}"
