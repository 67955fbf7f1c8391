"""A fork server's Python zygote (verify/runner/forkserver.py): a per-step Python program's
steps are forked from an interpreter started ahead, which ran no entry code, instead of a
fresh `python3 -s` each. A step must learn nothing of earlier steps through it (a hostile
per-step maze solver, tests/fixtures/hostile/zygote-channels, tries the interpreter's
state, files, pids, the hash seed, the random state and CPU time, played by `verify koth
maze` itself), and must end, and be judged, exactly as with a fresh interpreter and as a
run of its own (VERIFY_ZYGOTE=off: a fresh interpreter per step)."""
import os
import shutil
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from zygote_steps import (
    MAZE_STEP,
    MAZES,
    SETTINGS,
    fork_server_isolation,
    runner_with_zygote,
    step_answers,
)

from verify.cli import main
from verify.runner import Limits, Program, RunResult
from verify.runner import run_program as run_alone

pytestmark = pytest.mark.skipif(not shutil.which("bwrap") or os.geteuid() != 0,
                                reason="the fork server runs under bubblewrap, as root")

ROOT = Path(__file__).resolve().parents[2]
CHANNELS = ROOT / "tests" / "fixtures" / "hostile" / "zygote-channels"
LIMITS = Limits(wall_time=2, cpu_time=1, memory=256 << 20, output=1 << 20, processes=16)


# -- the hostile solver, played by `verify koth maze` ----------------------------------------

@pytest.mark.parametrize("accounting", ["cgroup", "rlimits"])
def test_a_per_step_solver_learns_nothing_through_the_zygote(tmp_path, use_isolation, monkeypatch, zygoted,
                                                             accounting):
    fork_server_isolation(use_isolation, accounting == "cgroup")
    played, served = {}, {}
    for setting in SETTINGS:
        monkeypatch.setenv("VERIFY_ZYGOTE", setting)
        logs = tmp_path / setting
        zygoted.clear()
        result = CliRunner().invoke(main, ["koth", "maze", str(CHANNELS), str(MAZES), "--sizes", "4", "--seeds", "1",
                                           "--size-range", "2..50", "--patience", "0", "--logs", str(logs), "-q", "--fresh",
                                           "--accounting", accounting])
        assert result.exit_code == 0, result.output
        played[setting], served[setting] = step_answers(logs, "zygote-channels"), list(zygoted)
    assert served["on"].count(True) >= 20                     # the steps were forked from a zygote
    assert len(played["on"]) == len(served["on"])
    assert len(served["off"]) >= 20 and True not in served["off"]    # served, each a fresh interpreter
    assert [answer for answer in played["on"] + played["off"] if "learned" in answer] == []
    assert played["on"] == played["off"]                      # as many steps, the same moves, the same findings


# -- the same steps through the runner API ---------------------------------------------------

@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "rlimits"])
def test_the_hostile_solver_run_as_steps_finds_what_a_run_of_its_own_finds(tmp_path, use_isolation, monkeypatch,
                                                                          zygoted, cgroups):
    isolation = fork_server_isolation(use_isolation, cgroups)
    folder = tmp_path / "zygote-channels"
    shutil.copytree(CHANNELS, folder)
    solver = Program("python", folder / "solver.py")
    cells = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (1, 2), (1, 1), (0, 1)]     # bits 0, 1, 0, 1...
    inputs = [MAZE_STEP.format(*cell).encode() for cell in cells]
    found = {}
    for setting in SETTINGS:
        zygoted.clear()
        with runner_with_zygote(isolation, monkeypatch, setting) as runner:
            results = [run_alone(solver, ahead=True, isolation=isolation, pools=runner.pools, limits=LIMITS,
                                 stdin=stdin) for stdin in inputs]
        assert zygoted == [setting == "on"] * len(inputs)
        assert all(r.ok and r.stderr_tail == "" for r in results), results
        found[setting] = [r.stdout for r in results]
    own = [run_alone(solver, isolation=isolation, limits=LIMITS, stdin=stdin).stdout for stdin in inputs[:2]]
    assert found["on"] == found["off"] == [b"0 1\n"] * len(inputs)
    assert own == [b"0 1\n"] * 2
    assert not list(folder.glob("carried-*"))                 # (its folder's copy, not the folder, took them)


