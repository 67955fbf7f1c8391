"""The reference entry solves every test case and its demo; the contest's entry.toml handling."""
import importlib.util
import io
import sys
from pathlib import Path

import pytest

from verify.contests import get
from verify.contests.desert import DesertOptions
from verify.contests.desert.judge import judge_bytes
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import LRUD_XY
from verify.errors import EntryError

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "submissions" / "desert" / "reference"
CONTEST = get("desert")


def _load_reference():
    spec = importlib.util.spec_from_file_location("desert_reference", REFERENCE / "desert.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load_reference()


def solve(text: str) -> bytes:
    out = io.StringIO()
    stdin, stdout, argv = sys.stdin, sys.stdout, sys.argv
    sys.stdin, sys.stdout, sys.argv = io.StringIO(text), out, ["desert.py"]
    try:
        reference.main()
    finally:
        sys.stdin, sys.stdout, sys.argv = stdin, stdout, argv
    return out.getvalue().encode()


CASES = CONTEST.testcases(ROOT / "testcases" / "desert")


def test_there_are_the_spec_maps_and_at_least_twenty_more():
    names = {case.name for case in CASES}
    assert {"spec-example", "spec-nontrivial", "spec-required"} <= names
    assert len(names) >= 23
    shapes = [case.payload.map for case in CASES]
    assert any(m.height == 1 for m in shapes) and any(m.width == 1 for m in shapes)
    assert max(m.distance for m in shapes) >= 20


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_reference_output_is_accepted(case):
    verdict = judge_bytes(case.payload.map, solve(case.input.decode()))
    assert verdict.accepted, verdict.message
    assert verdict.stats["deaths"] >= (1 if case.payload.map.distance > 1 else 0)


@pytest.mark.parametrize("text", ["SE\n", "ES\n", "S\nE\n", "E\nS\n", "S9999999E\n", "E.......S\n",
                                  "S.\n.E\n", "S\n.\n.\n.\n.\n.\n.\n.\n.\n9\n8\n.\nE\n"])
def test_reference_on_small_and_awkward_maps(text):
    verdict = judge_bytes(DesertMap.parse(text), solve(text))
    assert verdict.accepted, verdict.message


def test_reference_entry_options_and_demo():
    table = {"notation": "standard", "order": "moves-first", "demo": "demo.txt"}
    options = CONTEST.parse_options("reference", table, REFERENCE)
    assert options == DesertOptions(demo=REFERENCE / "demo.txt")
    [demo] = CONTEST.entry_cases(options, REFERENCE)
    assert demo.payload.trivial == ()
    judge = CONTEST.judge(options, demo)
    judge.feed(solve(demo.input.decode()))
    assert judge.finish().accepted


def test_a_trivial_demo_is_a_case_that_fails_naming_the_violation(tmp_path):
    (tmp_path / "demo.txt").write_text(".....S.\n.......\n.......\nE......\n....8..\n")
    options = CONTEST.parse_options("golf", {"demo": "demo.txt"}, tmp_path)
    [demo] = CONTEST.entry_cases(options, tmp_path)
    assert len(demo.payload.trivial) == 3
    judge = CONTEST.judge(options, demo)
    judge.feed(solve(demo.input.decode()))
    verdict = judge.finish()
    assert not verdict.accepted
    assert verdict.message == ("the demo map is trivial: S (0,5) and E (3,0) are 8 moves apart "
                               "(at least 10 needed) (and 2 more)")


@pytest.mark.parametrize("table, field, problem", [
    ({"order": "sideways"}, "desert.order", "'sideways' is not an order"),
    ({"deaths": "any"}, "desert.deaths", "'any' is not a rule for distinct deaths"),
    ({"notation": "klingon"}, "desert.notation", "unknown notation 'klingon'"),
    ({"notation": {"actions": {"+": "plus"}}}, "desert.notation.actions.'+'", "'plus' is not an action"),
    ({"demo": "missing.txt"}, "desert.demo", "no such file 'missing.txt'"),
    ({"demo": "bad.txt"}, "desert.demo", "line 1, column 2: this character is not a map character"),
    ({"colour": "red"}, "desert.colour", "unknown field"),
])
def test_bad_desert_sections_name_the_field(tmp_path, table, field, problem):
    (tmp_path / "bad.txt").write_text("Sx.E\n")
    with pytest.raises(EntryError) as caught:
        CONTEST.parse_options("golf", table, tmp_path)
    assert caught.value.field == field and problem in caught.value.problem


def test_inline_notation_table_in_entry_toml(tmp_path):
    options = CONTEST.parse_options("golf", {"notation": LRUD_XY.to_table(), "order": "map-first"}, tmp_path)
    assert options.notation.modifier_actions == LRUD_XY.modifier_actions and options.order == "map-first"
