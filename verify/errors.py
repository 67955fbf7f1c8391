"""Errors meant for people: each carries one clear line, and the CLI exits 2 with it."""


class VerifyError(Exception):
    """A bad input (map, entry.toml, option, missing interpreter): one line, exit code 2."""

    exit_code = 2

    def __str__(self) -> str:  # keep it to one line whatever the message holds
        return " ".join(super().__str__().split("\n"))


class InputError(VerifyError):
    """A malformed input file (map, puzzle, maze, output file given on the command line)."""


class EntryError(VerifyError):
    """A broken entry: entry.toml, its fields, its source file."""

    def __init__(self, entry: str, field: str | None, problem: str):
        self.entry, self.field, self.problem = entry, field, problem
        where = f"{entry}: {field}" if field else entry
        super().__init__(f"{where}: {problem}")
