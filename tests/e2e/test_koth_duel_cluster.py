"""The duel (tests/fixtures/duel-contest), a contest outside verify, played on a real Dask cluster:
``verify koth duel --cluster`` over a distributed.LocalCluster of 2 sandboxed worker processes
gives the standings, the site's board and the match logs of a tournament played here, and keeps
its results in the command's cache: the next run reuses them, on the cluster or here.

The contest is installed with pip where the client, the scheduler and the workers run
(docs/contests.md): they unpickle a job's classes by their module. Every ``verify`` is a fresh process, as a user's.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from contest_install import install_contest

distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "duel-contest"
TOURNAMENT = ("koth", "duel", "--rounds", "4", "--seeds", "1,2,3", "-q")
KEPT_TOURNAMENT = ("koth", "duel", "--rounds", "3", "--seeds", "1,2", "--format", "json")

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None,
                                reason="workers run entries only in bubblewrap, which is not installed")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    return install_contest(FIXTURE, tmp_path_factory.mktemp("duel-installed"))


@pytest.fixture(scope="module")
def cluster(installed):
    """A scheduler (in this process) and two worker processes that import the installed contest:
    the scheduler unpickles the jobs too, and a spawned worker starts with this process's sys.path,
    which holds the installation while the cluster runs."""
    sys.path.insert(0, str(installed))
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as started:
            yield started
    finally:
        sys.path.remove(str(installed))


def verify(*args: str, installed: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """``verify ARGS`` from the fixture's folder (its sample entries), the contest found installed."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VERIFY_CONTEST_PATH")}
    env.update(PYTHONPATH=os.pathsep.join([str(installed), str(REPO)]), VERIFY_CACHE=str(cache),
               PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args], cwd=FIXTURE,
                          env=env, check=False, capture_output=True, text=True, timeout=300)


def logs(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): path.read_text() for path in sorted(folder.rglob("*.json"))}


def summary(done: subprocess.CompletedProcess[str]) -> str:
    """The line saying how many matches were reused, of a run that succeeded."""
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("matches: ")]
    return line


def test_results_played_on_the_workers_are_kept_here(cluster, installed, tmp_path):
    cache = tmp_path / "cache"
    there = verify(*KEPT_TOURNAMENT, "--cluster", cluster.scheduler_address, "--logs", str(tmp_path / "there"),
                   installed=installed, cache=cache)
    assert summary(there) == "matches: 0 of 6 reused from the cache, 6 played"
    assert len(list((cache / "matches").iterdir())) == 6
    again = verify(*KEPT_TOURNAMENT, "--cluster", cluster.scheduler_address, "--logs", str(tmp_path / "again"),
                   installed=installed, cache=cache)
    assert summary(again) == "matches: 6 of 6 reused from the cache, 0 played"
    here = verify(*KEPT_TOURNAMENT, "--logs", str(tmp_path / "here"), installed=installed, cache=cache)
    assert summary(here) == "matches: 6 of 6 reused from the cache, 0 played"
    fresh = verify(*KEPT_TOURNAMENT, "--cluster", cluster.scheduler_address, "--fresh", "--logs", str(tmp_path / "fresh"),
                   installed=installed, cache=cache)
    assert summary(fresh) == "matches: 0 of 6 reused from the cache, 6 played"
    assert json.loads(again.stdout) == json.loads(here.stdout) == json.loads(there.stdout) == json.loads(fresh.stdout)
    for log in (tmp_path / "there" / "duels").iterdir():
        assert (tmp_path / "again" / "duels" / log.name).read_text() == log.read_text()


def test_the_workers_play_the_duels_a_tournament_here_plays(cluster, installed, tmp_path):
    here = verify(*TOURNAMENT, "--format", "json", "--logs", str(tmp_path / "here"), installed=installed,
                  cache=tmp_path / "cache")
    assert here.returncode == 0, here.stderr
    # --fresh: the workers play every duel, none reused from the run here
    there = verify(*TOURNAMENT, "--format", "json", "--logs", str(tmp_path / "there"), "--cluster",
                   cluster.scheduler_address, "--fresh", installed=installed, cache=tmp_path / "cache")
    assert there.returncode == 0, there.stderr
    assert json.loads(there.stdout) == json.loads(here.stdout)
    assert len(json.loads(there.stdout)["duels"]) == 9
    assert logs(tmp_path / "there") == logs(tmp_path / "here") != {}


def test_the_table_and_the_site_from_a_cluster_are_the_local_ones(cluster, installed, tmp_path):
    here = verify(*TOURNAMENT, "--html", str(tmp_path / "here"), installed=installed, cache=tmp_path / "cache")
    there = verify(*TOURNAMENT, "--html", str(tmp_path / "there"), "--cluster", cluster.scheduler_address,
                   "--fresh", installed=installed, cache=tmp_path / "cache")
    assert (here.returncode, there.returncode) == (0, 0), here.stderr + there.stderr
    assert there.stdout == here.stdout and "Players (mean points per round)" in there.stdout
    board = (tmp_path / "there" / "index.html").read_text()
    assert board == (tmp_path / "here" / "index.html").read_text()
    assert "Rock-paper-scissors duel" in board and board.count("<li>") == 9


def test_a_contest_given_by_contest_path_is_refused_on_a_cluster_in_one_line(cluster, tmp_path):
    """A folder contest is imported here under a name of verify's own, which the scheduler and the
    workers cannot import: one line saying to install it, exit 2, not a deserialization error."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VERIFY_CONTEST_PATH")}
    env.update(PYTHONPATH=str(REPO), VERIFY_CACHE=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "--contest-path",
                           str(FIXTURE / "verify_duel"), *TOURNAMENT, "--cluster", cluster.scheduler_address],
                          cwd=FIXTURE, env=env, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "cannot run on a cluster" in done.stderr
    assert "install the contest as a package" in done.stderr
