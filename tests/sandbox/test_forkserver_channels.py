"""Nothing passes from one fork-server step to the next: a per-step maze solver
(tests/fixtures/hostile/forkserver-channels) tries the PID counter, inode numbers and
times of files in /tmp and in its folder's copy, and /proc, played by `verify koth maze`
itself. Each answer it gives says what it learned; the match log keeps every answer."""
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.runner import forkserver

pytestmark = pytest.mark.skipif(not shutil.which("bwrap") or os.geteuid() != 0,
                                reason="the fork server runs under bubblewrap, as root")

ROOT = Path(__file__).resolve().parents[2]
CHANNELS = ROOT / "tests" / "fixtures" / "hostile" / "forkserver-channels"
MAZES = ROOT / "submissions" / "maze" / "theseus"        # (an architect to walk)


def answers(logs: Path) -> list[str]:
    (log,) = logs.glob("matches/*--forkserver-channels.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    return [record["answer"] for record in records if record["type"] == "step"]


@pytest.mark.parametrize("accounting", ["cgroup", "rlimits"])
def test_a_per_step_solver_learns_nothing_from_its_earlier_steps(tmp_path, use_isolation, monkeypatch,
                                                                 accounting):
    if not forkserver.possible(use_isolation("bwrap", cgroups=accounting == "cgroup")):
        pytest.skip("no fork server here (no verify-init or no C compiler)")
    steps = []
    serve = forkserver.ForkServer.step

    def counted(self, *args, **kwargs):
        steps.append(1)
        return serve(self, *args, **kwargs)

    monkeypatch.setattr(forkserver.ForkServer, "step", counted)
    played = {}
    for setting in ("on", "off"):
        monkeypatch.setenv("VERIFY_FORKSERVER", setting)
        logs = tmp_path / setting
        result = CliRunner().invoke(main, ["koth", "maze", str(CHANNELS), str(MAZES), "--sizes", "4", "--seeds", "1",
                                           "--size-range", "2..50", "--patience", "0", "--logs", str(logs), "-q", "--fresh",
                                           "--accounting", accounting])
        assert result.exit_code == 0, result.output
        played[setting] = answers(logs)
    assert len(steps) >= 20                                   # the steps went through the fork server
    assert len(played["on"]) == len(steps) >= 20
    assert [answer for answer in played["on"] if "learned" in answer] == []
    assert played["on"] == played["off"]                      # as many steps, the same moves
