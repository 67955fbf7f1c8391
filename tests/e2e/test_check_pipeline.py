"""verify check / rank / langs on the tiny echo contest: verdicts, reports, exit codes."""
import json
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402
from echo_contest import write_cases, write_entry  # noqa: E402

from verify.cli import main  # noqa: E402
from verify.contests.contract import TestCase  # noqa: E402
from verify.entries import load_entry  # noqa: E402
from verify.grading import LocalRunner, grade_case  # noqa: E402
from verify.runner import Limits  # noqa: E402
from verify.verdict import Status  # noqa: E402

CAT = "import sys\nsys.stdout.write(sys.stdin.read())\n"
LIMITS = Limits(wall_time=5, cpu_time=5, memory=256 << 20, output=1 << 20)


@pytest.fixture
def contest(tmp_path, monkeypatch):
    echo_contest.install(monkeypatch)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    cases = write_cases(tmp_path / "testcases" / "echo", {"one": (b"1\n", b"1\n"), "two": (b"2 2\n", b"2 2\n")})
    return tmp_path, cases


def case(name, data, expected=None):
    return TestCase(name, data, payload=data if expected is None else expected)


def test_judge_run_accepts_and_rejects(contest):
    root, _ = contest
    entry = load_entry(write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT))
    assert grade_case(LocalRunner(), entry, case("same", b"abc"), LIMITS).verdict.status is Status.ACCEPTED
    wrong = grade_case(LocalRunner(), entry, case("differ", b"abc", b"abd"), LIMITS)
    assert wrong.verdict.status is Status.WRONG and wrong.verdict.message == "output differs at byte 2"


def test_early_rejection_stops_a_program_that_would_run_forever(contest):
    root, _ = contest
    source = "import sys\nsys.stdout.write('nope\\n'); sys.stdout.flush()\nwhile True: pass\n"
    entry = load_entry(write_entry(root / "s" / "echo" / "spin", "spin.py", source))
    result = grade_case(LocalRunner(), entry, case("x", b"yes\n"), LIMITS)
    assert result.verdict.status is Status.WRONG and result.time < LIMITS.wall_time


def test_nonzero_exit_after_a_correct_output_is_a_warning(contest):
    root, _ = contest
    entry = load_entry(write_entry(root / "s" / "echo" / "exit3", "e.py", CAT + "sys.exit(3)\n"))
    verdict = grade_case(LocalRunner(), entry, case("x", b"hi\n"), LIMITS).verdict
    assert verdict.accepted and verdict.warnings == ["exited with code 3 after a complete output"]


def test_nonzero_exit_with_a_wrong_output_is_a_runtime_error(contest):
    root, _ = contest
    entry = load_entry(write_entry(root / "s" / "echo" / "fail", "f.py", "raise SystemExit('broken')\n"))
    verdict = grade_case(LocalRunner(), entry, case("x", b"hi\n"), LIMITS).verdict
    assert verdict.status is Status.RUNTIME_ERROR and verdict.message == "exit code 1: broken"


def test_compile_error_becomes_a_verdict(contest):
    root, _ = contest
    entry = load_entry(write_entry(root / "s" / "echo" / "bad", "bad.c", "int main( {", language="c"))
    result = grade_case(LocalRunner(), entry, case("x", b""), LIMITS)
    assert result.verdict.status is Status.COMPILE_ERROR and "error" in result.verdict.detail


def test_input_as_an_argument(contest):
    root, _ = contest
    entry = load_entry(write_entry(root / "s" / "echo" / "argv", "a.py", "import sys\nprint(sys.argv[1], end='')\n",
                                   extra='input = "args"\n'))
    assert grade_case(LocalRunner(), entry, case("x", b"hello there"), LIMITS).verdict.accepted


