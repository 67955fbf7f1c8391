"""Shared test helpers: switching the runner's isolation for one test."""
from __future__ import annotations

import shutil

import pytest

from verify.runner import cgroup, isolation


def machine_modes() -> list[tuple[str, bool]]:
    """Every (sandbox policy, cgroup per run) pair this machine offers."""
    policies = ["bwrap", "none"] if shutil.which("bwrap") else ["none"]
    accountings = [True, False] if cgroup.probed_setup() is not None else [False]
    return [(policy, with_cgroups) for policy in policies for with_cgroups in accountings]


def mode_id(mode: tuple[str, bool]) -> str:
    return f"{mode[0]}-{'cgroup' if mode[1] else 'rlimits'}"


@pytest.fixture
def use_isolation(monkeypatch):
    """use_isolation(policy, cgroups=True): configure the runner for this test only (cgroups:
    accounting cgroup, else rlimits), and the environment for the verify commands it starts."""
    def configure(policy: str = "auto", cgroups: bool = True) -> isolation.Isolation:
        accounting = "cgroup" if cgroups else "rlimits"
        monkeypatch.setenv("VERIFY_ACCOUNTING", accounting)
        monkeypatch.setenv("VERIFY_SANDBOX", policy)
        return isolation.configure(policy, accounting)
    yield configure
    monkeypatch.undo()
    isolation.reset()
