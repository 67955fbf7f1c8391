"""King of the Hill on a Dask cluster keeps its results in the command's cache: a tournament played
on the workers (``verify koth duel --cluster``, the duel installed as a package, a
distributed.LocalCluster of 2 sandboxed worker processes) is reused by the next run, on the
cluster or here, and a fresh run on the cluster gives the same standings."""
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

REPO = next(parent for parent in Path(__file__).resolve().parents if (parent / "pyproject.toml").is_file())
FIXTURE = REPO / "tests" / "fixtures" / "duel-contest"
TOURNAMENT = ("koth", "duel", "--rounds", "3", "--seeds", "1,2", "--format", "json")

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None,
                                reason="workers run entries only in bubblewrap, which is not installed")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    return install_contest(FIXTURE, tmp_path_factory.mktemp("duel-installed"))


@pytest.fixture(scope="module")
def cluster(installed):
    sys.path.insert(0, str(installed))
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as started:
            yield started
    finally:
        sys.path.remove(str(installed))


def verify(*args: str, installed: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VERIFY_CONTEST_PATH")}
    env.update(PYTHONPATH=os.pathsep.join([str(installed), str(REPO)]), VERIFY_CACHE=str(cache),
               PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args], cwd=FIXTURE,
                          env=env, check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def summary(done: subprocess.CompletedProcess[str]) -> str:
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("matches: ")]
    return line


def test_results_played_on_the_workers_are_kept_here(cluster, installed, tmp_path):
    cache = tmp_path / "cache"
    there = verify(*TOURNAMENT, "--cluster", cluster.scheduler_address, "--logs", str(tmp_path / "there"),
                   installed=installed, cache=cache)
    assert summary(there) == "matches: 0 of 6 reused from the cache, 6 played"
    assert len(list((cache / "matches").iterdir())) == 6
    again = verify(*TOURNAMENT, "--cluster", cluster.scheduler_address, "--logs", str(tmp_path / "again"),
                   installed=installed, cache=cache)
    assert summary(again) == "matches: 6 of 6 reused from the cache, 0 played"
    here = verify(*TOURNAMENT, "--logs", str(tmp_path / "here"), installed=installed, cache=cache)
    assert summary(here) == "matches: 6 of 6 reused from the cache, 0 played"
    fresh = verify(*TOURNAMENT, "--cluster", cluster.scheduler_address, "--fresh", "--logs", str(tmp_path / "fresh"),
                   installed=installed, cache=cache)
    assert summary(fresh) == "matches: 0 of 6 reused from the cache, 6 played"
    assert json.loads(again.stdout) == json.loads(here.stdout) == json.loads(there.stdout) == json.loads(fresh.stdout)
    for log in (tmp_path / "there" / "duels").iterdir():
        assert (tmp_path / "again" / "duels" / log.name).read_text() == log.read_text()
