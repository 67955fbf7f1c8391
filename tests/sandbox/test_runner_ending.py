"""How a run ends: nothing of it outlives the run, in every mode, as root and as a normal
user; the program cannot signal its supervisor (verify-init) or verify.

The hostile program starts three sleepers that try to outlive it: `( setsid ... & )`, a
`nohup ... &` and a double-forked setsid daemon (the model: a daemon entry that survived
`--sandbox none` as a normal user, ppid 1). Each carries a marker unique to the test in
its command line. The program waits until all three run, says "ready", then either exits
at once or sleeps until verify stops it (the consumer of its stdout asks, which ends a
run the way a limit does).

As a normal user the runs are made by a small script started with `runuser` (the user
`verify-test`, made with `useradd -m` when missing) with the system's Python."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest
from machine_modes import NORMAL_USER, SYSTEM_PYTHON, machine_modes, mode_id, normal_user_script

from verify.runner import Limits
from verify.runner.process import run_command

ROOT = Path(__file__).resolve().parents[2]
USER = NORMAL_USER
GONE_WITHIN = 2.0              # seconds for killed processes to leave /proc (a namespace's last ones)

HOSTILE = '''\
import os, subprocess, sys, time
marker, ending = sys.argv[1], sys.argv[2]
SLEEP = "import time; time.sleep(600)"
subprocess.run(["/bin/bash", "-c", f"( setsid python3 -c '{SLEEP}' {marker}-setsid & )"])
subprocess.Popen(["nohup", "python3", "-c", SLEEP, marker + "-nohup"],
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
DAEMON = ("import os, sys\\nif os.fork(): os._exit(0)\\nos.setsid()\\nif os.fork(): os._exit(0)\\n"
          "os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(600)', sys.argv[1]])\\n")
subprocess.run([sys.executable, "-c", DAEMON, marker + "-daemon"])
def running():
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            line = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        for role in ("setsid", "nohup", "daemon"):
            if f"{marker}-{role}".encode() in line and b"fork" not in line:
                found.add(role)
    return found
while len(running()) < 3:
    time.sleep(0.01)
print("ready", flush=True)
if ending == "stopped":
    time.sleep(600)
'''

# Run as the normal user: argv policy accounting marker ending folder [guard-test]
AS_USER = '''\
import dataclasses, json, os, sys
from pathlib import Path
from verify.runner import Limits, SandboxUnavailable, resolve_isolation
from verify.runner.process import run_command
policy, accounting, marker, ending, folder = sys.argv[1:6]
try:
    chosen = resolve_isolation(policy, accounting)
except SandboxUnavailable as error:
    print(json.dumps({"unavailable": str(error)}))
    sys.exit()
if ending == "signals":
    if len(sys.argv) > 6:
        chosen = dataclasses.replace(chosen, landlock_abi=0)
    argv = ["python3", "signals.py", str(os.getpid())]
else:
    argv = ["python3", "hostile.py", marker, ending]
seen = bytearray()
def consume(chunk):
    seen.extend(chunk)
    return b"ready" in seen
result = run_command(argv, workdir=Path(folder), limits=Limits(wall_time=60), isolation=chosen,
                     on_stdout=consume if ending == "stopped" else None)
print(json.dumps({"isolation": result.isolation, "exit": result.exit_code, "signal": result.signal,
                  "limit": result.limit, "stdout": (result.stdout or bytes(seen)).decode(),
                  "stderr": result.stderr_tail}))
'''

SIGNALS = '''\
import os, signal, sys
supervisor, judge = os.getppid(), int(sys.argv[1])
for name, target in (("supervisor", supervisor), ("supervisor's group", -supervisor),
                     ("judge", judge), ("judge's group", -os.getpgid(judge))):
    try:
        os.kill(target, signal.SIGKILL)
        print(name, "reached")
    except PermissionError:
        print(name, "refused")
try:       # (its answer may be 0 for a zombie it may signal: that verify lives on is the proof)
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
print("done", flush=True)
'''


BURNER = '''\
import os, sys, time
read, write = os.pipe()
if os.fork() == 0:                 # a child that burns 0.3 s of CPU, then waits, never reaped
    while time.process_time() < 0.3:
        pass
    os.write(write, b"x")
    time.sleep(600)
os.read(read, 1)
print("ready", flush=True)
time.sleep(600)
'''


def marked(marker: str) -> dict[int, str]:
    """Living processes whose command line holds `marker`."""
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as file:
                line = file.read()
            with open(f"/proc/{entry.name}/stat", "rb") as file:
                state = file.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in line and state not in (b"Z", b"X"):
            found[int(entry.name)] = line.replace(b"\0", b" ").decode(errors="replace")
    return found


def survivors(marker: str) -> dict[int, str]:
    deadline = time.monotonic() + GONE_WITHIN
    while True:
        left = marked(marker)
        if not left or time.monotonic() > deadline:
            for pid in left:                    # never leave a sleeper behind a failed test
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            return left


@pytest.fixture
def entry_folder():
    base = Path(tempfile.mkdtemp(prefix="verify-ending-"))
    os.chmod(base, 0o755)
    (base / "hostile.py").write_text(HOSTILE)
    (base / "signals.py").write_text(SIGNALS)
    (base / "burner.py").write_text(BURNER)
    for path in base.iterdir():
        os.chmod(path, 0o644)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("ending", ["exit", "stopped"])
@pytest.mark.parametrize("mode", machine_modes(), ids=mode_id)
def test_nothing_of_a_run_outlives_it(entry_folder, use_isolation, mode, ending):
    chosen = use_isolation(*mode)
    marker = f"ending-{uuid.uuid4().hex[:12]}"
    result = run_command(["python3", "hostile.py", marker, ending], workdir=entry_folder,
                         limits=Limits(wall_time=60), isolation=chosen,
                         on_stdout=(lambda chunk: b"ready" in chunk) if ending == "stopped" else None)
    assert result.stopped_early == (ending == "stopped"), result
    if ending == "exit":
        assert result.exit_code == 0 and result.stdout == b"ready\n", result
    assert survivors(marker) == {}


@pytest.mark.parametrize("mode", [m for m in machine_modes() if not m[1]], ids=mode_id)
def test_a_stopped_run_still_counts_the_cpu_of_what_it_left(entry_folder, use_isolation, mode):
    """Without a cgroup, the CPU time of a run stopped from here is what verify-init
    reaped: it is asked to end the run (and report), not killed with it."""
    chosen = use_isolation(*mode)
    result = run_command(["python3", "burner.py"], workdir=entry_folder, limits=Limits(wall_time=60),
                         isolation=chosen, on_stdout=lambda chunk: b"ready" in chunk)
    assert result.stopped_early and result.cpu_time >= 0.3, result


# -- as a normal user ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def normal_user():
    with normal_user_script(AS_USER, "verify-user-") as made:
        yield made


def run_as_user(normal_user, *argv: str) -> dict:
    script, cache = normal_user
    done = subprocess.run(["runuser", "-u", USER, "--", "env", f"PYTHONPATH={ROOT}", f"VERIFY_CACHE={cache}",
                           f"HOME={cache}", SYSTEM_PYTHON, str(script), *argv],
                          capture_output=True, text=True, cwd="/", timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("ending", ["exit", "stopped"])
@pytest.mark.parametrize("policy", ["none", "bwrap"])
def test_nothing_outlives_a_normal_users_run(entry_folder, normal_user, policy, ending):
    marker = f"ending-{uuid.uuid4().hex[:12]}"
    found = run_as_user(normal_user, policy, "rlimits", marker, ending, str(entry_folder))
    if "unavailable" in found:
        pytest.skip(f"--sandbox {policy} as {USER}: {found['unavailable']}")
    assert found["stdout"] == "ready\n", found
    assert survivors(marker) == {}


@pytest.mark.parametrize("landlock", ["as the kernel has it", "without Landlock"])
def test_a_normal_users_program_cannot_signal_its_supervisor_or_verify(entry_folder, normal_user, landlock):
    found = run_as_user(normal_user, "none", "rlimits", "-", "signals", str(entry_folder),
                        *(["no-landlock"] if landlock == "without Landlock" else []))
    assert found["exit"] == 0, found
    assert found["stdout"] == textwrap.dedent("""\
        supervisor refused
        supervisor's group refused
        judge refused
        judge's group refused
        done
        """), found
