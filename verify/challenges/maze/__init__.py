"""Inception maze (King of the Hill): architects build mazes, solvers walk them in fog.

Rooms: ``model`` (maze, format, distances), ``fog`` (the solver's view),
``render`` (drawings), ``match`` (one walk, scores), ``roles`` (the entry's
``[maze.architect]`` / ``[maze.solver]`` tables), ``controller`` (runs the
programs through :mod:`verify.runner`), ``matchlog`` (JSON-lines logs and their
replay), ``tournament`` (every architect against every solver, leaderboards),
``check`` (``verify check`` of a maze entry), ``generate`` (a reference maze),
``cli`` (``verify koth maze``, ``verify maze show``, ``verify gen maze``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from verify.challenges.base import Challenge, StreamJudge, TestCase
from verify.errors import VerifyError


class MazeChallenge(Challenge):
    name = "maze"
    title = "Inception maze"
    scoring = "koth"

    def testcases(self, root: Path) -> list[TestCase]:
        """No fixed cases: mazes come from the architects (see ``verify koth maze``)."""
        return []

    def parse_options(self, entry_name: str, table: dict[str, Any], entry_dir: Path) -> Any:
        from verify.challenges.maze.roles import parse_roles
        return parse_roles(entry_name, table, entry_dir)

    def check_entry(self, entry: Any, limits: Any) -> list:
        """``verify check``: each declared role works (see ``check.py``)."""
        from verify.challenges.maze.check import check_entry
        return check_entry(entry, limits)

    def judge(self, options: Any, case: TestCase) -> StreamJudge:
        raise VerifyError("maze entries are not judged on cases; run the tournament: verify koth maze")


CHALLENGE = MazeChallenge()
