"""`verify koth maze` keeps its match logs in the cache, not in the current folder, and says where."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "submissions" / "maze"
ARGS = [str(SUBMISSIONS / "theseus"), str(SUBMISSIONS / "drunkard"), "--sizes", "6", "--seeds", "3",
        "--size-range", "2..50", "--format", "json"]


def _koth(tmp_path, *extra):
    env = {**os.environ, "VERIFY_CACHE": str(tmp_path / "cache")}
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "koth", "maze", *ARGS, *extra],
                          capture_output=True, text=True, cwd=work, env=env)


def test_logs_go_to_the_cache_and_the_place_is_printed(tmp_path):
    done = _koth(tmp_path)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "work").iterdir()) == []
    runs = list((tmp_path / "cache" / "maze-logs").iterdir())
    assert len(runs) == 1 and (runs[0] / "matches").is_dir()
    assert f"match logs: {runs[0]}" in done.stderr


def test_quiet_prints_nothing_on_stderr_and_logs_still_go_to_the_cache(tmp_path):
    done = _koth(tmp_path, "-q")
    assert done.returncode == 0 and done.stderr == ""
    assert len(list((tmp_path / "cache" / "maze-logs").iterdir())) == 1
    assert list((tmp_path / "work").iterdir()) == []


def test_logs_option_still_chooses_the_folder(tmp_path):
    done = _koth(tmp_path, "--logs", str(tmp_path / "mine"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mine" / "matches").is_dir() and not (tmp_path / "cache" / "maze-logs").exists()
    assert f"match logs: {tmp_path / 'mine'}" in done.stderr