# verdicts: each case's program (and files beside it), its stdin
CASES = {
    "exit 0": ("print('fine')\n", {}),
    "exit 3": ("import sys\nprint('out')\nsys.exit(3)\n", {}),
    "exit message": ("import sys\nsys.exit('a message')\n", {}),
    "exception": ("def fail():\n    raise ValueError('bad value')\n\n\nprint('before', flush=True)\nfail()\n", {}),
    "sigsegv": ("import os\nprint('before', flush=True)\nos.kill(os.getpid(), 11)\n", {}),
    "time": ("while True:\n    pass\n", {}),
    "memory": ("x = bytearray(1 << 30)\nprint(len(x))\n", {}),
    "output": ("import sys\nsys.stdout.write('x' * (3 << 20))\n", {}),
    "stdin echo": ("import sys\nsys.stdout.write(sys.stdin.read())\n", {}),
    "names": ("import os, sys\nprint(__name__, __file__, sys.argv, "
              "sys.path[0] == os.path.dirname(os.path.realpath(__file__)))\n", {}),
    "own struct": ("import struct\nprint(struct.MARK)\n", {"struct.py": "MARK = 1\n"}),
    "own ctypes": ("import ctypes\nprint(ctypes.MARK)\n", {"ctypes.py": "MARK = 2\n"}),
    "own stat": ("import stat\nprint(hasattr(stat, 'MARK'))\n", {"stat.py": "MARK = 3\n"}),  # (imported at start)
    "signals": ("import signal\nprint(signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
                "signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN)\n", {}),
    "signal masks": ("for line in open('/proc/self/status'):\n"
                     "    if line.startswith(('SigPnd', 'ShdPnd', 'SigBlk', 'SigIgn', 'SigCgt')):\n"
                     "        print(line, end='')\n", {}),
    "descriptors": ("import os\nprint(len(os.listdir('/proc/self/fd')))\n", {}),
    "globals": ("print(sorted(globals()))\n", {}),
    "modules": ("import sys\nprint(sorted(sys.modules))\n", {}),
    "interpreter": ("import os, sys\numask = os.umask(0)\n"
                    "print(sys.orig_argv, sys.executable, sys.flags, sys.path, os.getcwd(), oct(umask))\n"
                    "print([(s.isatty(), s.encoding, s.errors, s.line_buffering, s.write_through) "
                    "for s in (sys.stdin, sys.stdout, sys.stderr)])\n", {}),
    # the interpreter's end, which a process forked from the zygote does its own way
    "exit none": ("import sys\nprint('out')\nsys.exit(None)\n", {}),
    "os exit": ("import os\nos.write(1, b'out')\nos._exit(5)\n", {}),
    "unflushed": ("import sys\nsys.stdout.write('no newline')\n", {}),
    "open file": ("out = open(1, 'w', closefd=False)\nout.write('kept in a global')\n", {}),
    "atexit": ("import atexit\natexit.register(print, 'at exit')\nprint('main')\n", {}),
    "thread": ("import threading, time\n\n\ndef late():\n    time.sleep(0.2)\n    print('thread', flush=True)\n\n\n"
               "threading.Thread(target=late).start()\nprint('main', flush=True)\n", {}),
    "keyboard interrupt": ("print('before', flush=True)\nraise KeyboardInterrupt\n", {}),
    "stdout closed": ("import os\nprint('lost')\nos.close(1)\n", {}),
    "cpu at start": ("import resource, time\nusage = resource.getrusage(resource.RUSAGE_SELF)\n"
                     "print(time.process_time() < 0.2, usage.ru_utime + usage.ru_stime < 0.2)\n", {}),
}
STDIN = b"state\n" * 100
SAME = ("exit_code", "signal", "limit", "stopped_early", "stdout", "isolation", "accounting")


def _last_line(result: RunResult) -> str:
    lines = result.stderr_tail.strip().splitlines()
    return lines[-1] if lines else ""


def _verdict(result: RunResult, case: str) -> dict:
    fields = {name: getattr(result, name) for name in SAME}
    fields["stderr"] = _last_line(result)
    if case == "time":
        # at the CPU time limit the kernel's SIGXCPU (RLIMIT_CPU) and verify's SIGKILL (the
        # CPU time counted) race, with or without a zygote: either ends it
        assert result.signal in (signal.SIGXCPU, signal.SIGKILL), result
        fields.pop("signal")
    if case == "output":
        # past the output limit verify kills it, and its write of what the pipe took may
        # end first: exit 0 or SIGKILL, with or without a zygote, as in a run of its own
        assert (result.exit_code, result.signal) in ((0, None), (None, signal.SIGKILL)), result
        fields.pop("exit_code")
        fields.pop("signal")
    return fields


