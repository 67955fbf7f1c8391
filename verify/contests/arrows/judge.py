"""Judging what an entry printed: a stream of text lines becomes a board, then the checker.

Memory is bounded by the board: complete lines are parsed as they arrive, and a
line longer than any row of this board could be is a presentation error at once.

What is accepted (decisions, see docs/arrows.md): the board's rows, cells
separated by spaces, each cell its number directly followed by its arrow in
the entry's declared names (nothing for the last cell). The size line may be
printed first or left out. Runs of spaces, trailing spaces, CR LF line ends and
blank lines are tolerated; anything else is a presentation error.
"""
from __future__ import annotations

import re

from verify.contests.arrows.checker import first_error
from verify.contests.arrows.model import CELL_PATTERN, NO_ARROW, NOTATIONS, Puzzle
from verify.verdict import Status, Verdict

MAX_BLANK_LINES = 1000  # tolerated, but an endless stream of them is garbage


class ArrowsJudge:
    """A StreamJudge for one run on one puzzle (see verify.contests.contract.StreamJudge)."""

    def __init__(self, puzzle: Puzzle, notation: str = "english"):
        self.puzzle = puzzle
        self.notation = notation
        self.directions = {name: index for index, name in enumerate(NOTATIONS[notation])}
        digits = len(str(puzzle.size))
        # the longest sensible row: every cell a full number and a two-letter arrow, padded generously
        self.max_line = puzzle.cols * (digits + 8) + 64
        self.pending = b""
        self.line_no = 0
        self.seen_content = False
        self.arrows: list[int] = []
        self.numbers: list[int] = []
        self.rows_read = 0
        self.blank_lines = 0
        self.failed: Verdict | None = None

    # ----- StreamJudge -----
    def feed(self, chunk: bytes) -> Verdict | None:
        if self.failed is not None:
            return self.failed
        self.pending += chunk
        *lines, self.pending = self.pending.split(b"\n")
        for line in lines:
            self.failed = self._line(line)
            if self.failed is not None:
                return self.failed
        if len(self.pending) > self.max_line:
            self.failed = self._presentation(
                f"line {self.line_no + 1} is longer than {self.max_line} bytes, "
                f"more than a row of this {self.puzzle.rows}x{self.puzzle.cols} board can be")
        return self.failed

    def finish(self) -> Verdict:
        if self.failed is not None:
            return self.failed
        if self.pending:
            verdict = self._line(self.pending)
            self.pending = b""
            if verdict is not None:
                return verdict
        rows = self.puzzle.rows
        if self.rows_read < rows:
            if self.rows_read == 0:
                return self._presentation("no board printed")
            return self._presentation(f"the board ended after {self.rows_read} of {rows} rows")
        error = first_error(self.puzzle, self.arrows, self.numbers)
        if error is not None:
            return Verdict.wrong(error)
        return Verdict.accept(f"solved {self.puzzle.rows}x{self.puzzle.cols}")

    # ----- lines -----
    @staticmethod
    def _presentation(message: str) -> Verdict:
        return Verdict(Status.PRESENTATION, message)

    def _line(self, raw: bytes) -> Verdict | None:
        self.line_no += 1
        where = f"line {self.line_no}"
        try:
            text = raw.decode("ascii")
        except UnicodeDecodeError:
            return self._presentation(f"{where}: not ASCII text")
        tokens = text.split()
        if not tokens:
            self.blank_lines += 1
            if self.blank_lines > MAX_BLANK_LINES:
                return self._presentation(f"{where}: more than {MAX_BLANK_LINES} blank lines")
            return None
        first = not self.seen_content
        self.seen_content = True
        if first and len(tokens) <= 2 and all(t.isdigit() for t in tokens):
            if self._is_board_size(tokens):
                return None  # the optional size line
            if self.puzzle.cols > 2:  # no row of this board looks like that: a wrong size line
                return self._presentation(f"{where}: the size line says {int(tokens[0])}x{int(tokens[-1])}, "
                                          f"the board is {self.puzzle.rows}x{self.puzzle.cols}")
        if self.rows_read == self.puzzle.rows:
            return self._presentation(f"{where}: more than {self.puzzle.rows} rows")
        cols = self.puzzle.cols
        if len(tokens) != cols:
            return self._presentation(f"{where}: expected {cols} cells, got {len(tokens)}")
        for found in re.finditer(r"\S+", text):
            refused = self._cell(f"{where}, column {found.start() + 1}", found.group())
            if refused is not None:
                return refused
        self.rows_read += 1
        return None

    def _is_board_size(self, tokens: list[str]) -> bool:
        """Whether one or two numbers give the board's size (one: of a square board)."""
        size = (int(tokens[0]), int(tokens[-1]))
        return size == (self.puzzle.rows, self.puzzle.cols) and (len(tokens) == 2 or size[0] == size[1])

    def _cell(self, where: str, token: str) -> Verdict | None:
        """Read one cell of a row (its number and arrow), or the verdict when it is not one."""
        match = CELL_PATTERN.fullmatch(token)
        if match is None or len(match.group(1)) > 9:
            return self._presentation(f"{where}: {token[:20]!r} is not a cell "
                                      f"(a number followed by its arrow)")
        name = match.group(2)
        if name == "":
            direction = NO_ARROW
        elif name in self.directions:
            direction = self.directions[name]
        else:
            return self._presentation(
                f"{where}: unknown arrow {name[:8]!r} "
                f"({self.notation} names: {' '.join(NOTATIONS[self.notation])})")
        self.numbers.append(int(match.group(1)))
        self.arrows.append(direction)
        return None
