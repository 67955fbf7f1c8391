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

from verify.errors import EntryError, VerifyError
from verify.files import MAX_SOURCE_BYTES, FileRefused, check_entry_file

ROLE_KEYS = {"architect": {"language", "source", "flags"},
             "solver": {"language", "source", "flags", "persistent"}}


@dataclass(frozen=True)
class MazeRoles:
    """What an entry brings to the tournament (at least one role)."""

    architect: Any | None = None      # verify.runner.Program
    solver: Any | None = None         # verify.runner.Program
    persistent: bool = False          # the solver's mode


def _program(entry: str, role: str, table: Any, entry_dir: Path) -> tuple[Any, bool]:
    from verify.runner import Program
    from verify.runner.languages import get_language

    where = f"maze.{role}"
    if not isinstance(table, dict):
        raise EntryError(entry, where, "must be a table")
    unknown = set(table) - ROLE_KEYS[role]
    if unknown:
        raise EntryError(entry, f"{where}.{sorted(unknown)[0]}",
                         f"unknown key (known: {', '.join(sorted(ROLE_KEYS[role]))})")
    for key in ("language", "source"):
        if not isinstance(table.get(key), str) or not table[key]:
            raise EntryError(entry, f"{where}.{key}", "missing (a non-empty string)")
    try:
        get_language(table["language"])
    except VerifyError as error:
        raise EntryError(entry, f"{where}.language", str(error)) from None
    try:
        source = check_entry_file(entry_dir, table["source"], MAX_SOURCE_BYTES)
    except FileRefused as error:
        raise EntryError(entry, f"{where}.source", str(error)) from None
    flags = table.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise EntryError(entry, f"{where}.flags", "must be a list of strings")
    persistent = table.get("persistent", False)
    if not isinstance(persistent, bool):
        raise EntryError(entry, f"{where}.persistent", "must be true or false")
    return Program(table["language"], source, tuple(flags)), persistent


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