EXPECTED = {      # what each case must give (beyond being the same each way)
    "exit 0": dict(exit_code=0, signal=None, limit=None, stdout=b"fine\n", stderr=""),
    "exit 3": dict(exit_code=3, signal=None, limit=None, stdout=b"out\n", stderr=""),
    "exit message": dict(exit_code=1, signal=None, limit=None, stdout=b"", stderr="a message"),
    "exception": dict(exit_code=1, signal=None, limit=None, stdout=b"before\n", stderr="ValueError: bad value"),
    "sigsegv": dict(exit_code=None, signal=signal.SIGSEGV, limit=None, stdout=b"before\n", stderr=""),
    "time": dict(exit_code=None, limit="time"),
    "memory": dict(limit="memory"),
    "output": dict(limit="output"),
    "stdin echo": dict(exit_code=0, limit=None, stdout=STDIN),
    "own struct": dict(exit_code=0, stdout=b"1\n"),
    "own ctypes": dict(exit_code=0, stdout=b"2\n"),
    "own stat": dict(exit_code=0, stdout=b"False\n"),
    "signals": dict(exit_code=0, stdout=b"True True\n"),
    "cpu at start": dict(exit_code=0, stdout=b"True True\n"),
    "exit none": dict(exit_code=0, stdout=b"out\n", stderr=""),
    "os exit": dict(exit_code=5, stdout=b"out"),
    "unflushed": dict(exit_code=0, stdout=b"no newline"),
    "open file": dict(exit_code=0, stdout=b"kept in a global"),
    "atexit": dict(exit_code=0, stdout=b"main\nat exit\n"),
    "thread": dict(exit_code=0, stdout=b"main\nthread\n"),
    "keyboard interrupt": dict(exit_code=None, signal=signal.SIGINT, stdout=b"before\n", stderr="KeyboardInterrupt"),
    "stdout closed": dict(exit_code=120, stdout=b""),
}


@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "rlimits"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_step_forked_from_the_zygote_ends_as_a_fresh_interpreter_and_a_run_of_its_own(
        tmp_path, use_isolation, monkeypatch, zygoted, cgroups, case):
    isolation = fork_server_isolation(use_isolation, cgroups)
    text, files = CASES[case]
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    source = tmp_path / "step.py"
    source.write_text(text)
    entry = Program("python", source)
    results = {}
    for setting in SETTINGS:
        zygoted.clear()
        with runner_with_zygote(isolation, monkeypatch, setting) as runner:
            # twice each: the first step starts the server (and its zygote), the second is
            # built ahead by the first
            results[setting] = [run_alone(entry, ahead=True, isolation=isolation, pools=runner.pools, limits=LIMITS,
                                          stdin=STDIN) for _ in range(2)]
        assert zygoted == [setting == "on"] * 2, (setting, zygoted)
    own = run_alone(entry, isolation=isolation, limits=LIMITS, stdin=STDIN)
    verdicts = [_verdict(r, case) for r in (*results["on"], *results["off"], own)]
    assert verdicts == [_verdict(own, case)] * 5, (results, own)
    expected = EXPECTED.get(case, {})
    assert {k: verdicts[0][k] for k in expected} == expected, results["on"][0]
    if case in ("exception", "keyboard interrupt"):
        served = results["on"][0].stderr_tail
        assert "<string>" not in served and "zygote" not in served.lower(), served
        assert served == own.stderr_tail                        # the whole traceback, frame for frame
    if case == "names":
        assert verdicts[0]["stdout"] == f"__main__ {source} {[str(source)]} True\n".encode()


def test_a_steps_environment_is_that_of_a_fresh_interpreter(tmp_path, use_isolation, monkeypatch, zygoted):
    isolation = fork_server_isolation(use_isolation, True)
    source = tmp_path / "step.py"
    source.write_text("import os\nprint(sorted(os.environ.items()))\n"
                      "print(sorted(open('/proc/self/environ').read().split('\\0')))\n")
    entry = Program("python", source)
    seen = {}
    for setting in SETTINGS:
        zygoted.clear()
        with runner_with_zygote(isolation, monkeypatch, setting) as runner:
            seen[setting] = [run_alone(entry, ahead=True, isolation=isolation, pools=runner.pools,
                                       limits=LIMITS).stdout for _ in range(2)]
        assert zygoted == [setting == "on"] * 2
    assert seen["on"] == seen["off"]
    assert seen["on"][0].count(b"\n") == 2 and b"VERIFY" not in seen["on"][0]
