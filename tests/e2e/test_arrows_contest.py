"""The contest: test cases, entry options, Dutch input, the CLI commands."""
from pathlib import Path

import pytest
from arrows_reference import PUZZLE_1, PUZZLE_1_CONTEST_TEXT, PUZZLE_2
from click.testing import CliRunner

from verify import contests
from verify.cli import main
from verify.contests.arrows.model import parse_text
from verify.contests.arrows.solver import count_solutions
from verify.contests.contract import Scoring, TestCase
from verify.errors import EntryError

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "testcases" / "arrows"
CONTEST = contests.get("arrows")


def test_registered_as_a_code_golf_contest():
    assert CONTEST.name == "arrows" and CONTEST.scoring is Scoring.BYTES


def test_the_test_cases():
    cases = CONTEST.testcases(CASES)
    assert len(cases) >= 20
    names = [c.name for c in cases]
    assert "spec-puzzle-1" in names and "spec-puzzle-2" in names
    sizes = {(c.payload.rows, c.payload.cols) for c in cases}
    assert (3, 3) in sizes and (12, 12) in sizes
    readme = (CASES / "README.md").read_text()
    for case in cases:
        assert f"{case.name}.txt" in readme


def test_the_spec_puzzles_are_among_the_cases():
    cases = {c.name: c.payload for c in CONTEST.testcases(CASES)}
    assert cases["spec-puzzle-1"] == PUZZLE_1.in_notation("english")
    assert cases["spec-puzzle-2"] == PUZZLE_2.in_notation("english")
    assert (CASES / "spec-puzzle-1.txt").read_text() == PUZZLE_1_CONTEST_TEXT


@pytest.mark.slow
def test_every_case_is_unique():
    for case in CONTEST.testcases(CASES):
        assert count_solutions(case.payload, 2) == 1, case.name


def test_options():
    assert CONTEST.parse_options("e", {}, ROOT).arrows == "english"
    assert CONTEST.parse_options("e", {"arrows": "dutch"}, ROOT).arrows == "dutch"
    with pytest.raises(EntryError, match="arrows.arrows: 'french' is not a set of arrow names"):
        CONTEST.parse_options("e", {"arrows": "french"}, ROOT)
    with pytest.raises(EntryError, match="arrows.notation: unknown field"):
        CONTEST.parse_options("e", {"notation": "dutch"}, ROOT)


def test_dutch_entries_read_dutch():
    case = TestCase("p1", PUZZLE_1_CONTEST_TEXT.encode())
    dutch = CONTEST.input_for(CONTEST.parse_options("e", {"arrows": "dutch"}, ROOT), case)
    assert dutch.input == b"3\n1ZO 0ZW 0Z\n0Z 0N 0N\n0O 0NO 9\n"
    english = CONTEST.input_for(CONTEST.parse_options("e", {}, ROOT), case)
    assert english.input == case.input
    judge = CONTEST.judge(CONTEST.parse_options("e", {"arrows": "dutch"}, ROOT), case)
    assert judge.feed(b"1ZO 3ZW 8Z\n4Z 2N 7N\n5O 6NO 9\n") is None
    assert judge.finish().accepted


# ----- CLI -----

def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_cli_solve(tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE_1_CONTEST_TEXT)
    result = run("solve", "arrows", str(puzzle))
    assert result.exit_code == 0
    assert result.output == "3\n1SE 3SW 8S\n4S 2N 7N\n5E 6NE 9\n"
    counted = run("solve", "arrows", "--count", "5", str(puzzle))
    assert counted.exit_code == 0 and counted.output == "1 solution\n"


def test_cli_solve_list_form_from_stdin():
    result = run("solve", "arrows", "--lists", "-", input=PUZZLE_2.to_list_text())
    assert result.exit_code == 0
    assert result.output.startswith('[[[1, "Z"], [3, "O"], [6, "ZO"]')


def test_cli_solve_counts_several(tmp_path):
    bare = PUZZLE_2.with_numbers([n if n == 25 else 0 for n in PUZZLE_2.numbers])
    puzzle = tmp_path / "open.txt"
    puzzle.write_text(bare.to_text())
    result = run("solve", "arrows", "--count", "3", str(puzzle))
    assert result.exit_code == 1 and result.output == "3 or more solutions\n"
    unsolvable = tmp_path / "none.txt"
    unsolvable.write_text("2\n1E 0SW\n2E 4\n")
    assert run("solve", "arrows", "--count", "2", str(unsolvable)).output == "0 solutions\n"
    assert run("solve", "arrows", str(unsolvable)).exit_code == 1


