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

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from verify.challenges.maze.fog import FogOfWar
from verify.challenges.maze.model import ANY_SIZE, Cell, Maze, MazeFormatError, parse_maze
from verify.challenges.maze.render import draw
from verify.errors import InputError


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

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class ReplayedMatch:
    header: dict[str, Any]
    maze: Maze
    steps: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None

    def positions(self, upto: int | None = None) -> list[Cell]:
        """Where the solver stood: the start, then after each step up to ``upto``."""
        cells = [self.maze.start]
        for record in self.steps[:upto]:
            cells.append(tuple(record["at"]))
        return cells

    def fog_after(self, upto: int | None = None) -> FogOfWar:
        fog = FogOfWar(self.maze)
        for cell in self.positions(upto)[1:]:
            fog.move_to(cell)
        return fog


def read_log(path: Path) -> ReplayedMatch | dict[str, Any]:
    """A match log as a :class:`ReplayedMatch`, or an architect log's record."""
    header: dict[str, Any] | None = None
    maze: Maze | None = None
    match: ReplayedMatch | None = None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InputError(f"{path}: cannot read the log: {error.strerror or error}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            kind = record["type"]
        except (ValueError, KeyError, TypeError):
            raise InputError(f"{path}: line {number}: not a match-log record") from None
        if kind == "architect":
            return record
        if kind == "match":
            header = record
        elif kind == "maze":
            try:
                maze = parse_maze(record["text"], ANY_SIZE)
            except (MazeFormatError, KeyError, TypeError) as error:
                raise InputError(f"{path}: line {number}: bad maze record: {error}") from None
            match = ReplayedMatch(header or {}, maze)
        elif match is None:
            raise InputError(f"{path}: line {number}: a {kind!r} record before the maze")
        elif kind == "step":
            if record.get("n") != len(match.steps) + 1 or not _is_cell(record.get("at"), maze.size):
                raise InputError(f"{path}: line {number}: step record out of order or without a cell")
            match.steps.append(record)
        elif kind == "event":
            match.events.append(record)
        elif kind == "result":
            match.result = record
    if match is None:
        raise InputError(f"{path}: no maze in this log")
    return match


def _is_cell(value: Any, size: int) -> bool:
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(x, int) and 0 <= x < size for x in value))


def show(path: Path, step: int | None = None, fog: bool = False) -> str:
    """The drawing of a logged match at ``step`` (default: the end), with a summary."""
    replayed = read_log(path)
    if isinstance(replayed, dict):
        where = f"architect log: size {replayed.get('size')}, seed {replayed.get('seed')}"
        if "maze" in replayed:
            maze = parse_maze(replayed["maze"], ANY_SIZE)
            return f"{where}: valid maze, {maze.wall_count} walls\n{draw(maze)}"
        return f"{where}: forfeit: {replayed.get('forfeit')}\noutput began: {replayed.get('output', '')!r}\n"
    total = len(replayed.steps)
    if step is not None and not 0 <= step <= total:
        raise InputError(f"{path}: --step {step} is outside 0..{total}")
    upto = total if step is None else step
    header = replayed.header
    lines = [f"{header.get('solver', '?')} ({header.get('mode', '?')}) in {header.get('architect', '?')}'s "
             f"maze, size {replayed.maze.size}, seed {header.get('seed', '?')}: step {upto} of {total}"]
    positions = replayed.positions(upto)
    if fog:
        view = replayed.fog_after(upto)
        lines.append(draw(replayed.maze, horizontal=view.horizontal, vertical=view.vertical,
                          position=positions[-1], visited=positions).rstrip("\n"))
    else:
        lines.append(draw(replayed.maze, position=positions[-1], visited=positions).rstrip("\n"))
    failures = [s for s in replayed.steps[:upto] if s.get("failure")]
    if failures:
        lines.append(f"failed steps so far: {len(failures)}; last: step {failures[-1]['n']}: {failures[-1]['failure']}")
    for event in replayed.events:
        if event.get("step", 0) <= upto:
            lines.append(f"step {event.get('step')}: {event.get('event')}")
    if replayed.result and upto == total:
        r = replayed.result
        lines.append(f"result: {r.get('ended')}; {r.get('steps')} steps charged; "
                     f"architect score {r.get('architect_score', 0):.4f}, solver score {r.get('solver_score', 0):.4f}")
    return "\n".join(lines) + "\n"
