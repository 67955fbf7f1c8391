"""King of the Hill, incremental, as a user runs it: a fresh ``verify`` each time. The duel (a
contest outside verify) played again, with a player added, with its kept results damaged; the
maze at tiny sizes reused as it was played; the maze's preset and options given over it.
A second run reuses only while verify's source is unchanged (it is in every key)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = next(parent for parent in Path(__file__).resolve().parents if (parent / "pyproject.toml").is_file())
DUEL = REPO / "tests" / "fixtures" / "duel-contest"
DUELLISTS = DUEL / "submissions" / "duel"
MAZES = REPO / "submissions" / "maze"


def verify(*args: str, cache: Path, cwd: Path = REPO, contest_path: bool = False) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VERIFY_CONTEST_PATH")}
    env.update(PYTHONPATH=str(REPO), VERIFY_CACHE=str(cache), PYTHONDONTWRITEBYTECODE="1")
    prefix = ["--contest-path", str(DUEL / "verify_duel")] if contest_path else []
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *prefix, *args],
                          cwd=cwd, env=env, check=False, capture_output=True, text=True, timeout=600)


def duel(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    done = verify("koth", "duel", "--rounds", "3", *args, cache=cache, cwd=DUEL, contest_path=True)
    assert done.returncode == 0, done.stderr
    return done


def summary(done: subprocess.CompletedProcess[str]) -> str:
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("matches: ")]
    return line


def test_the_duel_second_run_and_an_added_player(tmp_path):
    cache = tmp_path / "cache"
    three = [str(DUELLISTS / name) for name in ("beat-last", "cycle", "rock")]
    first = duel(*three, "--logs", str(tmp_path / "logs1"), cache=cache)
    assert summary(first) == "matches: 0 of 3 reused from the cache, 3 played"
    second = duel(*three, "--logs", str(tmp_path / "logs2"), cache=cache)
    assert summary(second) == "matches: 3 of 3 reused from the cache, 0 played"
    assert second.stdout == first.stdout and "[1/" not in second.stderr
    for log in (tmp_path / "logs1" / "duels").iterdir():
        assert (tmp_path / "logs2" / "duels" / log.name).read_bytes() == log.read_bytes()
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "paper.py").write_text("import sys\nfor line in sys.stdin:\n    print('P', flush=True)\n")
    (paper / "entry.toml").write_text('name = "paper"\ncontest = "duel"\n[duel]\nlanguage = "python"\n'
                                      'source = "paper.py"\n')
    grown = duel(*three, str(paper), "--format", "json", "--logs", str(tmp_path / "logs3"), cache=cache)
    assert summary(grown) == "matches: 3 of 6 reused from the cache, 3 played"
    fresh = duel(*three, str(paper), "--format", "json", "--fresh", "--logs", str(tmp_path / "logs3"), cache=cache)
    assert summary(fresh) == "matches: 0 of 6 reused from the cache, 6 played"
    assert grown.stdout == fresh.stdout
    duels = {(d["first"], d["second"]): d["points"] for d in json.loads(grown.stdout)["duels"]}
    assert duels[("paper", "rock")] == [3.0, 0.0]                          # paper beats rock every round
    for kept in (cache / "matches").iterdir():                             # damaged: played again, no traceback
        kept.write_bytes(kept.read_bytes()[:20])
    again = duel(*three, str(paper), "--format", "json", "--logs", str(tmp_path / "logs3"), cache=cache)
    assert summary(again) == "matches: 0 of 6 reused from the cache, 6 played" and again.stdout == fresh.stdout
    assert "Traceback" not in again.stderr
    info = verify("cache", "info", cache=cache)
    assert "tournament results" in info.stdout, info.stdout + info.stderr


def maze(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    done = verify("koth", "maze", str(MAZES / "theseus"), str(MAZES / "drunkard"), str(MAZES / "minotaur"),
                  "--size-range", "2..50", *args, cache=cache)
    assert done.returncode == 0, done.stderr
    return done


def without_times(report: str) -> dict[str, Any]:
    data = json.loads(report)
    for built in data["mazes"]:
        built.pop("wall_time")
    return data


def test_the_maze_at_tiny_sizes_reused_is_the_fresh_tournament(tmp_path):
    cache = tmp_path / "cache"
    args = ("--sizes", "4..6", "--seeds", "1..2", "--format", "json", "--logs", str(tmp_path / "logs"))
    fresh = maze(*args, "--fresh", cache=cache)
    reused = maze(*args, cache=cache)
    played = without_times(fresh.stdout)
    assert len(played["mazes"]) == 2 * 3 * 2          # two architects, three sizes, two seeds
    jobs = len(played["mazes"]) + len(played["matches"])
    assert summary(fresh) == f"matches: 0 of {jobs} reused from the cache, {jobs} played"
    assert summary(reused) == f"matches: {jobs} of {jobs} reused from the cache, 0 played"
    assert without_times(reused.stdout) == played
    table = maze("--sizes", "4..6", "--seeds", "1..2", "-q", cache=cache)
    assert table.stdout.startswith(f"Maze tournament: sizes 4, 5, 6; seeds 1, 2; {len(played['matches'])} matches\n")
    # a walk's log is there when reused: replayed by `verify maze show`
    (match,) = [m for m in json.loads(reused.stdout)["matches"]
                if (m["architect"], m["solver"], m["size"], m["seed"]) == ("theseus", "drunkard", 5, 2)]
    shown_log = verify("maze", "show", match["log"], cache=cache)
    assert shown_log.returncode == 0 and "result:" in shown_log.stdout


def test_the_maze_preset_and_the_options_given_over_it(tmp_path):
    cache = tmp_path / "cache"
    over = maze("--preset", "contest", "--sizes", "5", "--seeds", "3", "-q", cache=cache)
    assert over.stdout.startswith("Maze tournament: sizes 5; seeds 3; 4 matches\n")     # 2 mazes, each walked twice
    # the preset's own sizes (15..50) where they are not given: outside a smaller allowed range
    done = verify("koth", "maze", str(MAZES / "theseus"), "--preset", "contest", "--size-range", "2..10", cache=cache)
    assert done.returncode == 2 and done.stderr.strip().endswith("size 15 is outside 2..10"), done.stderr
    for args, message in [(["--preset", "weekly"], "Invalid value for '--preset'"),
                          (["--sizes", "50..15"], "--sizes: '50..15' ends below its start"),
                          (["--seeds", "1..2:0"], "--seeds: '1..2:0' has a step below 1")]:
        done = verify("koth", "maze", *args, cache=cache)
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    helped = verify("koth", "maze", "--help", cache=cache)
    assert "--preset [contest]" in helped.stdout and "--fresh" in helped.stdout
