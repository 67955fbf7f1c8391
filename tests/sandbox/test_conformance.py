"""The conformance suite (ci/conformance.py, docs/conformance.md) in pytest: every hostile
fixture of tests/fixtures/conformance/ through `verify check` in every isolation and
accounting mode this machine offers, as the user running the tests, and (when that is
root) again as a normal user. Each gets its one expected verdict, naming its limit
(with rlimits accounting, a memory or process fixture may differ only where the report
says it may), and nothing of it outlives verify.

Then the suite's own pieces: how a report is judged against the manifest, and that the
leftover check finds what a hostile program leaves when nothing stops it."""
from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("conformance_suite", ROOT / "ci" / "conformance.py")
assert _spec is not None and _spec.loader is not None
conformance = importlib.util.module_from_spec(_spec)
sys.modules["conformance_suite"] = conformance      # (its dataclasses look their module up)
_spec.loader.exec_module(conformance)

FIXTURES, LEFTOVERS = conformance.load_manifest()
BY_NAME = {fixture.name: fixture for fixture in FIXTURES}
MODES = conformance.all_modes()
NORMAL_USER = os.environ.get("VERIFY_CONFORMANCE_USER", "conformance")

refused: dict[str, str] = {}     # mode -> the line verify refused it with, here
judged: set[str] = set()         # modes in which a fixture got a verdict


@pytest.fixture(scope="module")
def workspace():
    with conformance.Workspace() as made:
        yield made


def explain(cell) -> str:
    return (f"{cell.fixture} in {cell.mode}: {cell.status or 'no verdict'}: {cell.message} "
            f"(expected {conformance.verdict_text(cell.expected_status, cell.expected_limit)}; "
            f"isolation {cell.isolation or '?'}; survivors {cell.survivors})")


@pytest.mark.parametrize("mode", MODES, ids=[mode.name for mode in MODES])
@pytest.mark.parametrize("fixture", FIXTURES, ids=[fixture.name for fixture in FIXTURES])
def test_the_one_verdict_and_no_survivor(fixture, mode, workspace):
    if mode.name in refused:
        pytest.skip(f"{mode.name} is unavailable here: {refused[mode.name]}")
    cell = conformance.run_cell(fixture, mode, LEFTOVERS, workspace)
    if cell.outcome == "unavailable" and mode.name not in judged:
        refused[mode.name] = cell.message
        pytest.skip(f"{mode.name} is unavailable here: {cell.message}")
    judged.add(mode.name)
    assert cell.survivors == [], explain(cell)
    assert cell.outcome in ("match", "differs (documented)"), explain(cell)


@pytest.fixture(scope="module", autouse=True)
def normal_user_run(request, tmp_path_factory):
    """The whole suite as a normal user (made when missing), started with this module's
    first test so that it runs beside the suite as root: the user's runs and root's
    never share a uid, a folder or a marked file, and no verdict depends on speed. On a
    cgroup v1 host the user is given a cgroup of its own first, as a container's recipe
    does, so its runs get a cgroup each too: every mode is judged as a normal user."""
    wanted = any(item.name.startswith("test_the_same_as_a_normal_user") for item in request.session.items)
    if not wanted or os.geteuid() != 0 or not shutil.which("runuser"):
        yield None
        return
    table = tmp_path_factory.mktemp("as-user") / "table.md"
    with table.open("wb") as out:
        try:
            run = conformance.UserRun(NORMAL_USER, [], stdout=out,
                                      delegated_cgroup=conformance.can_delegate_v1_cgroup())
        except conformance.SuiteError as error:
            yield str(error)
            return
        yield run
    if run.process.poll() is None:
        run.process.kill()
        run.wait()


