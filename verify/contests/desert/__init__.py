"""Desert crossing (code golf): cross a desert from S to E, caching water, dying in distinct ways first.

Rules engine: :mod:`.engine`; map: :mod:`.map`; notations: :mod:`.notation`;
output reading: :mod:`.transcript`; verdicts: :mod:`.judge`; demo-map rule:
:mod:`.nontrivial`.
User documentation: docs/desert.md.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from verify.contests.contract import Contest, FuzzBudget, Fuzzer, Scoring, TestCase
from verify.contests.desert.case import DesertCase
from verify.contests.desert.judge import DesertJudge
from verify.contests.desert.map import MAX_MAP_BYTES, DesertMap
from verify.contests.desert.nontrivial import MAX_VIOLATIONS, violations
from verify.contests.desert.notation import NotationDefinitionError, resolve
from verify.contests.desert.options import DesertOptions
from verify.contests.desert.transcript import DEATH_RULES, ORDERS
from verify.errors import EntryError, InputError, quoted
from verify.files import FileRefused, read_entry_file, read_input

__all__ = ["CONTEST", "DesertCase", "DesertContest", "DesertOptions"]


KERNEL_FOLDER = "desert-kernel"     # the cache folder of the compiled kernel's builds (kernel_build.py)

class DesertContest(Contest[DesertOptions, DesertCase]):
    name = "desert"
    title = "Desert crossing"
    scoring = Scoring.BYTES
    judge_beside_run = True     # the compiled replay releases the GIL: it runs beside the entry
    commands = {"judge": "verify.contests.desert.cli:judge_desert", "gen": "verify.contests.desert.cli:gen_desert",
                "": "verify.contests.desert.cli:desert_group"}
    presenter = "verify.contests.desert.presenter:PRESENTER"
    cache_folders = {KERNEL_FOLDER: "desert kernel builds"}

    def testcases(self, root: Path) -> list[TestCase[DesertCase]]:
        """Every ``*.txt`` map under ``root``, by name. A malformed map (or one over
        ``MAX_MAP_BYTES``) is an InputError naming the file."""
        cases: list[TestCase[DesertCase]] = []
        for path in sorted(Path(root).glob("*.txt")):
            data = read_input(str(path), MAX_MAP_BYTES, "map")
            desert = DesertMap.parse(data, source=str(path))
            cases.append(TestCase(path.stem, data, path, (data.decode("ascii"),), DesertCase(desert)))
        return cases

    def parse_options(self, entry_name: str, table: dict[str, Any], entry_dir: Path) -> DesertOptions:
        known = {"notation", "order", "demo", "deaths"}
        for key in table:
            if key not in known:
                raise EntryError(entry_name, f"desert.{key}",
                                 f"unknown field (expected one of {', '.join(sorted(known))})")
        try:
            notation = resolve(table.get("notation", "standard"), Path(entry_dir))
        except NotationDefinitionError as error:
            field = "desert.notation" if error.field == "notation" else f"desert.notation.{error.field}"
            raise EntryError(entry_name, field, error.problem) from None
        order = table.get("order", "moves-first")
        if order not in ORDERS:
            raise EntryError(entry_name, "desert.order", f"{quoted(order)} is not an order (expected "
                             f"{' or '.join(repr(o) for o in ORDERS)})")
        deaths = table.get("deaths", "turns")
        if deaths not in DEATH_RULES:
            raise EntryError(entry_name, "desert.deaths", f"{quoted(deaths)} is not a rule for distinct deaths "
                             f"(expected {' or '.join(repr(d) for d in DEATH_RULES)})")
        demo = table.get("demo")
        if demo is None:
            return DesertOptions(notation, order, deaths)
        if not isinstance(demo, str):
            raise EntryError(entry_name, "desert.demo", "expected the path of a map file")
        data = self._read_demo(entry_name, Path(entry_dir), demo)
        return DesertOptions(notation, order, deaths, Path(entry_dir) / demo, data)

    @staticmethod
    def _read_demo(entry_name: str, entry_dir: Path, demo: str) -> bytes:
        """The demo map's bytes: a regular file inside the entry folder, at most ``MAX_MAP_BYTES``,
        a valid map. Its problems never quote what the file holds."""
        try:
            data = read_entry_file(entry_dir, demo, MAX_MAP_BYTES)
            DesertMap.parse(data, source=demo, quote=False)
        except FileRefused as error:
            raise EntryError(entry_name, "desert.demo", str(error)) from None
        except InputError as error:
            raise EntryError(entry_name, "desert.demo", str(error)) from None
        return data

    def entry_cases(self, options: DesertOptions, entry_dir: Path) -> list[TestCase[DesertCase]]:
        """The entry's demo map, judged like any case. A trivial demo is kept as a case whose
        judge rejects every output, naming the first violation (the first ``MAX_VIOLATIONS``
        are its payload's ``trivial``, ``more_trivial`` says whether there are more)."""
        if options.demo is None:
            return []
        data = options.demo_bytes
        desert = DesertMap.parse(data, source=str(options.demo), quote=False)
        found = violations(desert, limit=MAX_VIOLATIONS + 1)
        payload = DesertCase(desert, tuple(str(v) for v in found[:MAX_VIOLATIONS]), len(found) > MAX_VIOLATIONS)
        return [TestCase("demo", data, options.demo, (data.decode("ascii"),), payload)]

    def judge(self, options: DesertOptions | None, case: TestCase[DesertCase]) -> DesertJudge:
        options = options or DesertOptions()
        payload = case.payload or DesertCase(DesertMap.parse(case.input, source=case.name))
        problem = None
        trivial = payload.trivial
        if trivial:
            more = f" (and {len(trivial) - 1} more)" if len(trivial) > 1 else ""
            if payload.more_trivial:
                more = f" (and more than {len(trivial) - 1} more)"
            problem = f"the demo map is trivial: {trivial[0]}{more}"
        return DesertJudge(payload.map, options.notation, options.order, options.deaths, problem=problem)

    def fuzzer(self, options: DesertOptions, budget: FuzzBudget) -> Fuzzer[DesertCase]:
        from verify.contests.desert.fuzzing import DesertFuzzer  # the generators only when fuzzing
        return DesertFuzzer(options, budget.max_size)


CONTEST = DesertContest()
