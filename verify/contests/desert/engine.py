"""The rules of one attempt at the desert crossing: pure, no I/O.

Modelled on python-chess: a :class:`Crossing` (the board) takes :class:`Turn`
objects (the moves) through :meth:`Crossing.push`, refuses an illegal one with a
precise :class:`IllegalTurn` subclass and leaves its state untouched when it does.

A turn, in the spec's order: 1. move one square; 2. consume one unit;
3. the water action (pick up n, drop n, or fill up). Decisions (see docs/desert.md):

- reaching E ends the game at once: the water action of the winning turn is not
  applied; when it is not a no-op it becomes a warning;
- the death check comes after step 3: arriving with 0 and picking up survives;
- pick up: first "more than the tile holds", then "more than CAPACITY carried";
- fill up takes ``min(CAPACITY - carried, tile)`` (S is infinite, so on S it fills
  up; elsewhere it takes what the tile holds; it never fails);
- dropping on S is allowed: the water goes back into the infinite well.

The rules' numbers (``CAPACITY``, ``TILE_LIMIT``, ``START_WATER``, the moves) come
from :mod:`.rules`, which the compiled replay loop reads too. The per-turn replay
lives in ONE place, :meth:`Crossing.play`; ``push`` is ``play`` of one turn.
"""
from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import NamedTuple

from verify.contests.desert.map import DesertMap, Square
from verify.contests.desert.rules import CAPACITY, DELTAS, DROP, FILL, PICK, START_WATER, TILE_LIMIT


class Turn(NamedTuple):
    """One turn: a direction (``U D L R``) and a water action (``pick``/``drop`` n units, or ``fill``)."""

    direction: str
    action: str = PICK
    amount: int = 0

    def __str__(self) -> str:
        return f"{self.direction}{describe_action(self.action, self.amount, sign=True)}"


def describe_action(action: str, amount: int, sign: bool = False) -> str:
    if action == FILL:
        return " fill" if sign else "fill up"
    if sign:
        return f"{'+' if action == PICK else '-'}{amount}"
    return f"{'pick up' if action == PICK else 'drop'} {amount}"


Frame = list[int]
"""A turn's state, for replays: ``[row, col, carried]`` after it, and when it changed the water on
its tile, also ``tile, before, after`` (the tile's flat index ``row * width + col``, its units
before and after the turn)."""


class Outcome(enum.StrEnum):
    ALIVE = "alive"
    DEAD = "dead"
    WON = "won"


# ---------------------------------------------------------------- errors, one per rule

class IllegalTurn(Exception):
    """A turn the rules refuse. ``turn`` is its 1-based number in the attempt, ``square``
    the traveller's square when the rule is broken (before the move for ``OffGrid``,
    after it otherwise), ``move`` the :class:`Turn` itself."""

    rule = "illegal turn"

    def __init__(self, attempt: int, turn: int, square: Square, move: Turn, **numbers: int):
        self.attempt, self.turn, self.square, self.move = attempt, turn, square, move
        self.numbers = numbers
        for name, value in numbers.items():
            setattr(self, name, value)
        super().__init__(self.message)

    @property
    def message(self) -> str:
        row, col = self.square
        return f"attempt {self.attempt}, turn {self.turn} at ({row},{col}): {self.explain()}"

    def explain(self) -> str:  # pragma: no cover - every subclass overrides it
        return self.rule

    def __str__(self) -> str:
        return self.message


class OffGrid(IllegalTurn):
    rule = "off the grid"

    def explain(self) -> str:
        return f"moving {self.move.direction} would leave the grid"


class PickupExceedsTile(IllegalTurn):
    rule = "pick up more than the tile holds"
    tile: int
    carried: int

    def explain(self) -> str:
        held = f"holds {self.tile} unit{'s' if self.tile != 1 else ''}" if self.tile else "holds no water"
        return f"pick up {self.move.amount} but the tile {held}"


class CarryOverFive(IllegalTurn):
    rule = f"carry more than {CAPACITY}"
    carried: int

    def explain(self) -> str:
        return (f"pick up {self.move.amount} would make {self.carried + self.move.amount} units carried "
                f"(at most {CAPACITY})")


class DropExceedsCarried(IllegalTurn):
    rule = "drop more than carried"
    carried: int

    def explain(self) -> str:
        return f"drop {self.move.amount} but only {self.carried} unit{'s' if self.carried != 1 else ''} carried"


class TileOverNine(IllegalTurn):
    rule = f"a tile above {TILE_LIMIT}"
    tile: int
    carried: int

    def explain(self) -> str:
        return (f"drop {self.move.amount} would leave {self.tile + self.move.amount} units on the tile "
                f"(at most {TILE_LIMIT})")


