"""A fork server's steps share one cgroup (verify/runner/cgroup.py, KeptCgroup), made once
and kept: each step's counts (CPU time, peak memory, out-of-memory kills, refused forks)
are its own, taken as differences from its start, so a step is judged by what it did
alone, whatever the steps before it did."""
import os
import shutil

import pytest

from verify.runner import Limits, Program, forkserver, reaper
from verify.runner import run_program as run
from verify.runner.pools import Pools

pytestmark = pytest.mark.skipif(not shutil.which("bwrap") or os.geteuid() != 0,
                                reason="the fork server runs under bubblewrap, as root")

LIMITS = Limits(wall_time=10, cpu_time=5, memory=256 << 20, output=1 << 20, processes=16)
PROGRAMS = {
    "hog": "x = bytearray(400 << 20)\n",                                     # over the memory limit
    "big": "x = bytearray(150 << 20)\nprint('big')\n",
    "spin": "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end:\n    pass\nprint('spun')\n",
    "forks": "import os, time\nfor _ in range(40):\n    try:\n        os.fork() or time.sleep(5)\n    except OSError:\n"
             "        break\nprint('forked')\n",
    "small": "print('small')\n",
}


@pytest.fixture
def steps(tmp_path, use_isolation):
    chosen = use_isolation("bwrap", cgroups=True)
    if not forkserver.possible(chosen) or chosen.cgroups is None:
        pytest.skip("no fork server with a cgroup here")
    programs = {}
    for name, text in PROGRAMS.items():
        (tmp_path / f"{name}.py").write_text(text)
        programs[name] = Program("python", tmp_path / f"{name}.py")
    with Pools() as pools:
        def step(name: str):
            return run(programs[name], ahead=True, isolation=chosen, pools=pools, limits=LIMITS)
        step.pools = pools
        step.isolation = chosen
        yield step


def _run_groups(isolation) -> set[str]:
    """This process's run groups."""
    return {name for parent in isolation.cgroups.parent_folders for name in os.listdir(parent)
            if name.startswith(reaper.cgroup_name_prefix())}


def test_each_step_counts_only_what_it_used(steps):
    small = steps("small")
    assert small.ok and small.accounting.startswith("cgroup")
    for before in ("hog", "big", "spin", "forks"):
        first = steps(before)
        after = steps("small")                  # the same server and cgroup, the step after
        assert steps.pools.fork_servers.idle() == 1
        assert after.ok and after.limit is None, (before, after)
        assert after.peak_memory < small.peak_memory + (40 << 20), (before, first.peak_memory, after.peak_memory)
        assert after.cpu_time < small.cpu_time + 0.25, (before, first.cpu_time, after.cpu_time)
        if before == "hog":
            assert first.limit == "memory"
        elif before == "big":
            assert first.ok and first.peak_memory >= 150 << 20
        elif before == "spin":
            assert first.ok and first.cpu_time >= 0.5
        else:
            assert first.limit == "processes"


def test_the_server_keeps_one_group_for_all_its_steps_and_removes_it(steps):
    steps("small")
    groups = _run_groups(steps.isolation)
    assert groups                                  # the server's group, kept
    for _ in range(3):
        assert steps("small").ok
        assert _run_groups(steps.isolation) == groups      # no group made or removed per step
    steps.pools.close()
    assert not (_run_groups(steps.isolation) & groups)