@pytest.fixture(scope="module")
def normal_user_suite(normal_user_run) -> dict:
    """The JSON of the suite as a normal user, once it has ended."""
    if normal_user_run is None:
        pytest.skip("the suite runs as a normal user from root only (runuser)")
    if isinstance(normal_user_run, str):
        pytest.fail(f"cannot run the suite as {NORMAL_USER}: {normal_user_run}")
    code, data = normal_user_run.wait()
    assert data is not None, f"the suite as {NORMAL_USER} wrote no report (exit code {code})"
    return data


@pytest.mark.parametrize("mode", MODES, ids=[mode.name for mode in MODES])
@pytest.mark.parametrize("fixture", FIXTURES, ids=[fixture.name for fixture in FIXTURES])
def test_the_same_as_a_normal_user(fixture, mode, normal_user_suite):
    if mode.name in normal_user_suite["unavailable"]:
        pytest.skip(f"{mode.name} is unavailable to {NORMAL_USER}: {normal_user_suite['unavailable'][mode.name]}")
    found = [c for c in normal_user_suite["cells"] if (c["fixture"], c["mode"]) == (fixture.name, mode.name)]
    assert found, f"{fixture.name} did not run in {mode.name} as {NORMAL_USER}"
    cell = conformance.Cell(**found[0])
    assert normal_user_suite["uid"] != 0
    assert cell.survivors == [], explain(cell)
    assert cell.outcome in ("match", "differs (documented)"), explain(cell)


# -- the suite's own pieces --------------------------------------------------------------------

def report(status: str, message: str, isolation: str) -> str:
    case = {"case": "g03-3x3", "verdict": {"status": status, "message": message}, "isolation": isolation}
    return json.dumps({"entries": [{"entry": "conformance/x", "error": None, "cases": [case]}]})


CGROUP = "bubblewrap+seccomp+landlock v7+cgroup v1+own uid"
RLIMITS = "bubblewrap+seccomp+landlock v7+rlimits+own uid"
OOM = "the memory limit (256 MiB) stopped it: the kernel refused or reclaimed memory beyond it"


@pytest.mark.parametrize("fixture, mode, out, outcome", [
    ("heap-python", "bwrap-cgroup", report("memory limit", OOM, CGROUP), "match"),
    ("heap-python", "bwrap-cgroup", report("runtime error", "exit code 1: MemoryError", CGROUP), "mismatch"),
    ("heap-python", "bwrap-rlimits", report("runtime error", "exit code 1: MemoryError", RLIMITS),
     "differs (documented)"),
    ("fork-bash", "none-rlimits", report("time limit", "still running after 2 s (wall time)", RLIMITS),
     "differs (documented)"),
    # only memory and process fixtures may differ, and only where the report says so
    ("sleeper", "bwrap-rlimits", report("accepted", "solved 3x3", RLIMITS), "mismatch"),
    ("cpu-children-sleep", "bwrap-rlimits", report("time limit", "still running after 10 s (wall time)", RLIMITS),
     "mismatch"),
    ("heap-python", "bwrap-rlimits", report("runtime error", "exit code 1: MemoryError", CGROUP), "mismatch"),
    # a hog that held four times its limit is no documented difference: nothing stopped it
    ("heap-python", "bwrap-rlimits", report("presentation error", "line 1: expected 3, got 'held'", RLIMITS),
     "mismatch"),
    # the right verdict naming another limit is not the same verdict
    ("cpu-children-exit", "bwrap-cgroup", report("time limit", "still running after 10 s (wall time)", CGROUP),
     "mismatch"),
    ("fork-python", "bwrap-cgroup", report("runtime error", "exit code 1: BlockingIOError", CGROUP), "mismatch"),
    # asked for a cgroup, judged without one: never quietly
    ("heap-python", "bwrap-cgroup", report("memory limit", OOM, RLIMITS), "mismatch"),
], ids=lambda value: value if isinstance(value, str) and len(value) < 30 else None)
def test_a_report_is_judged_against_the_manifest(fixture, mode, out, outcome):
    cell = conformance.judge_cell(BY_NAME[fixture], conformance.Mode.parse(mode), 1, out, "")
    assert cell.outcome == outcome, cell


