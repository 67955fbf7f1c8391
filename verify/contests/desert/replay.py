"""The desert replay: the turns of an output, bounded, for the replay page and the SVG.

The rules are the engine's: the kept output is replayed with the exact path
(:class:`Transcript`) through a :class:`Crossing` that plays every turn (its own loop, its
own verdicts) and hands back the frame of each turn it is asked to keep (``play(turns,
frames)``). What is kept (see docs/site.md):

- the output's head and tail (what the site captured); the attempts that start in the tail
  are replayed from the input map (every attempt starts afresh), the first one after the
  first map block found there;
- of each attempt, its first ``EDGE_TURNS`` and last ``EDGE_TURNS`` turns, the state
  (square, water carried, water on the tiles, squares visited) where each kept run
  starts, and how many turns it has in all;
- at most ``MAX_TURNS`` turns in all from each end of the output, ``MAX_ATTEMPTS`` attempts
  listed.

A turn is the engine's :data:`~verify.contests.desert.engine.Frame`: ``[row, col, carried]``,
or ``[row, col, carried, tile, before, after]`` when it changed the water on a tile.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from verify.contests.contract import Captured
from verify.contests.desert.engine import Crossing, Frame, IllegalTurn, Turn
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import MAP_ROW_CHARACTERS, STANDARD, Notation
from verify.contests.desert.rules import DELTAS
from verify.contests.desert.transcript import IllegalTurnError, Transcript, TranscriptError, WrongMap

EDGE_TURNS = 2000
MAX_TURNS = 10_000
MAX_ATTEMPTS = 2000        # listed on a page
MAX_SQUARES = 40_000        # maps with more squares get the summary, not the grid
MAP_BYTES = frozenset(MAP_ROW_CHARACTERS)


@dataclass
class _Attempt:
    number: int
    head: list[list[int]] = field(default_factory=list)
    tail: deque[list[int]] = field(default_factory=deque)
    tail_before: tuple[int, int, int] = (0, 0, 0)     # (row, col, carried) before the tail's first turn
    turns: int = 0
    outcome: str = "alive"
    failure: dict[str, Any] | None = None
    first_visit: dict[int, int] = field(default_factory=dict)
    game: Crossing | None = None
    lost: bool = False          # the turn budget ran out: the tail does not reach the end

    @property
    def kept(self) -> int:
        return len(self.head) + len(self.tail)


class _Budget:
    def __init__(self, turns: int):
        self.left = turns


class _RecordingCrossing(Crossing):
    """A crossing that notes the turns it keeps. The engine plays every turn (in runs, its own
    loop: the verdicts are its own) and gives the frames of the turns kept."""

    __slots__ = ("record", "budget")
    record: _Attempt
    budget: _Budget

    def play(self, turns: Any, frames: list[Frame] | None = None) -> None:
        # the transcript passes no frames: this crossing asks the engine for those it keeps
        turns = list(turns)
        record = self.record
        if self.budget.left <= 0:       # enough turns kept: the rest are played, counted, not noted
            try:
                super().play(turns)
            finally:
                record.lost = record.lost or bool(turns)
                record.turns = self.turns
            return
        # past the attempt's first turns only its last EDGE_TURNS are kept: the turns before
        # those are played in one go, not noted
        noted = min(len(turns), max(0, EDGE_TURNS - len(record.head)) if not record.tail else 0)
        bulk = max(0, len(turns) - noted - EDGE_TURNS)
        if noted:
            self._note(turns[:noted])
        if bulk:
            self._bulk(turns[noted:noted + bulk])
        self._note(turns[noted + bulk:])

    def _bulk(self, turns: list[Any]) -> None:
        record = self.record
        visited_before = bytes(self.visited)
        try:
            super().play(turns)
        finally:
            record.turns = self.turns
            self.budget.left += len(record.tail)
            record.tail.clear()
            first_visit = record.first_visit
            for index, flag in enumerate(self.visited):
                if flag and not visited_before[index]:
                    first_visit.setdefault(index, self.turns)

    def _note(self, turns: list[Any]) -> None:
        before = (self.row, self.col, self.carried)
        frames: list[Frame] = []
        try:
            super().play(turns, frames)
        finally:
            self._keep(frames, before)

    def _keep(self, frames: list[list[int]], before: tuple[int, int, int]) -> None:
        """Note ``frames``, played from ``before``: the attempt's first ones in its head, then
        its last EDGE_TURNS in its tail, within the budget."""
        record, budget, tail = self.record, self.budget, self.record.tail
        width = self.map.width
        first_visit = record.first_visit
        number = record.turns
        for at in frames:
            first_visit.setdefault(at[0] * width + at[1], number + 1)
            number += 1
        record.turns = number
        head = min(len(frames), EDGE_TURNS - len(record.head), budget.left) if not tail else 0
        if head > 0:
            record.head += frames[:head]
            budget.left -= head
            frames = frames[head:]
        if not frames:
            return
        if not tail:
            record.tail_before = _at(record.head[-1]) if head else before
        room = max(0, min(len(frames), EDGE_TURNS - len(tail), budget.left))
        budget.left -= room
        # a full tail slides: its oldest turns give way to the newest; else past the budget
        # the turns are lost (the tail does not reach the attempt's end)
        slide = len(tail) + room >= EDGE_TURNS
        if len(frames) > room and not slide:
            record.lost = True
            frames = frames[:room]
        tail.extend(frames)
        if slide and len(tail) > EDGE_TURNS:
            dropped = len(tail) - EDGE_TURNS
            for _ in range(dropped - 1):
                tail.popleft()
            record.tail_before = _at(tail.popleft())


def _at(frame: list[int]) -> tuple[int, int, int]:
    return frame[0], frame[1], frame[2]


class _RecordingTranscript(Transcript):
    """The exact transcript, its attempts played on recording crossings."""

    def __init__(self, desert: DesertMap, notation: Notation, order: str, deaths: str, budget: _Budget):
        super().__init__(desert, notation, order, deaths)
        self.records: list[_Attempt] = []
        self.budget = budget

    def _new_attempt(self) -> Crossing:
        plain = super()._new_attempt()
        game = _RecordingCrossing(self.map, plain.attempt)
        game.record = _Attempt(plain.attempt, game=game)
        game.budget = self.budget
        game.record.first_visit[self.map.start[0] * self.map.width + self.map.start[1]] = 0
        self.records.append(game.record)
        self._game = game
        return game

    def _end_attempt(self, printed: list[bytes], line: int) -> None:
        game = self._game
        super()._end_attempt(printed, line)
        if isinstance(game, _RecordingCrossing):
            game.record.outcome = str(game.outcome)


def _replay(desert: DesertMap, notation: Notation, order: str, deaths: str, data: bytes, final: bool,
            budget: _Budget) -> tuple[_RecordingTranscript, list[_Attempt], str | None]:
    """Replay ``data``; the attempts noted, the transcript, and why it stopped early (or None)."""
    transcript = _RecordingTranscript(desert, notation, order, deaths, budget)
    stopped = None
    try:
        transcript.feed(data)
        if final:
            transcript.finish()
    except TranscriptError as failure:
        stopped = failure.message
        record = transcript.records[-1] if transcript.records else None
        if record is not None:
            record.outcome = "rejected"
            square = None
            if isinstance(failure, IllegalTurnError):
                square = list(failure.error.square)
                record.failure = {"turn": failure.error.turn, "square": square, "message": failure.message}
            elif isinstance(failure, WrongMap):
                record.failure = {"turn": record.turns, "square": list(failure.square), "message": failure.message}
            else:
                record.failure = {"turn": record.turns, "square": None, "message": failure.message}
    return transcript, transcript.records, stopped


def _is_row(line: bytes, desert: DesertMap, index: int, expected: list[bytes]) -> bool:
    line = line.rstrip(b" \t\r")
    if len(line) != desert.width or not set(line) <= MAP_BYTES:
        return False
    want = expected[index]
    return all((line[c] in b"SE") == (want[c] in b"SE") and (want[c] not in b"SE" or line[c] == want[c])
               for c in range(desert.width))


def attempt_start_in(data: bytes, desert: DesertMap, order: str) -> int | None:
    """Where the first attempt starting inside ``data`` begins (``data`` may start mid-line), or None:
    after a whole map block (moves-first), or at one (map-first)."""
    expected = desert.row_bytes()
    first = data.find(b"\n")
    if first < 0:
        return None
    shaped = re.compile(rb"^[" + re.escape(MAP_ROW_CHARACTERS) + rb"]{%d}[ \t\r]*$" % desert.width, re.M)
    run, run_start, previous_end = 0, 0, -1
    for found in shaped.finditer(data, first + 1):
        if found.end() >= len(data):            # a row needs its newline
            break
        if found.start() != previous_end + 1 or not _is_row(found.group(), desert, run % desert.height, expected):
            run = 0
        if _is_row(found.group(), desert, run % desert.height, expected):
            if run == 0:
                run_start = found.start()
            run += 1
            if run == desert.height:
                return run_start if order == "map-first" else found.end() + 1
        previous_end = found.end()
    return None


def _final_block(data: bytes, desert: DesertMap) -> tuple[int, list[bytes]] | None:
    """Where the map block that ends ``data`` starts, and its rows; None when ``data`` does not end
    with one."""
    lines = data.rstrip(b"\n").split(b"\n")
    if len(lines) <= desert.height:
        return None
    rows = [line.rstrip(b" \t\r") for line in lines[-desert.height:]]
    expected = desert.row_bytes()
    if not all(_is_row(row, desert, index, expected) for index, row in enumerate(rows)):
        return None
    start = len(b"\n".join(lines[:-desert.height])) + 1
    return start, rows


def won_ending(desert: DesertMap, notation: Notation, tail: bytes) -> dict[str, Any] | None:
    """The last turns of a winning attempt cut from the head, replayed backwards from the end.

    The output ends with the winning attempt's final map, which the judge found right: the water
    on every tile at the end, and the traveller on E. Undoing the turns kept in ``tail`` one by one
    gives the square and the tiles before them. The water carried is known up to one constant; the
    limits (0 to 5 carried, alive until the last turn) fix it, else the least that fits is shown
    and a note says so. From that state the engine plays the turns again and gives their frames;
    it must reach E with the final map's water. None when the tail cannot be read this way (a
    fill-up turn, a turn that leaves the grid, text that is not turns, an end the engine does not
    reach)."""
    read = _kept_turns(desert, notation, tail)
    if read is None:
        return None
    turns, rows = read
    water, visited = _final_squares(desert, rows)
    final_water = bytes(water)
    undone = _undo(desert, turns, water)
    if undone is None:
        return None
    at, relative, lows, highs = undone
    # the carried amount c at the end: 0 <= c + r <= 5 at every kept turn; alive (> 0) before the last
    least = max(-min(lows), 1 - min(lows[1:]) if len(lows) > 1 else 0, 0)
    most = 5 - max(highs)
    if least > most:            # no amount fits: these were not the turns the judge read
        return None
    opening = (at[0], at[1], relative + least)      # the state before the first turn kept
    game = Crossing.from_state(desert, position=at, carried=opening[2], water=water, visited=bytes(len(water)),
                               turns=0)
    frames: list[Frame] = []
    try:
        game.play(turns, frames)
    except IllegalTurn:         # not the turns the judge read: the end is not shown
        return None
    if game.position != desert.end or bytes(game.water) != final_water:
        return None
    return {"state": _state(desert, opening, water, visited), "turns": frames, "exact_carried": least == most}


def _kept_turns(desert: DesertMap, notation: Notation, tail: bytes) -> tuple[list[Turn], list[bytes]] | None:
    """The last EDGE_TURNS turns of ``tail`` (after its first, cut, line) and the rows of the
    final map after them; None when the tail holds no such turns."""
    block = _final_block(tail, desert)
    first = tail.find(b"\n")
    if block is None or first < 0 or first + 1 >= block[0]:
        return None
    start, rows = block
    try:
        turns, _ = notation.tokenizer().tokenize(tail[first + 1:start], 0, True)
    except Exception:           # not turns from here: the end is not shown
        return None
    turns = turns[-EDGE_TURNS:]
    if not turns:
        return None
    return turns, rows


def _final_squares(desert: DesertMap, rows: list[bytes]) -> tuple[bytearray, list[int]]:
    """The water on each square of the final map (flat), and its visited squares' indexes."""
    width = desert.width
    water = bytearray(width * desert.height)
    visited = []
    for r, row in enumerate(rows):
        for c, byte in enumerate(row):
            if 49 <= byte <= 57:
                water[r * width + c] = byte - 48
            elif byte == ord("#"):
                visited.append(r * width + c)
    return water, visited