def test_cli_gen_is_unique_and_deterministic():
    first = run("gen", "arrows", "--size", "5", "--seed", "4")
    assert first.exit_code == 0
    assert first.output == run("gen", "arrows", "--size", "5", "--seed", "4").output
    puzzle = parse_text(first.output)
    assert (puzzle.rows, puzzle.cols) == (5, 5) and count_solutions(puzzle, 2) == 1
    wide = run("gen", "arrows", "--rows", "3", "--cols", "5", "--arrows", "dutch")
    assert wide.exit_code == 0 and wide.output.startswith("3 5\n")
    assert parse_text(wide.output).notation in ("dutch", "english")  # may use only N, W, NW


def test_cli_gen_needs_a_size():
    result = run("gen", "arrows")
    assert result.exit_code != 0


def test_cli_judge_exit_codes(tmp_path):
    puzzle = tmp_path / "p.txt"
    puzzle.write_text(PUZZLE_1_CONTEST_TEXT)
    good = tmp_path / "good.txt"
    good.write_text("3\n1SE 3SW 8S\n4S 2N 7N\n5E 6NE 9\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("3\n1SE 3SW 8S\n4S 2N 7N\n6E 5NE 9\n")
    accepted = run("judge", "arrows", str(puzzle), str(good))
    assert accepted.exit_code == 0 and accepted.output.startswith("AC")
    rejected = run("judge", "arrows", str(puzzle), str(bad))
    assert rejected.exit_code == 1
    assert rejected.output == "WA wrong: 5 at (2,1) is not on the S ray of 4 at (1,0)\n"


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path):
    import subprocess
    import sys
    broken = tmp_path / "broken.txt"
    broken.write_text("3\n1SE 0SW\n")
    result = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()",
                             "judge", "arrows", str(broken), str(broken)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "expected 3 rows" in result.stderr
    missing = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()",
                              "solve", "arrows", str(tmp_path / "nope.txt")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


# ----- through the runner: Dutch input reaches a Dutch entry; the speed table -----

def _entry(root, name, arrows, program):
    folder = root / "submissions" / "arrows" / name
    folder.mkdir(parents=True)
    (folder / "solve.py").write_text(program)
    (folder / "entry.toml").write_text(
        f'contest = "arrows"\nlanguage = "python"\nsource = "solve.py"\n\n[arrows]\narrows = "{arrows}"\n')
    return folder


def test_entries_run_through_the_runner_with_their_own_arrow_names(tmp_path):
    from verify.commands.jobs import load_checks, run_checks
    from verify.commands.speed import speed_table
    from verify.grading import LocalRunner
    from verify.runner import Limits

    cases = tmp_path / "testcases" / "arrows"
    cases.mkdir(parents=True)
    (cases / "p1.txt").write_text(PUZZLE_1_CONTEST_TEXT)
    dutch = _entry(tmp_path, "dutch", "dutch", (
        "import sys\n"
        "rows = sys.stdin.read().split('\\n')\n"
        "print('3\\n1ZO 3ZW 8Z\\n4Z 2N 7N\\n5O 6NO 9' if rows[1] == '1ZO 0ZW 0Z' else 'not dutch')\n"))
    english = _entry(tmp_path, "english", "english", "print('1SE 3SW 8S\\n4S 2N 7N\\n6E 5NE 9')\n")
    checks = run_checks(LocalRunner(), load_checks([dutch, english], cases), Limits(wall_time=20, cpu_time=20), jobs=2)
    by_name = {c.label: c for c in checks}
    assert by_name["arrows/dutch"].passed, by_name["arrows/dutch"].why_not
    wrong = by_name["arrows/english"].results[0].verdict
    assert wrong.message == "5 at (2,1) is not on the S ray of 4 at (1,0)"
    table = speed_table(LocalRunner(), tmp_path / "submissions", cases, 1, Limits(wall_time=20, cpu_time=20), "arrows")
    lines = table.splitlines()
    assert lines[0].startswith("Speed: arrows")
    assert any(line.split()[:2] == ["1", "arrows/dutch"] for line in lines)
    assert any(line.split()[:2] == ["-", "arrows/english"] and "not on the S ray" in line for line in lines)


def test_speed_with_no_contest_named_is_every_contest_that_ranks_by_speed():
    from verify.commands.speed import speed_contests
    from verify.errors import VerifyError

    assert speed_contests(None) == ["arrows"]       # the arrows rules' second table; no other contest has one
    assert speed_contests("desert") == ["desert"]   # any code-golf contest, named
    with pytest.raises(VerifyError, match="not a code-golf contest"):
        speed_contests("maze")
