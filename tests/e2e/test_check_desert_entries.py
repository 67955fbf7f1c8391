"""The desert entries pass every test case and their demo maps
(through the real pipeline: entry.toml, runner, sandbox, the desert judge)."""
from pathlib import Path

import pytest

from verify.commands.jobs import load_checks, run_checks
from verify.golf import score_entry
from verify.grading import LocalRunner
from verify.runner import Limits

REPO = Path(__file__).parents[2]
ENTRIES = ["javascript", "perl-deaths", "python-golf", "perl-golf", "awk", "tcl", "perl-lrud-xy"]


@pytest.fixture(scope="module")
def checks():
    folders = [REPO / "submissions" / "desert" / name for name in ENTRIES]
    loaded = load_checks(folders, REPO / "testcases" / "desert")
    return {c.entry.folder.name: c for c in run_checks(LocalRunner(), loaded, Limits(wall_time=30, cpu_time=30), jobs=2)}


@pytest.mark.parametrize("name", ENTRIES)
def test_entry_passes_every_case_and_its_demo(checks, name):
    check = checks[name]
    failed = [(r.case, str(r.verdict.status), r.verdict.message) for r in check.results if not r.passed]
    assert failed == []
    assert len(check.results) == len(check.tasks) > 20
    assert check.results[-1].case == "demo"


def test_perl_deaths_dies_four_times_before_winning_on_open_maps(checks):
    deaths = [r.verdict.stats.get("deaths") for r in checks["perl-deaths"].results]
    assert max(deaths) == 4
    demo = checks["perl-deaths"].results[-1].verdict
    assert demo.stats["deaths"] == 4 and demo.stats["attempts"] == 5


def test_golfed_scores(checks):
    assert score_entry(checks["perl-golf"].entry).header("Perl") == "# Perl -l, 628 + 1 = 629 bytes"
    assert score_entry(checks["python-golf"].entry).total == 719