def test_a_judge_that_crashes_is_a_judge_error_not_the_entrys_fault(contest, monkeypatch):
    root, _ = contest
    entry = load_entry(write_entry(root / "s" / "echo" / "cat", "cat.py", CAT))
    monkeypatch.setattr(echo_contest.EchoJudge, "feed", lambda self, chunk: 1 / 0)
    verdict = grade_case(LocalRunner(), entry, case("x", b"abc"), LIMITS).verdict
    assert verdict.status is Status.JUDGE_ERROR and "ZeroDivisionError" in verdict.message


def run_cli(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_check_passes_and_reports_every_case(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT, demo=b"demo text\n")
    result = run_cli("check", str(folder), "--testcases", str(cases), "-j", "2", "--time", "5")
    assert result.exit_code == 0, result.output
    assert "1/1 entries passed; 3/3 cases accepted" in result.output
    for name in ("one", "two", "demo"):
        assert name in result.output


def test_check_fails_with_exit_1_and_names_the_failure(contest):
    root, cases = contest
    good = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    bad = write_entry(root / "submissions" / "echo" / "upper", "up.py",
                      "import sys\nsys.stdout.write(sys.stdin.read()[::-1])\n")
    result = run_cli("check", str(good), str(bad), "--testcases", str(cases), "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["passed"] is False
    by_entry = {e["entry"]: e for e in report["entries"]}
    assert by_entry["echo/cat"]["passed"] and not by_entry["echo/upper"]["passed"]
    assert {c["verdict"]["status"] for c in by_entry["echo/upper"]["cases"]} == {"wrong"}


def test_check_junit_and_markdown(contest):
    root, cases = contest
    bad = write_entry(root / "submissions" / "echo" / "none", "n.py", "pass\n")
    junit = run_cli("check", str(bad), "--testcases", str(cases), "--format", "junit")
    tree = ElementTree.fromstring(junit.output.split("\n", 1)[1])
    suite = tree.find("testsuite")
    assert suite.get("name") == "echo/none" and suite.get("failures") == "2"
    markdown = run_cli("check", str(bad), "--testcases", str(cases), "--format", "markdown")
    assert markdown.output.startswith("| entry") and "**0/1 entries passed" in markdown.output


def test_a_broken_entry_is_reported_not_raised(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "broken", "b.py", CAT, extra='flags = "-u"\n')
    result = run_cli("check", str(folder), "--testcases", str(cases))
    assert result.exit_code == 1
    assert "echo/broken: flags: expected list" in result.output


def test_rank_orders_passing_entries_and_explains_the_others(contest):
    root, cases = contest
    subs = root / "submissions"
    write_entry(subs / "echo" / "long", "cat.py", CAT)                                        # 46 bytes
    write_entry(subs / "echo" / "short", "c.py", "import sys;print(end=sys.stdin.read())")    # 38 bytes
    write_entry(subs / "echo" / "flagged", "f.py", "import sys;print(end=sys.stdin.read())",
                extra='flags = ["-u", "-B"]\n')                                                # 38 + 2
    write_entry(subs / "echo" / "wrong", "w.py", "print('no')")
    result = run_cli("rank", "echo", "--submissions", str(subs), "--testcases", str(cases), "--format", "json")
    assert result.exit_code == 0, result.output
    standings = json.loads(result.output)["standings"]
    assert [(s["rank"], s["entry"], s["score"]) for s in standings] == [
        (1, "echo/short", 38), (2, "echo/flagged", 40), (3, "echo/long", 46), (None, "echo/wrong", 11)]
    assert standings[3]["why_not"].startswith("one: wrong: output differs at byte 0")
    markdown = run_cli("rank", "echo", "--submissions", str(subs), "--testcases", str(cases), "--format", "markdown")
    assert "# Python, 38 bytes" in markdown.output
    assert "# Python -u -B, 38 + 2 = 40 bytes" in markdown.output
    assert "- echo/wrong: one: wrong" in markdown.output


def test_rank_reuses_cached_checks_until_the_source_changes(contest, monkeypatch):
    root, cases = contest
    subs = root / "submissions"
    folder = write_entry(subs / "echo" / "cat", "cat.py", CAT)
    run_cli("rank", "echo", "--submissions", str(subs), "--testcases", str(cases))
    import verify.commands.check
    calls = []
    real = verify.commands.check.run_checks
    monkeypatch.setattr(verify.commands.check, "run_checks",
                        lambda runner, checks, *a, **k: calls.append(len(checks)) or real(runner, checks, *a, **k))
    run_cli("rank", "echo", "--submissions", str(subs), "--testcases", str(cases))
    (folder / "cat.py").write_text(CAT + "# changed\n")
    changed = run_cli("rank", "echo", "--submissions", str(subs), "--testcases", str(cases))
    assert calls == [0, 1]
    assert "56" in changed.output


def test_rank_reuses_a_whole_check_but_not_a_check_of_some_cases(contest, monkeypatch):
    root, cases = contest
    subs = root / "submissions"
    folder = write_entry(subs / "echo" / "cat", "cat.py", CAT)
    run_cli("check", str(folder), "--testcases", str(cases), "--case", "one")
    import verify.commands.check
    calls = []
    real = verify.commands.check.run_checks
    monkeypatch.setattr(verify.commands.check, "run_checks",
                        lambda runner, checks, *a, **k: calls.append(len(checks)) or real(runner, checks, *a, **k))
    run_cli("rank", "echo", "--submissions", str(subs), "--testcases", str(cases))   # only case "one" was checked
    (folder / "cat.py").write_text(CAT + "# changed\n")
    run_cli("check", str(folder), "--testcases", str(cases))
    run_cli("rank", "echo", "--submissions", str(subs), "--testcases", str(cases))   # the whole check is reused
    assert calls == [1, 1, 0]


def test_rank_refuses_a_koth_contest():
    result = CliRunner().invoke(main, ["rank", "maze"])
    assert result.exit_code != 0 and "not a code-golf contest" in str(result.exception)


def test_langs_lists_every_language_with_its_self_test():
    result = run_cli("langs", "python", "c", "--format", "json")
    data = json.loads(result.output)
    assert [lang["key"] for lang in data["languages"]] == ["python", "c"]
    assert all(lang["selftest"] == "ok" and lang["version"] for lang in data["languages"])
    assert result.exit_code == 0


def test_langs_reports_a_missing_interpreter_and_fails(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))        # nothing to be found
    result = run_cli("langs", "perl")
    assert result.exit_code == 1
    assert "missing" in result.output and "perl: interpreter not found" in result.output


def test_rank_of_a_contest_without_entries(contest):
    root, _ = contest
    (root / "submissions").mkdir()
    result = run_cli("rank", "echo", "--submissions", str(root / "submissions"))
    assert result.exit_code == 1 and "(no entries)" in result.output     # nothing ranked: a failure for CI


def test_a_judge_that_cannot_even_start_is_a_judge_error(contest, monkeypatch):
    root, _ = contest
    entry = load_entry(write_entry(root / "s" / "echo" / "cat", "cat.py", CAT))
    monkeypatch.setattr(echo_contest.EchoContest, "judge", lambda self, options, case: {}["missing"])
    verdict = grade_case(LocalRunner(), entry, case("x", b"abc"), LIMITS).verdict
    assert verdict.status is Status.JUDGE_ERROR and "KeyError" in verdict.message


def test_check_can_pick_cases_by_pattern(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT, demo=b"demo\n")
    result = run_cli("check", str(folder), "--testcases", str(cases), "--case", "t*", "--case", "demo",
                     "--format", "json")
    assert [c["case"] for c in json.loads(result.output)["entries"][0]["cases"]] == ["two", "demo"]
    none = run_cli("check", str(folder), "--testcases", str(cases), "--case", "zzz")
    assert none.exit_code == 1 and "no case matches zzz" in none.output
