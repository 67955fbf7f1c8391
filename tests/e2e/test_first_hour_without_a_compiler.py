"""verify on a machine without a C compiler: the desert judge cannot build its compiled loop,
falls back to the exact path and gives the same verdicts; the rest of verify works as before.
No part of verify needs numpy or numba."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from verify.contests.desert.judge import judge_bytes
from verify.contests.desert.map import DesertMap

ROOT = Path(__file__).resolve().parents[2]
MAP = ".....S.\n.......\n.......\nE......\n....8..\n"
MOVES = "D+0\nD+0\nD+0\nD+0\nL+5\nL+0\nL+0\nL+0\nL+0\nU+0\n"
FINAL = ".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n"
DEATH = "D+0\nD+0\nD+0\nD+0\nL+0\n"
DEATH_MAP = ".....S.\n.....#.\n.....#.\nE....#.\n....8#.\n"
OUTPUTS = {
    "accepted": MOVES + FINAL,
    "a death, then the win": DEATH + DEATH_MAP + MOVES + FINAL,
    "the same death twice": DEATH + DEATH_MAP + DEATH + DEATH_MAP + MOVES + FINAL,
    "a wrong final map": MOVES + FINAL.replace("####3#.", "###.3#."),
    "off the grid": "R+0\nR+0\nR+0\n" + FINAL,
    "garbage": "D+0\nD?0\n",
}

# the child finds no C compiler (as on a machine without one), and cannot import numpy or numba
NO_COMPILER = """
import importlib.abc, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition('.')[0] in ('numpy', 'numba'):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Blocker())
from verify.contests.desert import kernel_build
kernel_build.compiler_path = lambda: None
"""

JUDGE_ALL = """
import json, sys
from verify.contests.desert.judge import DesertJudge, judge_bytes
from verify.contests.desert.map import DesertMap
outputs = json.loads(sys.argv[1])
desert = DesertMap.parse(sys.argv[2])
kinds = {type(DesertJudge(desert).transcript).__name__}
verdicts = {name: judge_bytes(desert, text.encode(), chunk_size=7).to_dict() for name, text in outputs.items()}
loaded = sorted(m for m in sys.modules if m.partition('.')[0] in ('numpy', 'numba'))
print(json.dumps({"verdicts": verdicts, "transcripts": sorted(kinds), "loaded": loaded}))
"""


def _without_compiler(tmp_path: Path, code: str, *args: str):
    import os
    return subprocess.run([sys.executable, "-c", NO_COMPILER + code, *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "VERIFY_CACHE": str(tmp_path / "cache")})


def _expected() -> dict[str, dict]:
    desert = DesertMap.parse(MAP)
    return {name: judge_bytes(desert, text.encode(), chunk_size=7, fast=False).to_dict()
            for name, text in OUTPUTS.items()}


def test_without_a_compiler_the_exact_path_gives_the_same_verdicts(tmp_path):
    done = _without_compiler(tmp_path, JUDGE_ALL, json.dumps(OUTPUTS), MAP)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["transcripts"] == ["Transcript"] and found["loaded"] == []
    assert found["verdicts"] == _expected()
    assert found["verdicts"]["accepted"]["status"] == "accepted"
    assert found["verdicts"]["the same death twice"]["status"] != "accepted"
    assert not (tmp_path / "cache" / "desert-kernel").exists()


def test_the_fast_path_agrees_where_it_is_built(tmp_path):
    done = subprocess.run([sys.executable, "-c", JUDGE_ALL, json.dumps(OUTPUTS), MAP], capture_output=True,
                          text=True, cwd=ROOT, env={**__import__("os").environ, "VERIFY_CACHE": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    if found["transcripts"] != ["FastTranscript"]:
        pytest.skip("no C compiler here: the fast path is not built")
    assert found["verdicts"] == _expected() and found["loaded"] == []


def test_the_command_line_judges_and_lists_without_a_compiler(tmp_path):
    (tmp_path / "map.txt").write_text(MAP)
    (tmp_path / "out.txt").write_text(MOVES + FINAL)
    run = "import sys; from verify.cli import run; sys.argv[0] = 'verify'; run()"
    judged = _without_compiler(tmp_path, run, "judge", "desert", str(tmp_path / "map.txt"), str(tmp_path / "out.txt"))
    assert judged.returncode == 0, judged.stdout + judged.stderr
    for args in (["--help"], ["desert", "nontrivial", str(tmp_path / "map.txt")], ["gen", "desert", "--seed", "3"],
                 ["solve", "arrows", "--help"], ["cache", "info"]):
        done = _without_compiler(tmp_path, run, *args)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, args


def test_verify_check_judges_on_several_threads_without_a_compiler(tmp_path):
    """Judges start on several threads at once: each finds the kernel missing, none fails."""
    run = "import sys; from verify.cli import run; sys.argv[0] = 'verify'; run()"
    done = _without_compiler(tmp_path, run, "check", "submissions/desert/python-golf", "-j", "2",
                             "--case", "spec*", "--case", "adjacent-*", "--format", "json")
    report = json.loads(done.stdout)
    verdicts = [case["verdict"]["status"] for case in report["entries"][0]["cases"]]
    assert done.returncode == 0 and len(verdicts) >= 3 and set(verdicts) == {"accepted"}, done.stdout[-2000:]
