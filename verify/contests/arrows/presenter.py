"""What the site shows of the arrows: a case's page with the puzzle beside the board printed,
both as SVG, drawn from the model's state (read only): nothing here decides a rule.

Marks as well as colours: every cell carries its arrow and number; a given number is bold,
underlined and starred on the puzzle and wherever the board printed keeps it; a given the
board changed reads ``given 6, printed 4``, never as a given.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from verify.contests.arrows.checker import first_error
from verify.contests.arrows.judge import ArrowsJudge
from verify.contests.arrows.model import NO_ARROW, Puzzle, direction_name, parse_text
from verify.contests.arrows.options import ArrowsOptions
from verify.contests.contract import Captured, Drawing, Page, Presenter, TestCase
from verify.errors import VerifyError
from verify.verdict import Verdict

TEMPLATES = f"{__package__}:templates"
CELL = 36
ARROW_GLYPHS = ("↑", "↗", "→", "↘", "↓", "↙", "←", "↖")
SHOWN_OUTPUT = 64 << 10
_SQUARE = re.compile(r"\((\d+),(\d+)\)")


def _centre(row: int, col: int) -> tuple[float, float]:
    return (col * CELL + CELL / 2, row * CELL + CELL / 2)


def changed_givens(puzzle: Puzzle, numbers: Sequence[int]) -> list[dict[str, int]]:
    """The cells whose given number the board printed changed, in reading order."""
    return [{"row": index // puzzle.cols, "col": index % puzzle.cols, "given": given, "printed": numbers[index]}
            for index, given in enumerate(puzzle.numbers)
            if given and index < len(numbers) and numbers[index] != given]


def arrows_svg(puzzle: Puzzle, numbers: Sequence[int] | None = None, error: str | None = None,
               arrows: Sequence[int] | None = None) -> Drawing:
    """A board: each cell's arrow and number, and the squares named by ``error`` (the first rule
    broken) marked ``!``. Without ``numbers``, the puzzle itself: its arrows and its givens.
    With them, a board filled in (``arrows``: as printed; default the puzzle's): the path 1 -> N
    drawn as line segments between consecutive numbers; a given cell is marked given only where
    the board keeps the puzzle's number, else it reads ``given 6, printed 4``."""
    filled = numbers is not None
    shown = list(numbers) if numbers is not None else list(puzzle.numbers)
    directions = list(arrows) if arrows is not None else list(puzzle.arrows)
    size = puzzle.size
    flagged = {(int(r), int(c)) for r, c in _SQUARE.findall(error or "")}
    cells = []
    for index in range(size):
        row, col = divmod(index, puzzle.cols)
        number = shown[index] if index < len(shown) else 0
        given = puzzle.numbers[index]
        direction = directions[index] if index < len(directions) else NO_ARROW
        cells.append({"x": col * CELL, "y": row * CELL, "row": row, "col": col, "number": number or "",
                      "given": bool(given) and number == given, "changed": given if given and number != given else 0,
                      "glyph": "" if direction == NO_ARROW else ARROW_GLYPHS[direction],
                      "arrow": direction_name(direction, puzzle.notation) or "end",
                      "flagged": (row, col) in flagged})
    segments = []
    if filled:
        cell_of: dict[int, int] = {}
        for index, number in enumerate(shown[:size]):
            if 1 <= number <= size and number not in cell_of:
                cell_of[number] = index
        for number in range(1, size):
            if number in cell_of and number + 1 in cell_of:
                (x1, y1), (x2, y2) = (_centre(*divmod(cell_of[n], puzzle.cols)) for n in (number, number + 1))
                segments.append({"x1": x1, "y1": y1, "x2": x2, "y2": y2, "from": number})
    return Drawing(f"{TEMPLATES}/arrows.svg", {
        "width": puzzle.cols * CELL, "height": puzzle.rows * CELL, "cell": CELL, "cells": cells,
        "segments": segments, "size": size, "board": "arrows-board" if filled else "arrows-puzzle",
        "label": f"arrow path board, {size} cells" if filled else f"the puzzle, {size} cells"})


def case_puzzle(case: TestCase[Puzzle]) -> Puzzle | None:
    """The puzzle of a case: parsed when the case was read, else from its input (None: unreadable)."""
    if case.payload is not None:
        return case.payload
    try:
        return parse_text(case.input.decode("ascii"), where=case.name)
    except (UnicodeDecodeError, VerifyError):
        return None


class ArrowsPresenter(Presenter[ArrowsOptions, Puzzle]):
    def case_page(self, options: ArrowsOptions, case: TestCase[Puzzle], verdict: Verdict, captured: Captured,
                  built: Any) -> Page:
        return Page(f"{TEMPLATES}/arrows.html", self.board_values(options, case, captured))

    @staticmethod
    def board_values(options: ArrowsOptions, case: TestCase[Puzzle], captured: Captured) -> dict[str, Any]:
        puzzle = case_puzzle(case)
        notation = options.arrows
        output = captured.output()
        values: dict[str, Any] = {"puzzle_svg": None, "svg": None, "why": "", "changed": [],
                                  "output": bytes(captured.head[:SHOWN_OUTPUT]).decode("utf-8", "replace"),
                                  "size": 0}
        if puzzle is None:
            return {**values, "why": "the puzzle could not be read"}
        values.update(puzzle_svg=arrows_svg(puzzle), size=puzzle.size)
        if output is None:
            return {**values, "why": f"the output is {captured.total:,} bytes, more than a board"}
        judge = ArrowsJudge(puzzle.in_notation(notation), notation)
        early = judge.feed(output)
        if early is not None or len(judge.numbers) != puzzle.size:
            return {**values, "why": early.message if early is not None else "the output holds no whole board"}
        error = first_error(puzzle, judge.arrows, judge.numbers)
        return {**values, "svg": arrows_svg(puzzle, judge.numbers, error, judge.arrows),
                "changed": changed_givens(puzzle, judge.numbers)}


PRESENTER = ArrowsPresenter()
