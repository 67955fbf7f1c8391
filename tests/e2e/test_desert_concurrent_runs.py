"""The concurrent desert judge against real entries."""
from __future__ import annotations

import gc

from tests.unit.test_desert_concurrent import HANG_GUARD, desert_threads
from verify.contests.contract import TestCase
from verify.verdict import Status


def _entry(folder, program: str):
    from verify.entries import load_entry
    (folder / "entry.toml").write_text('name = "t"\ncontest = "desert"\nlanguage = "python"\nsource = "e.py"\n')
    (folder / "e.py").write_text(program)
    return load_entry(folder)


def _no_desert_thread_left() -> bool:
    for thread in desert_threads():
        thread.join(HANG_GUARD)
    return not any(thread.is_alive() for thread in desert_threads())


def test_a_run_rejected_early_is_stopped_and_leaves_no_thread(tmp_path):
    from verify.grading import LocalRunner, grade_case
    from verify.runner import Limits
    entry = _entry(tmp_path, 'import sys\nprint("R+9")\nwhile True:\n    sys.stdout.write("R+0\\nL+0\\n" * 4096)\n')
    case = TestCase("corridor", b"S...E\n", None, ("S...E\n",))
    result = grade_case(LocalRunner(), entry, case, Limits(wall_time=20, cpu_time=20))
    assert result.verdict.status is Status.WRONG, result.verdict.message
    assert result.verdict.message.startswith("attempt 1, turn 1 at (0,1)")
    assert _no_desert_thread_left()


def test_a_run_killed_for_its_time_leaves_no_thread(tmp_path):
    from verify.grading import LocalRunner, grade_case
    from verify.runner import Limits
    entry = _entry(tmp_path, 'import sys, time\nprint("R+0", flush=True)\ntime.sleep(60)\n')
    case = TestCase("corridor", b"S...E\n", None, ("S...E\n",))
    result = grade_case(LocalRunner(), entry, case, Limits(wall_time=1, cpu_time=1))
    assert result.verdict.status is Status.TIME_LIMIT
    gc.collect()                            # nobody calls finish: the dropped judge stops its worker
    assert _no_desert_thread_left()