def _undo(desert: DesertMap, turns: list[Turn],
          water: bytearray) -> tuple[tuple[int, int], int, list[int], list[int]] | None:
    """Undo ``turns`` backwards from E, putting ``water`` back as it was before them: the
    square before the first, the water carried then less the unknown carried at the end, and
    that relative amount before each turn and at the end (lows and highs, for the limits);
    None when a turn cannot be undone (not a pick-up or a drop, water out of 0..9, off the map)."""
    width = desert.width
    start_index = desert.start[0] * width + desert.start[1]
    at = desert.end
    relative = 0          # carried after each turn, less the unknown carried at the end
    lows, highs = [], []
    for number, turn in enumerate(reversed(turns)):
        step = DELTAS.get(turn.direction)
        if step is None or turn.action not in ("pick", "drop"):
            return None
        index = at[0] * width + at[1]
        lows.append(relative)
        highs.append(relative)
        if number > 0 and index != start_index:     # the winning turn's water action is not applied
            after = water[index]
            before = after + turn.amount if turn.action == "pick" else after - turn.amount
            if not 0 <= before <= 9:
                return None
            water[index] = before
        if number > 0:
            relative += -turn.amount if turn.action == "pick" else turn.amount
        relative += 1
        at = (at[0] - step[0], at[1] - step[1])
        if not desert.contains(*at):
            return None
    lows.append(relative)
    highs.append(relative)
    return at, relative, lows, highs