def test_a_refusal_is_unavailable_and_a_crash_is_a_mismatch():
    refusal = conformance.judge_cell(BY_NAME["sleeper"], conformance.Mode.parse("none-cgroup"), 2, "",
                                     "verify: error: --accounting cgroup: no cgroup can be made here; fix: ...\n")
    assert (refusal.outcome, refusal.message) == ("unavailable", "verify: error: --accounting cgroup: no cgroup "
                                                                 "can be made here; fix: ...")
    crash = conformance.judge_cell(BY_NAME["sleeper"], conformance.Mode.parse("none-cgroup"), 1, "", "Traceback")
    assert crash.outcome == "mismatch"


@pytest.mark.parametrize("status, message, limit", [
    ("memory limit", OOM, "memory"),
    ("runtime error", "hit the process limit (32 processes): fork: retry", "processes"),
    ("time limit", "used more than 1 s of CPU time", "cpu time"),
    ("time limit", "still running after 1 s (wall time)", "wall time"),
    ("output limit", "printed more than 1 MiB", "output"),
    ("runtime error", "exit code 1: MemoryError", ""),
    ("accepted", "solved 3x3", ""),
])
def test_the_limit_a_verdict_names(status, message, limit):
    assert conformance.limit_named(status, message) == limit


def processes_working_in(folder: Path) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and os.readlink(f"/proc/{entry.name}/cwd") == str(folder):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_for_sleeper(folder: Path, marker: bytes = b"sleep 5341") -> None:
    """Until the fixture's detached child, working in `folder`, has become the sleeper: its
    script returns before the child's exec, and a busy machine runs that exec later."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for pid in processes_working_in(folder):
            try:
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" "):
                    return
            except OSError:
                continue
        time.sleep(0.02)
    raise AssertionError(f"no process became {marker.decode()!r} in {folder} within 20 s")


def test_what_a_fixture_leaves_when_nothing_stops_it_is_found_and_removed(workspace, tmp_path):
    """The daemon fixture run directly (no verify), in the suite's folder: its sleeper, a
    /dev/shm file and a SysV segment with the suite's markers, and a run folder left, are
    found, listed and removed; the same sleeper working in another folder is not the suite's."""
    fixture = BY_NAME["daemon-setsid"]
    script = str(workspace.folder(fixture) / "cf-daemon-setsid.sh")
    since = conformance.Window.now()
    try:
        for folder in (tmp_path, workspace.root):
            done = subprocess.run(["bash", script], input=b"", cwd=folder, stdout=subprocess.DEVNULL,
                                  timeout=30)      # (the daemon keeps its stdout)
            assert done.returncode == 0
            wait_for_sleeper(folder)
        (Path("/dev/shm") / f"{LEFTOVERS.dev_shm_prefix}left-by-a-test").write_bytes(b"x")
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.shmget(LEFTOVERS.sysv_keys[0], 4096, 0o1000 | 0o600) >= 0       # IPC_CREAT
        (workspace.runs / "verify-run-left").mkdir()
        ours = conformance.marked_processes(("sleep 5341",), workspace, since)
        found = conformance.collect_leftovers(fixture, LEFTOVERS, workspace, since)
        assert len(ours) == 1, "the sleeper working elsewhere is not the suite's"
        assert [line for line in found if line.startswith("process")] == [f"process {pid}: sleep 5341" for pid in ours]
        assert any("left-by-a-test" in line for line in found), found
        assert any(f"key {LEFTOVERS.sysv_keys[0]:#x}" in line for line in found), found
        assert "temporary verify-run-left" in found, found
        assert conformance.collect_leftovers(fixture, LEFTOVERS, workspace, since) == []
        assert len(processes_working_in(tmp_path)) == 1       # not removed: not the suite's
    finally:
        for pid in processes_working_in(tmp_path):
            os.kill(pid, signal.SIGKILL)
