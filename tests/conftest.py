"""Shared test fixtures: the settings and isolation runs get, chosen for one test; the attack count."""
from __future__ import annotations

import os

import pytest

from verify.runner import isolation
from verify.settings import Settings


@pytest.fixture
def settings() -> Settings:
    """The settings the test's environment gives (what the verify it starts reads)."""
    return Settings.from_environment(os.environ)


@pytest.fixture
def default_isolation(settings) -> isolation.Isolation:
    """The isolation those settings ask for: what `verify` run here would use."""
    return isolation.from_settings(settings)


@pytest.fixture
def use_isolation(monkeypatch):
    """use_isolation(policy, cgroups=True): the isolation of that policy (cgroups: accounting
    cgroup, else rlimits) with the rest of the test's settings, for the test to pass to its
    runs; the verify commands it starts get it through their environment."""
    def choose(policy: str = "auto", cgroups: bool = True) -> isolation.Isolation:
        accounting = "cgroup" if cgroups else "rlimits"
        monkeypatch.setenv("VERIFY_ACCOUNTING", accounting)
        monkeypatch.setenv("VERIFY_SANDBOX", policy)
        # the rest of the test's environment (VERIFY_HELPER, VERIFY_SECCOMP...) as verify reads it
        return isolation.from_settings(Settings.from_environment(os.environ, sandbox=policy, accounting=accounting))
    yield choose
    monkeypatch.undo()


# -- the attack count -----------------------------------------------------------------------
# Each test of these modules is an attack a hostile entry, pull request, input or client
# makes, in one mode (docs/security.md, "Attacks tried"): the run ends with how many were
# tried and how many held (passed); a strict xfail is tried and not held, where the docs say
# it is not (a limit of a mode). A skipped one was not tried.
ATTACK_MODULES = frozenset({
    "test_runner_hostile", "test_runner_sockets", "test_runner_seccomp", "test_runner_ending",
    "test_runner_judge_failures", "test_nothing_survives", "test_forkserver_channels", "test_forkserver_zygote",
    "test_forkserver_zygote_ruby",
    "test_runner_config_files", "test_golf_files", "test_hostile_inputs", "test_report_escaping",
    "test_trust_ci", "test_trust_cluster", "test_trust_digests", "test_trust_faults", "test_attacks_host",
    # the halves of these that run whole commands or programs
    "test_golf_files_runs", "test_report_escaping_commands", "test_trust_digests_runs", "test_runner_config_files_runs",
})
CONFORMANCE_ATTACKS = ("test_the_one_verdict_and_no_survivor", "test_the_same_as_a_normal_user")
_attacks = {"tried": 0, "held": 0, "documented": 0}


def pytest_runtest_logreport(report):
    path, _, test = report.nodeid.partition("::")
    module = path.rsplit("/", 1)[-1].removesuffix(".py")
    attack = module in ATTACK_MODULES or (module == "test_conformance" and test.startswith(CONFORMANCE_ATTACKS))
    if not attack:
        return
    if report.skipped:
        if report.when == "call" and hasattr(report, "wasxfail"):     # tried, and not held, as documented
            _attacks["tried"] += 1
            _attacks["documented"] += 1
        return
    if report.when == "call" or (report.when == "setup" and report.failed):
        _attacks["tried"] += 1
        _attacks["held"] += report.passed


def pytest_terminal_summary(terminalreporter):
    if _attacks["tried"]:
        documented = f", not held as documented (strict xfail): {_attacks['documented']}" if _attacks["documented"] else ""
        terminalreporter.write_line(f"attacks tried: {_attacks['tried']}, held: {_attacks['held']}{documented}")
