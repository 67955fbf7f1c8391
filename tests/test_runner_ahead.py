"""Sandboxes built ahead of time (verify/runner/warm.py, `ahead=True`): the next run of
the same program takes one, and nothing about the run may differ from a fresh sandbox."""
import dataclasses
import functools
import shutil
from pathlib import Path

import pytest

from verify.runner import Program, pools, warm
from verify.runner import run_program as run_cold

pytestmark = pytest.mark.skipif(not shutil.which("bwrap"),
                                reason="built ahead only under bubblewrap with verify-init")


run_program = functools.partial(run_cold, ahead=True)


@pytest.fixture(autouse=True)
def empty_pool(use_isolation, monkeypatch):
    """Sandboxes are built ahead only without a cgroup per run (each would hold one), and
    where the fork server (which comes first: test_runner_forkserver.py) is not used."""
    monkeypatch.setenv("VERIFY_FORKSERVER", "off")
    if use_isolation("bwrap", cgroups=False).helper is None:
        pytest.skip("built ahead only with verify-init")
    pools.shared().built_ahead.close()
    yield
    pools.shared().built_ahead.close()


def program(folder: Path, text: str) -> Program:
    source = folder / "show.sh"
    source.write_text(text)
    return Program("bash", source)


def waiting_sandboxes() -> int:
    return pools.shared().built_ahead.waiting()


def test_the_next_run_takes_a_sandbox_built_ahead_and_is_still_a_fresh_one(tmp_path):
    show = program(tmp_path, 'echo "$(id -u) $$ $(cat data.txt)"; read line; echo "got $line"; echo x > data.txt\n')
    (tmp_path / "data.txt").write_text("first\n")
    first = run_program(show, stdin=b"zero\n")
    assert waiting_sandboxes() == 0                      # none for a program run only once
    first = run_program(show, stdin=b"one\n")
    assert waiting_sandboxes() >= 1
    second = run_program(show, stdin=b"two\n")
    assert first.ok and second.ok
    (uid1, _, data1), got1 = first.stdout.decode().splitlines()[0].split(), first.stdout.decode().splitlines()[1]
    (uid2, _, data2), got2 = second.stdout.decode().splitlines()[0].split(), second.stdout.decode().splitlines()[1]
    assert (data1, got1, data2, got2) == ("first", "got one", "first", "got two")   # its own copy, its own stdin
    assert uid1 != uid2                                  # a new uid each run
    assert (tmp_path / "data.txt").read_text() == "first\n"   # the submission is never written


def test_a_sandbox_built_before_the_folder_changed_is_not_used(tmp_path):
    show = program(tmp_path, "cat data.txt\n")
    (tmp_path / "data.txt").write_text("old\n")
    assert run_program(show).stdout == b"old\n"
    assert run_program(show).stdout == b"old\n"
    assert waiting_sandboxes() >= 1
    (tmp_path / "data.txt").write_text("new contents\n")
    assert run_program(show).stdout == b"new contents\n"


def test_limits_and_arguments_are_part_of_what_must_match(tmp_path):
    show = program(tmp_path, 'echo "$@"\n')
    assert run_program(show, args=["a"]).stdout == b"a\n"
    assert run_program(show, args=["a"]).stdout == b"a\n"      # now sandboxes for ["a"] wait
    assert waiting_sandboxes() >= 1
    assert run_program(show, args=["b", "c"]).stdout == b"b c\n"
    assert run_program(show, args=["a"]).stdout == b"a\n"


def test_waiting_sandboxes_are_bounded_and_removed_without_running_anything(tmp_path):
    for index in range(4):
        folder = tmp_path / f"entry{index}"
        folder.mkdir()
        run_program(program(folder, "echo run\n"))
        run_program(program(folder, "echo run\n"))
    assert waiting_sandboxes() <= warm.MAX_READY
    processes = pools.shared().built_ahead.close()
    assert waiting_sandboxes() == 0
    assert processes
    for process in processes:
        # bwrap (and so its namespace) is gone, and verify-init left without running the program
        assert process.returncode == 125


def test_off_unless_asked_for(tmp_path):
    show = program(tmp_path, "echo hi\n")
    for _ in range(3):
        assert run_cold(show).stdout == b"hi\n"
    assert waiting_sandboxes() == 0


def test_asked_for_with_a_cgroup_per_run_it_runs_as_usual(tmp_path, use_isolation):
    chosen = use_isolation("bwrap", cgroups=True)
    if chosen.cgroups is None:
        pytest.skip("no cgroup per run here")
    show = program(tmp_path, "echo hi\n")
    for _ in range(3):
        result = run_program(show)
        assert result.stdout == b"hi\n" and result.accounting == chosen.cgroups.name
    assert waiting_sandboxes() == 0


def test_an_isolation_passed_explicitly_is_the_one_used(tmp_path, use_isolation):
    """Configured with a cgroup per run, a run given an isolation without one is built ahead."""
    chosen = use_isolation("bwrap", cgroups=True)
    explicit = dataclasses.replace(chosen, cgroups=None)
    show = program(tmp_path, "echo hi\n")
    for _ in range(2):
        result = run_program(show, isolation=explicit)
        assert result.stdout == b"hi\n" and result.accounting == "rlimits" and result.isolation == explicit.name
    assert waiting_sandboxes() >= 1
