"""The isolation's two policies (sandbox and accounting), and what every run's result and
environment carry whatever they are: stderr's head and tail, the run's own "{tmp}"."""
from __future__ import annotations

import pytest

from verify.runner import SandboxUnavailable, isolation, machine
from verify.settings import Settings


@pytest.mark.parametrize("accounting", ["auto", "cgroup"])
def test_without_a_cgroup_auto_and_cgroup_refuse_with_the_fix(monkeypatch, accounting):
    monkeypatch.setattr(isolation, "probed_setup", lambda: None)
    with pytest.raises(SandboxUnavailable) as refused:
        isolation.resolve("none", accounting)
    line = str(refused.value)
    assert "\n" not in line and "fix:" in line and "--accounting rlimits" in line
    assert refused.value.exit_code == 2


def test_unknown_accounting_words_are_one_line():
    with pytest.raises(SandboxUnavailable, match="unknown accounting"):
        isolation.resolve("none", "maybe")
    with pytest.raises(SandboxUnavailable, match="VERIFY_ACCOUNTING"):
        isolation.from_settings(Settings.from_environment({"VERIFY_ACCOUNTING": "sometimes", "VERIFY_SANDBOX": "none"}))


def test_no_sandbox_without_verify_init_is_refused_with_the_fix():
    with pytest.raises(SandboxUnavailable, match="apt-get install gcc"):
        isolation.resolve("none", "rlimits", helper=False)
    without = Settings.from_environment({"VERIFY_HELPER": "none", "VERIFY_SANDBOX": "none", "VERIFY_ACCOUNTING": "rlimits"})
    with pytest.raises(SandboxUnavailable, match="apt-get install gcc"):
        isolation.from_settings(without)


@pytest.mark.parametrize("uid_map, gid_map, expected", [
    ([(0, 1 << 32)], [(0, 1 << 32)], machine.RUN_UIDS),                       # a host
    ([(0, 1), (1, 65537)], [(0, 1), (1, 65537)], (37768, 65537)),             # rootless Podman's
    ([(0, 1)], [(0, 1)], None),                                               # root alone mapped
    ([(0, 65536)], [(0, 2000)], None),                                        # too few gids
])
def test_a_runs_own_uid_comes_from_the_ids_its_namespace_maps(monkeypatch, uid_map, gid_map, expected):
    monkeypatch.setattr(machine, "_mapped", lambda path: uid_map if "uid_map" in path else gid_map)
    assert machine.run_uid_range() == expected


def test_root_with_too_few_mapped_ids_is_refused_never_run_as_root(monkeypatch):
    monkeypatch.setattr(machine, "run_uid_range", lambda: None)
    monkeypatch.setattr(isolation.os, "geteuid", lambda: 0)
    with pytest.raises(SandboxUnavailable, match="maps too few ids"):
        isolation.resolve("none", "rlimits")
