"""Match logs: JSON lines written while a match is played, and their replay.

A match log holds, in order::

    {"type": "match", "architect": ..., "solver": ..., "size": 15, "seed": 1, "mode": "per-step", "step_limit": 3375}
    {"type": "maze", "text": "<the maze in the contest format>"}
    {"type": "step", "n": 1, "at": [r, c], "answer": "r c"}            # one per step
    {"type": "step", "n": 2, "at": [r, c], "answer": "xx", "failure": "why"}
    {"type": "event", "step": 40, "event": "..."}                      # e.g. gave up
    {"type": "result", "arrived": true, "steps": 143, ...}

An architect's log (one per maze it was asked for) holds a ``"type": "architect"``
record with the maze or the forfeit and its reason.
"""
from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO, TypeGuard

from verify.contests.maze.fog import FogOfWar
from verify.contests.maze.model import ANY_SIZE, Cell, Maze, MazeFormatError, parse_maze
from verify.contests.maze.render import draw
from verify.errors import InputError, quoted
from verify.files import input_stream
from verify.report_escape import one_line
from verify.sizes import size as size_text

# one encoder, built once: json.dumps with options builds a new one per call
_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


class LogWriter:
    """Appends JSON records to a file, one per line (``None`` path: records are dropped)."""

    def __init__(self, path: Path | None):
        self.path = path
        self._file: TextIO | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("w", encoding="utf-8")

    def __call__(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(_ENCODE(record) + "\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


MAX_LOG_BYTES = 64 << 20
"""The most a log given to ``verify maze show`` may hold: a 50x50 match (125,000 steps of
at most ~250 bytes) takes about 30 MiB."""
MAX_LOG_LINE = 4 << 20
"""The longest record: the maze record of a 1000x1000 maze takes about 2 MiB."""
MAX_EVENT_TEXT = 200


class LoggedStep(NamedTuple):
    """What the replay keeps of a step record: its number, the cell reached, why it failed."""

    n: int
    at: Cell
    failure: str | None = None


@dataclass
class ReplayedMatch:
    header: dict[str, Any]
    maze: Maze
    steps: list[LoggedStep] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def positions(self, upto: int | None = None) -> list[Cell]:
        """Where the solver stood: the start, then after each step up to ``upto``."""
        return [self.maze.start, *(step.at for step in self.steps[:upto])]

    def fog_after(self, upto: int | None = None) -> FogOfWar:
        fog = FogOfWar(self.maze)
        for cell in self.positions(upto)[1:]:
            fog.move_to(cell)
        return fog


def read_log(path: Path) -> ReplayedMatch | dict[str, Any]:
    """A match log as a :class:`ReplayedMatch`, or an architect log's record.

    Read line by line (``-``: standard input): at most ``MAX_LOG_BYTES``, lines of at most
    ``MAX_LOG_LINE``; each problem is one InputError line naming the line."""
    header: dict[str, Any] | None = None
    match: ReplayedMatch | None = None
    for number, record in _records(path):
        kind = record["type"]
        if kind == "architect":
            return record
        if kind == "match":
            header = record
        elif kind == "maze":
            match = ReplayedMatch(header or {}, _maze_of(path, number, record.get("text")))
        elif match is None:
            raise InputError(f"{path}: line {number}: a {quoted(kind)} record before the maze")
        elif kind == "step":
            at = record.get("at")
            if record.get("n") != len(match.steps) + 1 or not _is_cell(at, match.maze.size):
                raise InputError(f"{path}: line {number}: step record out of order or without a cell")
            failure = record.get("failure")
            match.steps.append(LoggedStep(record["n"], (at[0], at[1]),
                                          str(failure)[:MAX_EVENT_TEXT] if failure else None))
        elif kind == "event":
            match.events.append({"step": record.get("step"), "event": str(record.get("event"))[:MAX_EVENT_TEXT]})
        elif kind == "result":
            match.result = record
    if match is None:
        raise InputError(f"{path}: no maze in this log")
    return match


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each non-blank line of the log, read with bounded memory."""
    total = 0
    with input_stream(str(path), "log") as stream:
        for number in itertools.count(1):
            try:
                raw = stream.readline(MAX_LOG_LINE + 1)
            except OSError as error:
                raise InputError(f"{path}: cannot read the log: {error.strerror}") from None
            if not raw:
                return
            total += len(raw)
            if len(raw) > MAX_LOG_LINE:
                raise InputError(f"{path}: line {number} is longer than {size_text(MAX_LOG_LINE)}")
            if total > MAX_LOG_BYTES:
                raise InputError(f"{path}: the log is larger than {size_text(MAX_LOG_BYTES)} "
                                 "(the most a match log may hold)")
            if raw.strip():
                yield number, _record(path, number, raw)


def _record(path: Path, number: int, raw: bytes) -> dict[str, Any]:
    try:
        record = json.loads(raw.decode("utf-8"))
        if not isinstance(record, dict) or not isinstance(record["type"], str):
            raise TypeError
    except (ValueError, KeyError, TypeError, RecursionError):
        raise InputError(f"{path}: line {number}: not a match-log record") from None
    return record


def _maze_of(path: Path, number: int, text: Any) -> Maze:
    if not isinstance(text, str):
        raise InputError(f"{path}: line {number}: bad maze record: no maze text")
    try:
        return parse_maze(text, ANY_SIZE)
    except MazeFormatError as error:
        raise InputError(f"{path}: line {number}: bad maze record: {error}") from None


def _is_cell(value: Any, size: int) -> TypeGuard[list[int]]:
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(x, int) and 0 <= x < size for x in value))


def show(path: Path, step: int | None = None, fog: bool = False) -> str:
    """The drawing of a logged match at ``step`` (default: the end), with a summary.
    Text from the log (names, failures, events) is shown escaped (:func:`visible`)."""
    replayed = read_log(path)
    if isinstance(replayed, dict):
        return _show_architect(path, replayed)
    total = len(replayed.steps)
    if step is not None and not 0 <= step <= total:
        raise InputError(f"{path}: --step {step} is outside 0..{total}")
    upto = total if step is None else step
    header = replayed.header
    lines = [one_line(f"{header.get('solver', '?')} ({header.get('mode', '?')}) in {header.get('architect', '?')}'s "
                      f"maze, size {replayed.maze.size}, seed {header.get('seed', '?')}: step {upto} of {total}")]
    positions = replayed.positions(upto)
    if fog:
        view = replayed.fog_after(upto)
        lines.append(draw(replayed.maze, horizontal=view.horizontal, vertical=view.vertical,
                          position=positions[-1], visited=positions).rstrip("\n"))
    else:
        lines.append(draw(replayed.maze, position=positions[-1], visited=positions).rstrip("\n"))
    failures = [s for s in replayed.steps[:upto] if s.failure]
    if failures:
        lines.append(f"failed steps so far: {len(failures)}; last: step {failures[-1].n}: "
                     f"{one_line(failures[-1].failure or '')}")
    for event in replayed.events:
        when = event.get("step")
        if not isinstance(when, int) or when <= upto:
            lines.append(f"step {one_line(str(when))}: {one_line(event['event'])}")
    if replayed.result and upto == total:
        r = replayed.result
        lines.append(f"result: {one_line(str(r.get('ended')))}; {one_line(str(r.get('steps')))} steps charged; "
                     f"architect score {_score(r.get('architect_score'))}, "
                     f"solver score {_score(r.get('solver_score'))}")
    return "\n".join(lines) + "\n"


def _show_architect(path: Path, record: dict[str, Any]) -> str:
    where = one_line(f"architect log: size {record.get('size')}, seed {record.get('seed')}")
    if "maze" in record:
        maze = _maze_of(path, 1, record["maze"])
        return f"{where}: valid maze, {maze.wall_count} walls\n{draw(maze)}"
    began = quoted(str(record.get("output", "")), 200)
    return f"{where}: forfeit: {one_line(str(record.get('forfeit')))}\noutput began: {one_line(began)}\n"


def _score(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, (int, float)) else "?"
