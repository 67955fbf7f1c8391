"""The grading core on real runners: bubblewrap and rlimits give the same verdict."""
from __future__ import annotations

from tests.unit.test_grading import Expect
from verify.contests.contract import BatchTask
from verify.grading import grade_batch
from verify.runner import Limits, Program


def test_the_bubblewrap_and_rlimits_runners_give_the_same_verdict(tmp_path):
    from verify.grading import bubblewrap_runner, rlimits_runner
    source = tmp_path / "prog.py"
    source.write_text("print('ok')\n")
    task = BatchTask("case", Program("python", source), b"", Expect)
    sandboxed, limited = bubblewrap_runner(), rlimits_runner()
    assert sandboxed.isolation.startswith("bubblewrap") and limited.isolation.startswith("no sandbox")
    for runner in (sandboxed, limited):
        result = grade_batch(runner, task, Limits(wall_time=10, cpu_time=10))
        assert result.verdict.accepted and result.isolation == runner.isolation, result.verdict
