"""The pages' work done while the runs go on (verify.site.ahead), on the desert's replays: a
replay built ahead is the one the page would build, and it is used only for the run, the verdict
figures, the map and the rules it was built from; the hook never changes a verdict."""
from __future__ import annotations

from pathlib import Path

import pytest

from verify.commands.jobs import load_checks, run_checks
from verify.commands.site import SiteCapture, write_site
from verify.contests.contract import BatchTask, CaseJob, TestCase
from verify.contests.desert import DesertCase, DesertOptions
from verify.contests.desert.judge import DesertJudge
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import STANDARD
from verify.contests.desert.presenter import PRESENTER
from verify.contests.desert.replay import desert_replay
from verify.grading import LocalRunner
from verify.runner import Limits
from verify.site.ahead import JobsAhead, built_ahead
from verify.site.capture import OutputCapture, capturing
from verify.verdict import Verdict

REPO = Path(__file__).resolve().parents[2]
SPEC_MAP = b".....S.\n.......\n.......\nE......\n....8..\n"
SPEC_OUTPUT = (b"D+0\nD+0\nD+0\nD+0\nL+5\nL+0\nL+0\nL+0\nL+0\nU+0\n"
               b".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n")
RULES = (STANDARD, "moves-first", "turns")


def _job(desert: DesertMap, stats: dict, notation=STANDARD, order="moves-first", deaths="turns") -> CaseJob:
    """The desert presenter's job for the page of a case on ``desert`` with these figures and rules."""
    case = TestCase("spec", desert.text().encode(), payload=DesertCase(desert))
    return PRESENTER.case_job(DesertOptions(notation, order, deaths), case, Verdict.accept(**stats))


def _built(capture: OutputCapture, desert: DesertMap, stats: dict, *rules) -> dict | None:
    return built_ahead(capture, _job(desert, stats, *rules))


def _run(task: BatchTask, output: bytes) -> Verdict:
    """What the runner does with a batch task's judge: feed the output in chunks, then finish."""
    judge = task.judge()
    for start in range(0, len(output), 16):
        early = judge.feed(output[start:start + 16])
        if early is not None:
            return early
    return judge.finish()


@pytest.fixture
def ahead():
    built = JobsAhead()
    yield built
    built.close()


def _task(desert: DesertMap, capture: OutputCapture, ahead: JobsAhead) -> BatchTask:
    task = BatchTask("spec", None, b"", lambda: DesertJudge(desert))  # type: ignore[arg-type]
    return capturing(task, capture, lambda kept, verdict: ahead.submit(kept, _job(desert, verdict.stats)))


@pytest.mark.parametrize("output", [SPEC_OUTPUT, b"D+0\nD+9\n", b"L+0\n" * 3])
def test_a_replay_built_ahead_is_the_one_the_page_builds(ahead, output):
    desert = DesertMap.parse(SPEC_MAP)
    capture = OutputCapture()
    verdict = _run(_task(desert, capture, ahead), output)
    built = _built(capture, desert, verdict.stats, *RULES)
    assert built is not None
    assert built == desert_replay(desert, capture, verdict.stats, *RULES)


def test_a_replay_built_ahead_is_used_only_for_what_it_was_built_from(ahead):
    desert = DesertMap.parse(SPEC_MAP)
    capture = OutputCapture()
    task = _task(desert, capture, ahead)
    verdict = _run(task, SPEC_OUTPUT)
    assert _built(capture, desert, verdict.stats, *RULES) is not None
    assert _built(capture, desert, {**verdict.stats, "attempts": 9}, *RULES) is None
    other_map = DesertMap.parse(SPEC_MAP.replace(b"8", b"7"))
    assert _built(capture, other_map, verdict.stats, *RULES) is None
    assert _built(capture, desert, verdict.stats, STANDARD, "map-first", "turns") is None
    capture.add(b"D+0\n")           # more output kept after the verdict: not what was built from
    assert _built(capture, desert, verdict.stats, *RULES) is None
    judge = task.judge()            # the case runs again: what was built is from the run before
    judge.feed(b"D+0\n")
    assert _built(capture, desert, verdict.stats, *RULES) is None
    assert _built(OutputCapture(), desert, verdict.stats, *RULES) is None


def test_a_failing_hook_changes_no_verdict():
    desert = DesertMap.parse(SPEC_MAP)
    calls = []

    def broken(capture: OutputCapture, verdict: Verdict) -> None:
        calls.append(verdict)
        raise RuntimeError("the hook's own bug")

    task = BatchTask("spec", None, b"", lambda: DesertJudge(desert))  # type: ignore[arg-type]
    capture = OutputCapture()
    for output in (SPEC_OUTPUT, b"D+0\nD+9\n"):
        verdict = _run(capturing(task, capture, broken), output)
        assert verdict == _run(task, output)
        assert calls[-1] == verdict
    assert len(calls) == 2          # once a run, whether the verdict came early or at the end


def test_a_desert_check_with_html_uses_the_replays_built_during_its_runs(tmp_path, monkeypatch):
    entry = REPO / "submissions" / "desert" / "python-golf"
    checks = load_checks([entry], REPO / "testcases" / "desert", ["adjacent-*", "centre-start", "demo"])
    capture = SiteCapture()
    checked = run_checks(LocalRunner(), checks, Limits(wall_time=30, cpu_time=30), jobs=2, observers=[capture])
    assert len(checked[0].results) >= 3
    built = {}
    for position, check in enumerate(checked):
        for result in check.results:
            output = capture.output(position, result.case)
            assert output is not None and output.ahead is not None, result.case
            built[result.case] = output.ahead.result.result()

    import verify.contests.desert.presenter as presenter

    def not_built_again(*args, **kwargs):
        raise AssertionError("a replay built ahead was built again")

    monkeypatch.setattr(presenter, "desert_replay", not_built_again)
    write_site(tmp_path / "site", checks, checked, capture, isolation=LocalRunner().isolation)
    pages_written = list((tmp_path / "site" / "replays").rglob("*.html"))
    assert len(pages_written) == len(built)
