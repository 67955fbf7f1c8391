"""The desert replays built while the runs go on (verify.site.ahead): a replay built ahead is
the one the page would build, and it is used only for the run, the verdict figures, the map and
the rules it was built from; the hook never changes a verdict."""
from __future__ import annotations

from pathlib import Path

import pytest

from verify.challenges.contract import BatchTask
from verify.challenges.desert.judge import DesertJudge
from verify.challenges.desert.map import DesertMap
from verify.challenges.desert.notation import STANDARD
from verify.commands.jobs import load_checks, run_checks
from verify.commands.site import capture_outputs, write_site
from verify.grading import LocalRunner
from verify.runner import Limits
from verify.site.ahead import ReplaysAhead, replay_built_ahead
from verify.site.capture import OutputCapture, capturing
from verify.site.desert import desert_replay
from verify.verdict import Verdict

REPO = Path(__file__).resolve().parent.parent
SPEC_MAP = b".....S.\n.......\n.......\nE......\n....8..\n"
SPEC_OUTPUT = (b"D+0\nD+0\nD+0\nD+0\nL+5\nL+0\nL+0\nL+0\nL+0\nU+0\n"
               b".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n")
RULES = (STANDARD, "moves-first", "turns")


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
    built = ReplaysAhead()
    yield built
    built.close()


def _task(desert: DesertMap, capture: OutputCapture, ahead: ReplaysAhead) -> BatchTask:
    task = BatchTask("spec", None, b"", lambda: DesertJudge(desert))  # type: ignore[arg-type]
    return capturing(task, capture, lambda kept, verdict: ahead.submit(kept, desert, verdict.stats, *RULES))


@pytest.mark.parametrize("output", [SPEC_OUTPUT, b"D+0\nD+9\n", b"L+0\n" * 3])
def test_a_replay_built_ahead_is_the_one_the_page_builds(ahead, output):
    desert = DesertMap.parse(SPEC_MAP)
    capture = OutputCapture()
    verdict = _run(_task(desert, capture, ahead), output)
    built = replay_built_ahead(capture, desert, verdict.stats, *RULES)
    assert built is not None
    assert built == desert_replay(desert, capture, verdict.stats, *RULES)


def test_a_replay_built_ahead_is_used_only_for_what_it_was_built_from(ahead):
    desert = DesertMap.parse(SPEC_MAP)
    capture = OutputCapture()
    task = _task(desert, capture, ahead)
    verdict = _run(task, SPEC_OUTPUT)
    assert replay_built_ahead(capture, desert, verdict.stats, *RULES) is not None
    assert replay_built_ahead(capture, desert, {**verdict.stats, "attempts": 9}, *RULES) is None
    other_map = DesertMap.parse(SPEC_MAP.replace(b"8", b"7"))
    assert replay_built_ahead(capture, other_map, verdict.stats, *RULES) is None
    assert replay_built_ahead(capture, desert, verdict.stats, STANDARD, "map-first", "turns") is None
    capture.add(b"D+0\n")           # more output kept after the verdict: not what was built from
    assert replay_built_ahead(capture, desert, verdict.stats, *RULES) is None
    judge = task.judge()            # the case runs again: what was built is from the run before
    judge.feed(b"D+0\n")
    assert replay_built_ahead(capture, desert, verdict.stats, *RULES) is None
    assert replay_built_ahead(OutputCapture(), desert, verdict.stats, *RULES) is None


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
    captures = capture_outputs(checks)
    run_checks(LocalRunner(), checks, Limits(wall_time=30, cpu_time=30), jobs=2)
    assert len(checks[0].results) >= 3
    built = {}
    for check in checks:
        for result in check.results:
            capture = captures[(id(check), result.case)]
            assert capture.ahead is not None, result.case
            built[result.case] = capture.ahead.replay.result()

    import verify.site.pages as pages

    def not_built_again(*args, **kwargs):
        raise AssertionError("a replay built ahead was built again")

    monkeypatch.setattr(pages, "desert_replay", not_built_again)
    write_site(tmp_path / "site", checks, captures, isolation=LocalRunner().isolation)
    pages_written = list((tmp_path / "site" / "replays").rglob("*.html"))
    assert len(pages_written) == len(built)
