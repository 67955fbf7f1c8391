"""An entry's maze section: ``[maze.architect]`` and/or ``[maze.solver]``.

    [maze.architect]
    language = "c"            # key of verify/runner/languages.toml
    source = "architect.c"    # relative to the entry folder
    flags = []                # optional interpreter flags

    [maze.solver]
    language = "python"
    source = "solver.py"
    persistent = false        # true: one process per maze, reading state after state
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verify.errors import EntryError
from verify.programs import entry_program
from verify.runner import Program

ROLE_KEYS = {"architect": {"language", "source", "flags"},
             "solver": {"language", "source", "flags", "persistent"}}


@dataclass(frozen=True)
class MazeRoles:
    """What an entry brings to the tournament (at least one role)."""

    architect: Program | None = None
    solver: Program | None = None
    persistent: bool = False          # the solver's mode


def _program(entry: str, role: str, table: Any, entry_dir: Path) -> tuple[Program, bool]:
    where = f"maze.{role}"
    if not isinstance(table, dict):
        raise EntryError(entry, where, "must be a table")
    unknown = set(table) - ROLE_KEYS[role]
    if unknown:
        raise EntryError(entry, f"{where}.{sorted(unknown)[0]}",
                         f"unknown key (known: {', '.join(sorted(ROLE_KEYS[role]))})")
    persistent = table.get("persistent", False)
    if not isinstance(persistent, bool):
        raise EntryError(entry, f"{where}.persistent", "must be true or false")
    program = entry_program(entry, f"{where}.", table.get("language"), table.get("source"),
                            table.get("flags", []), entry_dir)
    return program, persistent


def parse_roles(entry: str, table: dict[str, Any], entry_dir: Path) -> MazeRoles:
    """Validate the ``[maze]`` table; raise EntryError naming the field."""
    unknown = set(table) - set(ROLE_KEYS)
    if unknown:
        raise EntryError(entry, f"maze.{sorted(unknown)[0]}", "unknown table (known: architect, solver)")
    if not table:
        raise EntryError(entry, "maze", "declares neither [maze.architect] nor [maze.solver]")
    architect = solver = None
    persistent = False
    if "architect" in table:
        architect, _ = _program(entry, "architect", table["architect"], entry_dir)
    if "solver" in table:
        solver, persistent = _program(entry, "solver", table["solver"], entry_dir)
    return MazeRoles(architect, solver, persistent)