class GameOver(IllegalTurn):
    rule = "a turn after the game ended"
    ended_on: int

    def explain(self) -> str:
        how = "died" if self.ended_by == Outcome.DEAD else "reached E"
        return f"the traveller {how} on turn {self.ended_on}; no turn may follow"

    # ended_by is an Outcome, not a number: keep it out of ``numbers``
    def __init__(self, attempt: int, turn: int, square: Square, move: Turn, ended_by: Outcome, ended_on: int):
        self.ended_by = ended_by
        super().__init__(attempt, turn, square, move, ended_on=ended_on)


# ---------------------------------------------------------------- the board

# byte water + 10 * visited -> its character on the final map
_RENDER_TABLE = bytes(b".123456789#123456789".ljust(256, b"?"))


class Crossing:
    """One attempt: the traveller's square, the water carried and on every tile, the squares visited.

    ``water`` is flat, index ``row * width + col``; S's entry stays 0 (S is infinite).
    ``drawn`` counts the net units taken from S (the START_WATER it starts with, plus
    those picked up there, minus those dropped there),
    ``consumed`` the units drunk: water is conserved, ``initial + drawn == carried +
    on tiles + consumed``.
    """

    __slots__ = ("map", "attempt", "row", "col", "carried", "water", "visited", "turns",
                 "outcome", "ended_on", "consumed", "drawn", "warnings")

    def __init__(self, desert: DesertMap, attempt: int = 1):
        self.map = desert
        self.attempt = attempt
        self.row, self.col = desert.start
        self.carried = START_WATER
        self.water = desert.flat_water()
        self.visited = bytearray(desert.width * desert.height)
        self.visited[self.row * desert.width + self.col] = 1
        self.turns = 0
        self.outcome = Outcome.ALIVE
        self.ended_on = 0
        self.consumed = 0
        self.drawn = START_WATER   # the traveller starts full, from S
        self.warnings: list[str] = []

    @classmethod
    def from_state(cls, desert: DesertMap, *, position: Square, carried: int, water: Iterable[int],
                   visited: Iterable[Square] | bytes | bytearray, turns: int, attempt: int = 1) -> Crossing:
        """A crossing in a given state, as if the turns before had been played (to start mid-attempt).

        ``water`` is flat (row by row, S's entry ignored), ``visited`` either squares or flat
        0/1 flags. The outcome follows from the state (0 carried off E: dead; on E: won, on
        turn ``turns``). The units drunk are ``turns``; the units drawn from S the value that
        makes water balance.
        """
        game = cls(desert, attempt)
        size = desert.width * desert.height
        game.water = bytearray(water)
        if len(game.water) != size:
            raise ValueError(f"water has {len(game.water)} squares, the map {size}")
        game.water[desert.start[0] * desert.width + desert.start[1]] = 0
        if isinstance(visited, (bytes, bytearray)):
            game.visited = bytearray(1 if flag else 0 for flag in visited)
            if len(game.visited) != size:
                raise ValueError(f"visited has {len(game.visited)} squares, the map {size}")
        else:
            game.visited = bytearray(size)
            for row, col in visited:
                game.visited[row * desert.width + col] = 1
        game.row, game.col = position
        if not desert.contains(*position):
            raise ValueError(f"position {position} is off the map")
        game.visited[game.row * desert.width + game.col] = 1
        game.visited[desert.start[0] * desert.width + desert.start[1]] = 1
        if not 0 <= carried <= CAPACITY:
            raise ValueError(f"carried {carried} is not within 0..{CAPACITY}")
        game.carried = carried
        game.turns = turns
        game.consumed = turns
        game.drawn = carried + sum(game.water) + game.consumed - sum(desert.flat_water())
        if position == desert.end and turns > 0:
            game.outcome, game.ended_on = Outcome.WON, turns
        elif carried == 0:
            game.outcome, game.ended_on = Outcome.DEAD, turns
        return game

    # -------------------------------------------------------------- queries

    @property
    def position(self) -> Square:
        return (self.row, self.col)

    def tile(self, row: int, col: int) -> int:
        """Units on a square (0 for S, which is infinite, and for E)."""
        return self.water[row * self.map.width + col]

    def char(self, row: int, col: int) -> str:
        """The square as the final map shows it: S, E, the units left, ``#`` for a visited dry tile, else ``.``."""
        desert = self.map
        if (row, col) == desert.start:
            return "S"
        if (row, col) == desert.end:
            return "E"
        index = row * desert.width + col
        units = self.water[index]
        if units:
            return chr(48 + units)
        return "#" if self.visited[index] else "."

    def render(self) -> str:
        """The final map of the attempt as it must be printed (each line ending in a newline)."""
        return "".join("".join(self.char(r, c) for c in range(self.map.width)) + "\n"
                       for r in range(self.map.height))

    def render_bytes(self) -> bytes:
        """:meth:`render` as bytes, computed without a Python loop per square (maps are compared per attempt)."""
        desert = self.map
        size = desert.width * desert.height
        # water + 10 * visited, byte by byte: no carry (at most 19), then one table lookup per byte
        combined = (int.from_bytes(self.water, "big") + 10 * int.from_bytes(self.visited, "big")).to_bytes(size, "big")
        squares = bytearray(combined.translate(_RENDER_TABLE))
        squares[desert.start[0] * desert.width + desert.start[1]] = ord("S")
        squares[desert.end[0] * desert.width + desert.end[1]] = ord("E")
        width = desert.width
        return b"".join(bytes(squares[r * width:(r + 1) * width]) + b"\n" for r in range(desert.height))

    # -------------------------------------------------------------- moves

    def push(self, turn: Turn) -> None:
        """Play one turn, or raise the :class:`IllegalTurn` it breaks (state unchanged then)."""
        self.play((turn,))

    # one loop, no call per turn: a helper called per turn costs 13-20% of the turns per second
    def play(self, turns: Iterable[Turn], frames: list[Frame] | None = None) -> None:  # noqa: C901 (hot loop)
        """Play turns in order; stop at the first illegal one with its :class:`IllegalTurn`.

        The turns played before it stay played; the refused one changes nothing.
        With ``frames``, each turn played appends its :data:`Frame` (the state it leaves) there,
        for replays. This is the one implementation of a turn: keep it fast (it runs per turn
        of output).
        """
        desert = self.map
        width, height = desert.width, desert.height
        start_index = desert.start[0] * width + desert.start[1]
        end_index = desert.end[0] * width + desert.end[1]
        water, visited, deltas, alive = self.water, self.visited, DELTAS, Outcome.ALIVE
        row, col, carried, number = self.row, self.col, self.carried, self.turns
        drawn, outcome = self.drawn, self.outcome
        failure: IllegalTurn | None = None
        try:
            for turn in turns:
                direction, action, amount = turn
                if outcome is not alive:
                    failure = GameOver(self.attempt, number + 1, (row, col), turn, outcome, self.ended_on)
                    break
                step_row, step_col = deltas[direction]
                new_row, new_col = row + step_row, col + step_col
                if not (0 <= new_row < height and 0 <= new_col < width):
                    failure = OffGrid(self.attempt, number + 1, (row, col), turn)
                    break
                index = new_row * width + new_col
                left = carried - 1
                if index == end_index:
                    row, col, carried, number = new_row, new_col, left, number + 1
                    visited[index] = 1
                    outcome, self.ended_on = Outcome.WON, number
                    if action == FILL or amount:
                        self.warnings.append(
                            f"attempt {self.attempt}, turn {number} at ({row},{col}): the water action "
                            f"'{describe_action(action, amount)}' of the winning turn is not applied")
                    if frames is not None:
                        frames.append([row, col, left])
                    continue
                before = water[index]       # the tile's units as the traveller arrives
                on_start = index == start_index
                if action == PICK:
                    if not on_start:
                        tile = before
                        if amount > tile:
                            failure = PickupExceedsTile(self.attempt, number + 1, (new_row, new_col), turn,
                                                        tile=tile, carried=left)
                            break
                    if left + amount > CAPACITY:
                        failure = CarryOverFive(self.attempt, number + 1, (new_row, new_col), turn,
                                                carried=left)
                        break
                    if on_start:
                        drawn += amount
                    else:
                        water[index] = tile - amount
                    left += amount
                elif action == DROP:
                    if amount > left:
                        failure = DropExceedsCarried(self.attempt, number + 1, (new_row, new_col), turn,
                                                     carried=left)
                        break
                    if on_start:
                        drawn -= amount
                    else:
                        tile = before
                        if tile + amount > TILE_LIMIT:
                            failure = TileOverNine(self.attempt, number + 1, (new_row, new_col), turn,
                                                   tile=tile, carried=left)
                            break
                        water[index] = tile + amount
                    left -= amount
                elif action == FILL:
                    wanted = CAPACITY - left
                    if on_start:
                        drawn += wanted
                        left = CAPACITY
                    else:
                        taken = min(wanted, before)
                        water[index] = before - taken
                        left += taken
                else:
                    raise ValueError(f"unknown water action {action!r}")
                row, col, carried, number = new_row, new_col, left, number + 1
                visited[index] = 1
                if frames is not None:
                    after = water[index]
                    frames.append([row, col, left] if after == before else [row, col, left, index, before, after])
                if left == 0:
                    outcome, self.ended_on = Outcome.DEAD, number
        finally:
            self.consumed += number - self.turns
            self.row, self.col, self.carried, self.turns = row, col, carried, number
            self.drawn, self.outcome = drawn, outcome
        if failure is not None:
            raise failure
