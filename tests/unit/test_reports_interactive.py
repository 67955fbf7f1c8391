"""An interactive case's result carries what its runs cost (peak memory, CPU time) and the isolation,
so the check report shows them like a batch case's."""
from pathlib import Path

from verify.contests.contract import InteractiveTask
from verify.grading import FakeRun, FakeRunner, grade_interactive
from verify.grading.fake import FakeSession
from verify.reports.checks import CheckView, check_report
from verify.results import CheckResult
from verify.runner import Limits, Program
from verify.verdict import Verdict

LIMITS = Limits(wall_time=2.0, cpu_time=1.0, memory=64 << 20, output=1 << 10, processes=8)
PROGRAM = Program("python", Path("/entries/x/prog.py"))


def _play(ask):
    return Verdict.accept(" ".join(ask(bytes([b]) + b"\n").line or "" for b in b"abc"))


def test_a_per_step_match_keeps_the_largest_peak_and_the_summed_cpu_time():
    sizes = {b"a": 3 << 20, b"b": 9 << 20, b"c": 5 << 20}
    runner = FakeRunner({"prog.py": lambda stdin, args: FakeRun(stdin, cpu_time=0.25, peak_memory=sizes[stdin[:1]])})
    result = grade_interactive(runner, InteractiveTask("walk", PROGRAM, _play, False, LIMITS, 1.0), "maze/x")
    assert result.verdict.accepted and result.memory == 9 << 20 and result.cpu_time == 0.75
    assert result.isolation == "fake"
    report = check_report([CheckResult("maze/x", [result])], "table", CheckView(compact=True, width=100))
    assert "9 MiB" in report and "(isolation: fake)" in report


class _MeasuredSession(FakeSession):
    peak_memory = 7 << 20
    cpu_time = 0.5


class _MeasuredRunner(FakeRunner):
    def session(self, prepared, limits):
        return _MeasuredSession(self, prepared.program.source.name, prepared.script)


def test_a_persistent_match_takes_the_sessions_figures_when_there_are_some():
    script = {"prog.py": lambda stdin, args: FakeRun(stdin)}
    measured = grade_interactive(_MeasuredRunner(script), InteractiveTask("walk", PROGRAM, _play, True, LIMITS, 1.0))
    assert (measured.memory, measured.cpu_time) == (7 << 20, 0.5)
    plain = grade_interactive(FakeRunner(script), InteractiveTask("walk", PROGRAM, _play, True, LIMITS, 1.0), "m/x")
    assert (plain.memory, plain.cpu_time, plain.isolation) == (0, 0.0, "fake")
    compact = check_report([CheckResult("m/x", [plain])], "table", CheckView(compact=True, width=100))
    entry_line = next(line for line in compact.splitlines() if line.startswith("m/x"))
    assert entry_line.split()[-1] == "-"           # memory not measured: shown as "-", not blank
