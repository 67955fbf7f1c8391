"""One solver walking one maze, step by step (pure: the caller runs the program).

A step: the solver is shown :meth:`Match.state` and answers one line. A line
that names one of the offered moves moves it there. Anything else -- not a
``row col`` pair, a cell not offered, a crash, a timeout -- is a *failed
step*: the solver stays, the step still counts, and the failure is recorded.
The walk ends on arrival or after ``size**3`` steps; a solver that has not
arrived by then is charged the full ``size**3``.

Scores (spec): architect = steps / max(dist(start, end), #walls); solver = the
inverse.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from verify.contests.contract import Reply
from verify.contests.maze.fog import FogOfWar
from verify.contests.maze.model import Cell, Maze, format_cell

#: After this many failed steps in a row the solver is abandoned for the maze
#: and charged the step limit: its state did not change in between, so a
#: deterministic solver would fail the same way until the limit (this only
#: saves time, e.g. size**3 timeouts of a hanging solver). 0 = never give up.
DEFAULT_PATIENCE = 20


def step_limit(size: int) -> int:
    return size ** 3


def architect_score(maze: Maze, steps: int) -> float:
    return steps / maze.score_denominator


def solver_score(maze: Maze, steps: int) -> float:
    return maze.score_denominator / steps


class BadAnswer(ValueError):
    """A solver's line that is not one of the offered moves; the message says why."""


def parse_answer(line: str, offered: list[Cell]) -> Cell:
    """The move a solver's line names. Surrounding blanks (and a CR) are ignored;
    the two numbers may be separated by any run of spaces or tabs."""
    parts = line.split()
    shown = line.strip()[:60]
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts):
        raise BadAnswer(f"answer {shown!r} is not 'row column'")
    cell = (int(parts[0]), int(parts[1]))
    if cell not in offered:
        choices = ",".join(format_cell(m) for m in offered)
        raise BadAnswer(f"answer {shown!r} is not one of the valid moves {choices}")
    return cell


@dataclass
class StepRecord:
    n: int
    at: Cell                       # where the solver is after the step
    answer: str | None
    failure: str | None = None     # set for a failed step

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"type": "step", "n": self.n, "at": list(self.at)}
        if self.answer is not None:
            record["answer"] = self.answer[:80]
        if self.failure:
            record["failure"] = self.failure
        return record


@dataclass
class MatchResult:
    steps: int                     # steps charged (the limit if not arrived)
    arrived: bool
    steps_taken: int               # steps actually played
    failed_steps: int
    architect_score: float
    solver_score: float
    ended: str                     # "arrived" | "step limit" | "gave up after N failed steps in a row"
    events: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"type": "result", "arrived": self.arrived, "steps": self.steps,
                "steps_taken": self.steps_taken, "failed_steps": self.failed_steps,
                "architect_score": self.architect_score, "solver_score": self.solver_score,
                "ended": self.ended}


class Match:
    """The state of one walk; :meth:`play` drives it with a reply function."""

    def __init__(self, maze: Maze, limit: int | None = None):
        self.maze = maze
        self.fog = FogOfWar(maze)
        self.limit = step_limit(maze.size) if limit is None else limit
        self.steps = 0
        self.failed_steps = 0
        self.failures_in_a_row = 0

    @property
    def position(self) -> Cell:
        return self.fog.position

    @property
    def arrived(self) -> bool:
        return self.fog.position == self.maze.end

    @property
    def over(self) -> bool:
        return self.arrived or self.steps >= self.limit

    def state(self) -> bytes:
        return self.fog.view()

    def apply(self, reply: Reply) -> StepRecord:
        """Play one step with the solver's reply to the current state."""
        if self.over:
            raise RuntimeError("the match is over")
        self.steps += 1
        failure = reply.failure
        if failure is None:
            moves, _, by_text = self.fog.here()
            cell = by_text.get(reply.line.strip()) if reply.line else None   # the usual exact answer
            try:
                self.fog.move_to(cell or parse_answer(reply.line or "", moves))
            except BadAnswer as error:
                failure = str(error)
        if failure is None:
            self.failures_in_a_row = 0
        else:
            self.failed_steps += 1
            self.failures_in_a_row += 1
        return StepRecord(self.steps, self.fog.position, reply.line, failure)

    def result(self, ended: str | None = None) -> MatchResult:
        arrived = self.arrived
        charged = self.steps if arrived else self.limit
        ended = ended or ("arrived" if arrived else "step limit")
        return MatchResult(charged, arrived, self.steps, self.failed_steps,
                           architect_score(self.maze, charged), solver_score(self.maze, charged), ended)

    def play(self, ask: Callable[[bytes], Reply], record: Callable[[dict[str, Any]], None] = lambda _: None,
             patience: int = DEFAULT_PATIENCE) -> MatchResult:
        """Ask for replies until arrival, the step limit, or ``patience`` failures in a row."""
        while not self.over:
            step = self.apply(ask(self.state()))
            record(step.to_json())
            if patience and self.failures_in_a_row >= patience and not self.over:
                ended = f"gave up after {patience} failed steps in a row"
                record({"type": "event", "step": self.steps, "event": ended})
                result = self.result(ended)
                record(result.to_json())
                return result
        result = self.result()
        record(result.to_json())
        return result
