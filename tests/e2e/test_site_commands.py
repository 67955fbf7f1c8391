"""The site built by whole commands over real checks."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_site import ROOT, SPEC_MAP, SPEC_OUTPUT


def _verify(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def test_the_svg_commands_write_their_pictures(tmp_path):
    (tmp_path / "map").write_bytes(SPEC_MAP)
    (tmp_path / "out").write_bytes(SPEC_OUTPUT)
    done = _verify("judge", "desert", str(tmp_path / "map"), str(tmp_path / "out"), "--svg", str(tmp_path / "d.svg"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "d.svg").read_text().startswith("<svg")
    done = _verify("solve", "arrows", "testcases/arrows/spec-puzzle-2.txt", "--svg", str(tmp_path / "a.svg"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "a.svg").read_text().count('class="segment"') == 24


def test_the_maze_show_command_draws_any_step_with_or_without_fog(tmp_path):
    from verify.contests.maze.generate import generate_maze
    from verify.contests.maze.matchlog import LogWriter
    maze = generate_maze(4, 1)
    path = maze.shortest_path()
    log = tmp_path / "match.jsonl"
    with LogWriter(log) as write:
        write({"type": "match", "architect": "<a>", "solver": "<b>", "size": 4, "seed": 1})
        write({"type": "maze", "text": maze.to_text()})
        for n, cell in enumerate(path[1:], 1):
            write({"type": "step", "n": n, "at": list(cell), "answer": f"{cell[0]} {cell[1]}"})
    done = _verify("maze", "show", str(log), "--step", "1", "--fog", "--svg", str(tmp_path / "m.svg"))
    assert done.returncode == 0, done.stderr
    fogged = (tmp_path / "m.svg").read_text()
    assert 'class="unknown"' in fogged and "&lt;b&gt; in &lt;a&gt;" in fogged
    done = _verify("maze", "show", str(log), "--svg", str(tmp_path / "m2.svg"))
    assert 'class="unknown"' not in (tmp_path / "m2.svg").read_text()


@pytest.mark.parametrize("command", [["check", "submissions/arrows/python-golf", "--case", "spec-*"],
                                     ["rank", "arrows"]])
def test_an_html_folder_that_cannot_be_made_is_one_line_and_exit_2(tmp_path, command):
    (tmp_path / "file").write_text("")
    done = _verify(*command, "--html", str(tmp_path / "file" / "site"))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "site" in done.stderr


def test_rank_html_writes_the_leaderboard_with_replays_and_from_results_without(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    for name in ("spec-puzzle-1.txt", "spec-puzzle-2.txt"):
        (cases / name).write_bytes((ROOT / "testcases" / "arrows" / name).read_bytes())
    environment = ["--testcases", str(cases)]
    done = _verify("rank", "arrows", *environment, "--html", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    entries = [p for p in (ROOT / "submissions" / "arrows").iterdir() if (p / "entry.toml").exists()]
    assert index.count('<tr class="ranked">') == len(entries)
    assert len(list((tmp_path / "site" / "replays").rglob("*.html"))) == 2 * len(entries)
    (tmp_path / "empty").mkdir()
    done = _verify("rank", "arrows", *environment, "--results", str(tmp_path / "empty"),
                   "--html", str(tmp_path / "stored"))
    assert done.returncode == 1                       # nothing stored there: nothing ranked
    assert not (tmp_path / "stored" / "replays").exists()
    assert "no result in" in (tmp_path / "stored" / "index.html").read_text()
