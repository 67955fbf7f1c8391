"""What the fork-server step tests of tests/sandbox/test_forkserver_zygote*.py share: a
fork-server isolation, a runner with the zygote on or off, and the answers a hostile per-step
solver gave in a `verify koth maze` match log (their `zygoted` fixture is in conftest.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify.grading import LocalRunner
from verify.runner import Isolation, forkserver

ROOT = Path(__file__).resolve().parents[2]
MAZES = ROOT / "submissions" / "maze" / "theseus"        # (an architect to walk)
SETTINGS = ("on", "off")                                  # VERIFY_ZYGOTE
MAZE_STEP = "4\n0 0\n3 3\n????????????\n????????????\n{} {}\n0 1, 1 0\n"   # a step's state: the cell filled in


def fork_server_isolation(use_isolation, cgroups: bool) -> Isolation:
    """bubblewrap, with a cgroup per run or not; the test is skipped where no fork server serves."""
    chosen = use_isolation("bwrap", cgroups=cgroups)
    if not forkserver.possible(chosen):
        pytest.skip("no fork server here (no verify-init or no C compiler)")
    return chosen


def runner_with_zygote(isolation: Isolation, monkeypatch, setting: str) -> LocalRunner:
    """A runner whose fork servers have their zygote on or off (`setting`, as VERIFY_ZYGOTE)."""
    monkeypatch.setenv("VERIFY_ZYGOTE", setting)
    return LocalRunner(isolation)                  # (its settings: the environment's)


def step_answers(logs: Path, solver: str) -> list[str]:
    """Each step's answer in the match log of `solver`, or its failure (a failed step has no answer)."""
    (log,) = logs.glob(f"matches/*--{solver}.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    return [record.get("answer", f"failed: {record.get('failure')}") for record in records if record["type"] == "step"]