def _state(desert: DesertMap, at: tuple[int, int, int], water: bytearray, visited: list[int]) -> dict[str, Any]:
    """Where a kept run of turns starts. ``water`` and ``visited`` are one character a square
    (the units on it; 1 for visited), bounded by the map; empty for a map too big to draw."""
    squares = desert.width * desert.height
    if squares > MAX_SQUARES:
        return {"at": [at[0], at[1]], "carried": at[2], "water": "", "visited": ""}
    flags = bytearray(b"0" * squares)
    for index in visited:
        flags[index] = ord("1")
    return {"at": [at[0], at[1]], "carried": at[2], "water": bytes(48 + w for w in water).decode(),
            "visited": flags.decode()}


def _attempt_json(desert: DesertMap, record: _Attempt, offset: int) -> dict[str, Any]:
    start = desert.start
    sections = [{"first": 1, "state": {"at": list(start), "carried": 5, "water": "", "visited": ""},
                 "turns": record.head}]
    if record.tail and not record.lost and record.game is not None:
        first = record.turns - len(record.tail) + 1
        # the water where the kept end starts: the attempt's last state, the kept turns undone
        water = bytearray(record.game.water)
        for entry in reversed(record.tail):
            if len(entry) > 3:
                water[entry[3]] = entry[4]
        visited = sorted(i for i, turn in record.first_visit.items() if 0 < turn < first)
        before = record.tail_before
        sections.append({"first": first, "state": _state(desert, before, water, visited),
                         "turns": list(record.tail)})
    return {"number": record.number + offset, "outcome": record.outcome, "turns": record.turns,
            "sections": sections, "failure": record.failure}


