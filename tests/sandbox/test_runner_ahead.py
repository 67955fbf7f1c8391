"""Sandboxes built ahead of time (verify/runner/warm.py, `ahead=True`): the next run of
the same program takes one, and nothing about the run may differ from a fresh sandbox."""
import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from verify.runner import Isolation, Program, RunResult, warm
from verify.runner import run_program as run_cold
from verify.runner.pools import Pools

pytestmark = pytest.mark.skipif(not shutil.which("bwrap"),
                                reason="built ahead only under bubblewrap with verify-init")


@dataclasses.dataclass
class Ahead:
    """Runs asked ahead under `isolation`, their boxes kept in the test's own `pools`."""
    isolation: Isolation
    pools: Pools

    def run(self, program: Program, **options: Any) -> RunResult:
        options.setdefault("isolation", self.isolation)
        return run_cold(program, ahead=True, pools=self.pools, **options)

    def waiting(self) -> int:
        return self.pools.built_ahead.waiting()


@pytest.fixture(autouse=True)
def ahead(use_isolation):
    """Sandboxes are built ahead only without a cgroup per run (each would hold one), and
    where the fork server (which comes first: test_runner_forkserver.py) is not used."""
    chosen = use_isolation("bwrap", cgroups=False)
    if chosen.helper is None:
        pytest.skip("built ahead only with verify-init")
    with Pools(forkserver=False) as own:
        yield Ahead(chosen, own)


def program(folder: Path, text: str) -> Program:
    source = folder / "show.sh"
    source.write_text(text)
    return Program("bash", source)


def test_the_next_run_takes_a_sandbox_built_ahead_and_is_still_a_fresh_one(tmp_path, ahead):
    show = program(tmp_path, 'echo "$(id -u) $$ $(cat data.txt)"; read line; echo "got $line"; echo x > data.txt\n')
    (tmp_path / "data.txt").write_text("first\n")
    first = ahead.run(show, stdin=b"zero\n")
    assert ahead.waiting() == 0                      # none for a program run only once
    first = ahead.run(show, stdin=b"one\n")
    assert ahead.waiting() >= 1
    second = ahead.run(show, stdin=b"two\n")
    assert first.ok and second.ok
    (uid1, _, data1), got1 = first.stdout.decode().splitlines()[0].split(), first.stdout.decode().splitlines()[1]
    (uid2, _, data2), got2 = second.stdout.decode().splitlines()[0].split(), second.stdout.decode().splitlines()[1]
    assert (data1, got1, data2, got2) == ("first", "got one", "first", "got two")   # its own copy, its own stdin
    assert uid1 != uid2                                  # a new uid each run
    assert (tmp_path / "data.txt").read_text() == "first\n"   # the submission is never written


def test_a_sandbox_built_before_the_folder_changed_is_not_used(tmp_path, ahead):
    show = program(tmp_path, "cat data.txt\n")
    (tmp_path / "data.txt").write_text("old\n")
    assert ahead.run(show).stdout == b"old\n"
    assert ahead.run(show).stdout == b"old\n"
    assert ahead.waiting() >= 1
    (tmp_path / "data.txt").write_text("new contents\n")
    assert ahead.run(show).stdout == b"new contents\n"


def test_limits_and_arguments_are_part_of_what_must_match(tmp_path, ahead):
    show = program(tmp_path, 'echo "$@"\n')
    assert ahead.run(show, args=["a"]).stdout == b"a\n"
    assert ahead.run(show, args=["a"]).stdout == b"a\n"      # now sandboxes for ["a"] wait
    assert ahead.waiting() >= 1
    assert ahead.run(show, args=["b", "c"]).stdout == b"b c\n"
    assert ahead.run(show, args=["a"]).stdout == b"a\n"


def test_waiting_sandboxes_are_bounded_and_removed_without_running_anything(tmp_path, ahead):
    for index in range(4):
        folder = tmp_path / f"entry{index}"
        folder.mkdir()
        ahead.run(program(folder, "echo run\n"))
        ahead.run(program(folder, "echo run\n"))
    assert ahead.waiting() <= warm.MAX_READY
    processes = ahead.pools.built_ahead.close()
    assert ahead.waiting() == 0
    assert processes
    for process in processes:
        # bwrap (and so its namespace) is gone, and verify-init left without running the program
        assert process.returncode == 125


def test_off_unless_asked_for(tmp_path, ahead):
    show = program(tmp_path, "echo hi\n")
    for _ in range(3):
        assert run_cold(show, isolation=ahead.isolation).stdout == b"hi\n"
    assert ahead.waiting() == 0


def test_asked_for_with_a_cgroup_per_run_it_runs_as_usual(tmp_path, use_isolation, ahead):
    chosen = use_isolation("bwrap", cgroups=True)
    if chosen.cgroups is None:
        pytest.skip("no cgroup per run here")
    show = program(tmp_path, "echo hi\n")
    for _ in range(3):
        result = ahead.run(show, isolation=chosen)
        assert result.stdout == b"hi\n" and result.accounting == chosen.cgroups.name
    assert ahead.waiting() == 0


def test_an_isolation_passed_explicitly_is_the_one_used(tmp_path, use_isolation, ahead):
    """Beside an isolation with a cgroup per run, a run given one without is built ahead."""
    chosen = use_isolation("bwrap", cgroups=True)
    explicit = dataclasses.replace(chosen, cgroups=None)
    show = program(tmp_path, "echo hi\n")
    for _ in range(2):
        result = ahead.run(show, isolation=explicit)
        assert result.stdout == b"hi\n" and result.accounting == "rlimits" and result.isolation == explicit.name
    assert ahead.waiting() >= 1
