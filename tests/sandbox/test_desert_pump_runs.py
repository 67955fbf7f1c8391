"""Real runs judged by the desert judge reading the run's pipe itself: the same case result
(verdict, output counted, limit) as when the runner reads the pipe and feeds the judge."""
from __future__ import annotations

import pytest

from verify.contests.contract import TestCase
from verify.contests.desert import judge as desert_judge
from verify.contests.desert.kernel import compiled_pump

pytestmark = pytest.mark.skipif(compiled_pump() is None, reason="no compiled kernel (no C compiler)")

CORRIDOR = TestCase("corridor", b"S.........E\n", None, ("S.........E\n",))
WALK = "R+0\\nL+2\\n" * 4096
# the reference entry's winning attempt on CORRIDOR
WIN = ("R-3 L+5 R+1 R-3 L+1 L+5 R-3 L+5 R+1 R+1 R-3 L+1 L+1 L+5 R+1 R-3 L+1 L+5 R-3 L+5 R+1 R+1 R+1 R-3 L+1 "
       "L+1 L+1 L+5 R-3 L+5 R+1 R+1 R-3 L+1 L+1 L+5 R+1 R-3 L+1 L+5 R-3 L+5 R+1 R+1 R+1 R+1 R-3 L+1 L+1 L+1 "
       "L+1 L+5 R+1 R+1 R+1 R+1 R+1 R+0 R+0 R+0 R+0 R+0").replace(" ", "\\n") + "\\nS##1#2####E\\n"


def _entry(folder, program: str):
    from verify.entries import load_entry
    (folder / "entry.toml").write_text('name = "t"\ncontest = "desert"\nlanguage = "python"\nsource = "e.py"\n')
    (folder / "e.py").write_text(program)
    return load_entry(folder)


def both_ways(monkeypatch, entry, limits):
    """The case's result with the judge reading the pipe, then with the runner feeding it, and
    how many times the judge's pipe reader was called in the first run."""
    from verify.grading import LocalRunner, grade_case
    calls = []
    reader_of = desert_judge.DesertJudge.pipe_reader

    def counted(self):
        reader = reader_of(self)
        if reader is None:
            return None

        def read(fd: int, budget: int):
            calls.append(budget)
            return reader(fd, budget)
        return read

    with LocalRunner() as runner:
        monkeypatch.setattr(desert_judge.DesertJudge, "pipe_reader", counted)
        piped = grade_case(runner, entry, CORRIDOR, limits)
        monkeypatch.setattr(desert_judge.DesertJudge, "pipe_reader", lambda self: None)
        fed = grade_case(runner, entry, CORRIDOR, limits)
    return piped, fed, len(calls)


def same(piped, fed) -> None:
    assert piped.verdict.to_dict() == fed.verdict.to_dict()
    assert piped.stdout_bytes == fed.stdout_bytes


def test_a_long_accepted_run(tmp_path, monkeypatch):
    from verify.runner import Limits
    program = (f'import sys\nfor _ in range(100):\n    sys.stdout.write("{WALK}")\n'
               f'sys.stdout.write("R+0\\n" * 5 + "S#####....E\\n" + "{WIN}")\n')
    piped, fed, calls = both_ways(monkeypatch, _entry(tmp_path, program), Limits(wall_time=30, cpu_time=30))
    assert piped.verdict.accepted, piped.verdict.message
    assert calls > 0 and piped.stdout_bytes > 100 * 4096 * 8
    same(piped, fed)


def test_a_run_rejected_early_is_stopped(tmp_path, monkeypatch):
    from verify.runner import Limits
    program = f'import sys\nsys.stdout.write("{WALK}" * 50 + "R+9\\n")\nwhile True:\n    sys.stdout.write("{WALK}")\n'
    piped, fed, calls = both_ways(monkeypatch, _entry(tmp_path, program), Limits(wall_time=20, cpu_time=20))
    assert piped.verdict.message.startswith("attempt 1, turn 409601 at (0,1)"), piped.verdict.message
    assert calls > 0
    assert piped.verdict.to_dict() == fed.verdict.to_dict()     # (how much was read before the stop may differ)


def test_the_output_limit_is_the_runners(tmp_path, monkeypatch):
    from verify.runner import Limits
    program = f'import sys\nwhile True:\n    sys.stdout.write("{WALK}")\n'
    limits = Limits(wall_time=20, cpu_time=20, output=3_000_001)
    piped, fed, calls = both_ways(monkeypatch, _entry(tmp_path, program), limits)
    assert piped.verdict.status.name == "OUTPUT_LIMIT", piped.verdict.message
    assert calls > 0
    assert piped.verdict.to_dict() == fed.verdict.to_dict()
    # (what is counted past the limit is the last read's size: the pipe's, either way)
    assert piped.stdout_bytes > limits.output and fed.stdout_bytes > limits.output