def desert_replay(desert: DesertMap, capture: Captured, verdict_stats: dict[str, Any],
                  notation: Notation = STANDARD, order: str = "moves-first",
                  deaths: str = "turns") -> dict[str, Any]:
    """The bounded replay of the output kept in ``capture`` (see the module's notes)."""
    notes: list[str] = []
    output = capture.output()
    head_budget, tail_budget = _Budget(MAX_TURNS), _Budget(MAX_TURNS)
    if output is not None:
        _, records, _ = _replay(desert, notation, order, deaths, output, True, head_budget)
        attempts = [_attempt_json(desert, r, 0) for r in records]
    else:
        _, records, _ = _replay(desert, notation, order, deaths, bytes(capture.head), False, head_budget)
        if records and records[-1].outcome == "alive":
            records[-1].outcome = "cut"
        attempts = [_attempt_json(desert, r, 0) for r in records]
        tail = capture.tail
        start = attempt_start_in(tail, desert, order)
        winner = verdict_stats.get("attempts")
        if (order == "moves-first" and attempts and attempts[-1]["outcome"] == "cut"
                and winner == attempts[-1]["number"] and verdict_stats.get("winning_turns")):
            # the winning attempt runs from the head to the end of the output: its end, backwards
            ending = won_ending(desert, notation, tail)
            if ending is None:
                notes.append("the end of the winning attempt could not be replayed from the last bytes")
            else:
                last = attempts[-1]
                last["outcome"], last["turns"] = "won", int(verdict_stats["winning_turns"])
                last["sections"].append({"first": last["turns"] - len(ending["turns"]) + 1,
                                         "state": ending["state"], "turns": ending["turns"]})
                if not ending["exact_carried"]:
                    notes.append("in the last turns of the winning attempt the water carried is the least "
                                 "amount the rules allow (the end of the output does not fix it)")
                notes.append(f"the output is {capture.total:,} bytes: its first {len(capture.head):,} and last "
                             f"{len(tail):,} bytes are replayed")
                return _replay_json(desert, attempts, notes, capture)
        if start is None:
            notes.append(f"the last {len(tail):,} bytes of the output hold no whole attempt: "
                         "the end of the output is not replayed")
        else:
            try:
                transcript, tail_records, _ = _replay(desert, notation, order, deaths, tail[start:], True,
                                                      tail_budget)
            except Exception:      # a boundary guessed wrong: the tail is for show only, never a verdict
                tail_records = []
            completed = sum(1 for r in tail_records if r.outcome in ("dead", "won"))
            offset = max(0, int(verdict_stats.get("attempts", completed)) - completed)
            tail_attempts = [_attempt_json(desert, r, offset) for r in tail_records]
            skipped = (tail_attempts[0]["number"] - 1 - len(records) + (1 if records else 0)
                       if tail_attempts else 0)
            if skipped > 0:
                notes.append(f"{skipped:,} attempts in the middle of the output are not shown")
            attempts += [a for a in tail_attempts if a["number"] > (attempts[-1]["number"] if attempts else 0)]
        notes.append(f"the output is {capture.total:,} bytes: its first {len(capture.head):,} and last "
                     f"{len(tail):,} bytes are replayed")
    return _replay_json(desert, attempts, notes, capture)


def _replay_json(desert: DesertMap, attempts: list[dict[str, Any]], notes: list[str],
                 capture: Captured) -> dict[str, Any]:
    if len(attempts) > MAX_ATTEMPTS:        # thousands of tiny attempts: the first and the last listed
        half = MAX_ATTEMPTS // 2
        notes.append(f"{len(attempts) - MAX_ATTEMPTS:,} of the {len(attempts):,} attempts read are not listed "
                     f"(the first and the last {half:,} are)")
        attempts = attempts[:half] + attempts[-half:]
    if any(a["turns"] > sum(len(s["turns"]) for s in a["sections"]) for a in attempts) and not any(
            "first and the last" in note for note in notes):
        notes.append(f"of a long attempt, the first and the last {EDGE_TURNS:,} turns are shown")
    squares = desert.width * desert.height
    return {"width": desert.width, "height": desert.height,
            "rows": desert.text().splitlines() if squares <= MAX_SQUARES else None,
            "start": list(desert.start), "end": list(desert.end), "attempts": attempts, "notes": notes,
            "total_bytes": capture.total}


__all__ = ["EDGE_TURNS", "MAX_TURNS", "attempt_start_in", "desert_replay"]
