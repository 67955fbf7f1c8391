"""``verify check -x/--fail-fast``, the slowest accepted case's line, the format registry."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402
from echo_contest import write_cases, write_entry  # noqa: E402

from verify.commands.check import CheckOptions, check  # noqa: E402
from verify.commands.jobs import load_checks, run_checks  # noqa: E402
from verify.contests.contract import BatchTask  # noqa: E402
from verify.errors import VerifyError  # noqa: E402
from verify.grading import FakeRun, FakeRunner  # noqa: E402
from verify.grading.executor import LocalExecutor  # noqa: E402
from verify.pipeline.observe import FailFast  # noqa: E402
from verify.pipeline.outcome import CheckedEntry, slowest_accepted  # noqa: E402
from verify.pipeline.plan import EntryCheck  # noqa: E402
from verify.reports.checks import SlowestCase  # noqa: E402
from verify.reports.formats import FORMATS, formats_of, renderer  # noqa: E402
from verify.results import CaseResult  # noqa: E402
from verify.runner import Limits  # noqa: E402
from verify.settings import Settings  # noqa: E402
from verify.verdict import Status, Verdict  # noqa: E402

CAT = "import sys\nsys.stdout.write(sys.stdin.read())\n"


LIMITS = Limits(wall_time=5, cpu_time=5)


@pytest.fixture
def contest(tmp_path, monkeypatch):
    echo_contest.install(monkeypatch)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    cases = write_cases(tmp_path / "testcases" / "echo",
                        {"a": (b"1\n", b"1\n"), "b": (b"2\n", b"2\n"), "c": (b"3\n", b"3\n"), "d": (b"4\n", b"4\n")})
    return tmp_path, cases


def echoing(stdin: bytes, args: tuple[str, ...]) -> FakeRun:
    return FakeRun(stdout=b"no\n" if stdin == b"2\n" else stdin)


def test_fail_fast_runs_no_case_of_an_entry_after_its_first_failure(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "flawed", "flawed.py", CAT)
    runner = FakeRunner({"flawed.py": echoing})
    (checked,) = run_checks(runner, load_checks([folder], cases), LIMITS, jobs=1, observers=[FailFast()])
    assert [r.case for r in checked.results] == ["a", "b"] and not checked.results[1].passed
    assert checked.skipped == ["c", "d"]
    assert [stdin for _, stdin, _ in runner.runs] == [b"1\n", b"2\n"]      # c and d never ran


def test_without_fail_fast_every_case_runs(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "flawed", "flawed.py", CAT)
    runner = FakeRunner({"flawed.py": echoing})
    (checked,) = run_checks(runner, load_checks([folder], cases), LIMITS, jobs=1)
    assert [r.case for r in checked.results] == ["a", "b", "c", "d"] and checked.skipped == []
    assert len(runner.runs) == 4


def test_fail_fast_stops_only_the_entry_that_failed():
    fail_fast = FailFast()
    fail_fast.judged(0, CaseResult("echo/x", "a", Verdict(Status.WRONG, "no")))
    fail_fast.judged(1, CaseResult("echo/y", "a", Verdict.accept()))
    assert not fail_fast.admit(0) and fail_fast.admit(1) and fail_fast.admit(2)


def test_fail_fast_on_a_cluster_is_refused_before_anything_runs(contest):
    root, cases = contest
    folder = write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    with pytest.raises(VerifyError, match="--fail-fast runs on this machine only"):
        check(FakeRunner({}), [folder], CheckOptions(testcases=cases, fail_fast=True),
              settings=Settings.from_environment({"VERIFY_CACHE": str(root / "cache")}), executor=LocalExecutor())


def test_the_slowest_accepted_case_is_the_closest_to_its_own_limit():
    def task(name, limits=None):
        return BatchTask(name, None, b"", lambda: None, limits=limits)  # type: ignore[arg-type]

    planned = EntryCheck("echo/x", tasks=(task("short", Limits(wall_time=1)), task("long"), task("failed")))
    results = [CaseResult("echo/x", "short", Verdict.accept(), time=0.8),
               CaseResult("echo/x", "long", Verdict.accept(), time=3.2),
               CaseResult("echo/x", "failed", Verdict(Status.TIME_LIMIT), time=10)]
    found = slowest_accepted([CheckedEntry("echo/x", results, planned=planned)], Limits(wall_time=10))
    assert found == SlowestCase("echo/x", "short", 0.8, 1)
    assert SlowestCase("echo/x", "long", 3.2, 10).line() == "slowest accepted case: echo/x long 3.20 s of 10 s (32 %)"
    assert slowest_accepted([CheckedEntry("echo/x", results[2:], planned=planned)], Limits()) is None


def test_every_format_of_every_report_has_its_renderer():
    for name, found in FORMATS.items():
        for report in found.renderers:
            assert callable(renderer(report, name)) and name in formats_of(report)
