"""The arrow-path contest as the core sees it: its cases, its entries' options, its judge."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from verify.contests.arrows import KERNEL_FOLDER
from verify.contests.arrows.judge import ArrowsJudge
from verify.contests.arrows.model import MAX_PUZZLE_BYTES, NOTATIONS, Puzzle, parse_text
from verify.contests.arrows.options import ArrowsOptions
from verify.contests.contract import Contest, FuzzBudget, Fuzzer, Scoring, TestCase
from verify.errors import EntryError, InputError, quoted
from verify.files import read_input


class ArrowsContest(Contest[ArrowsOptions, Puzzle]):
    """A case's payload is its puzzle, parsed when the case was made."""

    name = "arrows"
    title = "Arrow path (Signpost)"
    scoring = Scoring.BYTES
    speed_table = True          # "a second table ranks by speed" (docs/rules/arrows.md)
    commands = {"judge": "verify.contests.arrows.cli:judge_command",
                "solve": "verify.contests.arrows.cli:solve_command",
                "gen": "verify.contests.arrows.cli:gen_command"}
    presenter = "verify.contests.arrows.presenter:PRESENTER"
    cache_folders = {KERNEL_FOLDER: "arrows kernel builds"}

    def testcases(self, root: Path) -> list[TestCase[Puzzle]]:
        """Every ``*.txt`` puzzle under ``root``, by name. A malformed puzzle (or one over
        ``MAX_PUZZLE_BYTES``) is an InputError naming the file."""
        cases: list[TestCase[Puzzle]] = []
        for path in sorted(Path(root).glob("*.txt")):
            data = read_input(str(path), MAX_PUZZLE_BYTES, "puzzle")
            try:
                text = data.decode("ascii")
            except UnicodeDecodeError:
                raise InputError(f"{path}: not ASCII text") from None
            puzzle = parse_text(text, where=str(path))
            cases.append(TestCase(path.stem, data, path, (text,), puzzle))
        return cases

    def parse_options(self, entry_name: str, table: dict[str, Any], entry_dir: Path) -> ArrowsOptions:
        for key in table:
            if key != "arrows":
                raise EntryError(entry_name, f"arrows.{quoted(key)[1:-1]}", "unknown field (expected: arrows)")
        arrows = table.get("arrows", "english")
        if not isinstance(arrows, str) or arrows not in NOTATIONS:
            raise EntryError(entry_name, "arrows.arrows",
                             f"{quoted(arrows)} is not a set of arrow names (expected 'english' or 'dutch')")
        return ArrowsOptions(arrows)

    def input_for(self, options: ArrowsOptions, case: TestCase[Puzzle]) -> TestCase[Puzzle]:
        """The case as this entry reads it: the puzzle in the entry's arrow names."""
        puzzle = self._puzzle(case)
        if puzzle.notation == options.arrows:
            return case
        text = puzzle.in_notation(options.arrows).to_text()
        return TestCase(case.name, text.encode("ascii"), case.path, (text,), case.payload)

    def judge(self, options: ArrowsOptions, case: TestCase[Puzzle]) -> ArrowsJudge:
        return ArrowsJudge(self._puzzle(case), options.arrows)

    def fuzzer(self, options: ArrowsOptions, budget: FuzzBudget) -> Fuzzer[Puzzle]:
        from verify.contests.arrows.fuzzing import ArrowsFuzzer  # the generator's modules only when fuzzing
        return ArrowsFuzzer(budget.max_size)

    @staticmethod
    def _puzzle(case: TestCase[Puzzle]) -> Puzzle:
        if case.payload is not None:
            return case.payload
        return parse_text(case.input.decode("ascii", "replace"), where=case.name)


CONTEST = ArrowsContest()
