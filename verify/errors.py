"""Errors meant for people: each carries one clear line, and the CLI exits 2 with it."""
from typing import Any

from verify.report_escape import visible


def quoted(value: Any, width: int = 40) -> str:
    """A value from a hostile input as a message quotes it: its repr (no raw control
    characters), cut to about ``width`` characters."""
    text = repr(value)
    return text if len(text) <= width else text[:width - 4] + "..." + text[-1:]


class VerifyError(Exception):
    """A bad input (map, entry.toml, option, missing interpreter): one line, exit code 2."""

    exit_code = 2

    def __str__(self) -> str:  # one line whatever the message holds, no control character raw
        return visible(" ".join(super().__str__().split("\n")))


class InputError(VerifyError):
    """A malformed input file (a case, a contest's file, an output given on the command line)."""


class EntryError(VerifyError):
    """A broken entry: entry.toml, its fields, its source file."""

    def __init__(self, entry: str, field: str | None, problem: str):
        self.entry, self.field, self.problem = entry, field, problem
        where = f"{entry}: {field}" if field else entry
        super().__init__(f"{where}: {problem}")


class JudgeFailure(VerifyError):
    """The judge's own failure (its sandbox cannot be made, or cannot start a program):
    never an entry's verdict; it stops the whole command (exit 2, one line with the fix)."""
