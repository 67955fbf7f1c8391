"""The conformance suite: every hostile fixture in every isolation and accounting mode.

Each folder of tests/fixtures/conformance/ is an entry that misbehaves on purpose, with
one expected verdict (tests/fixtures/conformance/expected.toml). Every fixture runs
through the real command, `verify check FIXTURE --case CASE --format json --sandbox S
--accounting A` plus the fixture's limits, in every mode the machine offers, as the user
who runs this script. After each run, what outlived verify is looked for (processes
with the fixture's markers, files left in /dev/shm and in the run's temporary folder,
SysV segments with the fixture's keys), listed and removed.

A mode that verify refuses here (exit 2, one line) is listed as unavailable with that
line. A memory or process fixture may get another verdict (a runtime error or a time
limit) only where the report says so (`verify.runner.isolation.differences` of the
isolation the run reports: rlimits accounting, or no sandbox under the judge's own uid):
such a cell reads "differs (documented)". Any other difference, and any
survivor, is a failure.

    python3 ci/conformance.py [--fixture NAME]... [--mode SANDBOX-ACCOUNTING]...
                              [--require MODE]... [--json FILE] [--as-user NAME]

Exit code 0 when every cell holds, 1 otherwise, 2 for a bad argument or a machine
where the suite cannot run (one line saying why). Details: docs/conformance.md.
"""
from __future__ import annotations

import argparse
import ctypes
import getpass
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:       # this checkout's verify, as the runs use (PYTHONPATH below)
    sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures" / "conformance"
SANDBOXES = ("bwrap", "none")
ACCOUNTINGS = ("cgroup", "rlimits")
DIFFERING_LIMITS = ("memory", "processes")   # what an isolation may judge otherwise, when it says so,
DIFFERING_VERDICTS = ("runtime error", "time limit")   # and as what (isolation.differences)
GONE_WITHIN = 2.0            # seconds after verify exits for what it killed to be gone (test_nothing_survives.py)
VERIFY_GRACE = 60.0          # seconds beyond a fixture's wall-time limit before verify itself counts as hung
SHORT = {"accepted": "AC", "wrong": "WA", "presentation error": "PE", "time limit": "TLE",
         "memory limit": "MLE", "output limit": "OLE", "runtime error": "RE", "compile error": "CE",
         "judge error": "JE"}


class SuiteError(Exception):
    """The suite cannot run here (exit 2, one line)."""


# -- the manifest --------------------------------------------------------------------------

@dataclass(frozen=True)
class Fixture:
    name: str
    what: str
    verdict: str
    limit: str
    markers: tuple[str, ...]
    case: str
    memory: int
    time: float
    cpu: float | None
    processes: int
    output_limit: int

    def limit_arguments(self) -> list[str]:
        arguments = ["--memory", str(self.memory), "--time", f"{self.time:g}", "--processes", str(self.processes),
                     "--output-limit", str(self.output_limit)]
        return arguments + (["--cpu", f"{self.cpu:g}"] if self.cpu is not None else [])


@dataclass(frozen=True)
class Leftovers:
    dev_shm_prefix: str
    sysv_keys: tuple[int, int]


def load_manifest(path: Path = FIXTURES / "expected.toml") -> tuple[list[Fixture], Leftovers]:
    """The fixtures and their expected verdicts; SuiteError naming the field that is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SuiteError(f"{path}: {error}") from None
    where = "defaults"
    try:
        defaults = data["defaults"]
        fixtures = []
        for where, spec in data["fixtures"].items():
            merged = {**defaults, **spec}
            if not (FIXTURES / where / "entry.toml").is_file():
                raise SuiteError(f"{path}: fixture {where}: no entry folder {FIXTURES / where}")
            fixtures.append(Fixture(name=where, what=merged["what"], verdict=merged["verdict"], limit=merged["limit"],
                                    markers=tuple(merged["markers"]), case=merged["case"], memory=merged["memory"],
                                    time=float(merged["time"]), cpu=merged.get("cpu"), processes=merged["processes"],
                                    output_limit=merged["output-limit"]))
        where = "leftovers"
        first, last = data["leftovers"]["sysv-keys"]
        return fixtures, Leftovers(data["leftovers"]["dev-shm-prefix"], (first, last))
    except (KeyError, TypeError, ValueError) as error:
        raise SuiteError(f"{path}: {where}: missing or wrong field {error}") from None


# -- modes ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mode:
    sandbox: str
    accounting: str

    @property
    def name(self) -> str:
        return f"{self.sandbox}-{self.accounting}"

    @classmethod
    def parse(cls, text: str) -> Mode:
        sandbox, _, accounting = text.partition("-")
        if sandbox not in SANDBOXES or accounting not in ACCOUNTINGS:
            raise SuiteError(f"unknown mode {text!r} (one of: {', '.join(m.name for m in all_modes())})")
        return cls(sandbox, accounting)


def all_modes() -> list[Mode]:
    return [Mode(s, a) for s in SANDBOXES for a in ACCOUNTINGS]


class Workspace:
    """The suite's own folder, unique to one invocation, in verify's default place for run
    folders (so the runs see the file system they would see without the suite): a copy of
    every fixture (entries/) and the runs' private folders (runs/, verify's VERIFY_TMPDIR).
    A process of a run names this folder in its command line or works inside it: that is
    how the suite tells its own survivors from those of anyone else on the machine."""

    def __init__(self) -> None:
        from verify.runner.paths import default_temp_root
        self.root = Path(tempfile.mkdtemp(prefix="verify-conformance-", dir=default_temp_root()))
        self.entries, self.runs = self.root / "entries", self.root / "runs"
        shutil.copytree(FIXTURES, self.entries, ignore=lambda folder, names: [
            name for name in names if name == "__pycache__" or (Path(folder) == FIXTURES and name.endswith(".toml"))])
        self.runs.mkdir()
        for folder, _, files in os.walk(self.root):    # a run's own uid (verify as root) must read them
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)

    def folder(self, fixture: Fixture) -> Path:
        return self.entries / fixture.name

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *_: object) -> None:
        self.remove()


def verify_command() -> list[str]:
    """verify from this checkout, with the interpreter running this script."""
    return [sys.executable, "-c", "from verify.cli import run; run()"]


def verify_environment(workspace: Workspace) -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{path}" if path else str(ROOT),
                VERIFY_TMPDIR=str(workspace.runs), NO_COLOR="1")


# -- what outlives a run --------------------------------------------------------------------

@dataclass(frozen=True)
class Window:
    """When a run went on, in the clocks leftovers carry."""
    ticks: int          # /proc/PID/stat's start time: clock ticks since boot
    epoch: float        # file and SysV creation times

    @classmethod
    def now(cls) -> Window:
        return cls(int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK")), time.time())


def run_uid(uid: int) -> bool:
    """Could a run of this suite own `uid`: this user's own, or, for root (whose runs get a
    fresh uid each), root or a uid no account has."""
    if os.geteuid() != 0:
        return uid == os.geteuid()
    if uid == 0:
        return True
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return True
    return False


def marked_processes(markers: tuple[str, ...], workspace: Workspace, since: Window) -> dict[int, str]:
    """Living processes (zombies excepted) of this suite's runs started since `since` whose
    command line holds a marker: pid -> command line."""
    found = {}
    here = str(workspace.root)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry.name}/cmdline", "rb") as cmdline:
                text = cmdline.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except (OSError, IndexError):
            continue
        if fields[0] in (b"Z", b"X") or int(fields[19]) < since.ticks or not any(m in text for m in markers):
            continue
        try:
            works_here = os.readlink(f"/proc/{entry.name}/cwd").startswith(here)
        except OSError:          # another user's process, or gone
            works_here = False
        if here in text or works_here:
            found[int(entry.name)] = text
    return found


def dev_shm_files(prefix: str, since: Window) -> list[Path]:
    """Files of /dev/shm named with `prefix`, made by a run since `since`."""
    found = []
    try:
        for path in Path("/dev/shm").iterdir():
            if path.name.startswith(prefix):
                info = path.lstat()
                if info.st_ctime >= since.epoch - 1 and run_uid(info.st_uid):
                    found.append(path)
    except OSError:
        pass
    return sorted(found)


def sysv_segments(keys: tuple[int, int], since: Window) -> dict[int, int]:
    """SysV shared memory segments of this IPC namespace with a key in `keys`, made by a run
    since `since`: shmid -> key."""
    try:
        lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        return {}
    found = {}
    for line in lines:
        # key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime ...
        values = [int(v) for v in line.split()[:14]]
        key, shmid, creator, created = values[0] & 0xFFFFFFFF, values[1], values[9], values[13]
        if keys[0] <= key <= keys[1] and created >= since.epoch - 1 and run_uid(creator):
            found[shmid] = key
    return found


def remove_segment(shmid: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmctl(shmid, 0, None)    # IPC_RMID


def collect_leftovers(fixture: Fixture, leftovers: Leftovers, workspace: Workspace, since: Window) -> list[str]:
    """What of a run outlived verify (once GONE_WITHIN has passed for what verify killed to
    be gone), each removed; one line each."""
    deadline = time.monotonic() + GONE_WITHIN
    while (processes := marked_processes(fixture.markers, workspace, since)) and time.monotonic() < deadline:
        time.sleep(0.05)
    found = [f"process {pid}: {line[:120]}" for pid, line in sorted(processes.items())]
    for pid in processes:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for path in dev_shm_files(leftovers.dev_shm_prefix, since):
        found.append(f"file {path}")
        path.unlink(missing_ok=True)
    for shmid, key in sysv_segments(leftovers.sysv_keys, since).items():
        found.append(f"SysV segment {shmid} (key {key:#x})")
        remove_segment(shmid)
    for path in sorted(workspace.runs.iterdir()):
        found.append(f"temporary {path.name}")
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() and not path.is_symlink() else path.unlink()
    return found


# -- one run ---------------------------------------------------------------------------------

@dataclass
class Cell:
    fixture: str
    mode: str
    outcome: str                  # match | differs (documented) | mismatch | unavailable
    status: str = ""
    limit: str = ""
    message: str = ""
    isolation: str = ""
    differences: str = ""
    survivors: list[str] = field(default_factory=list)
    exit_code: int | None = None
    wall: float = 0.0
    expected_status: str = ""
    expected_limit: str = ""

    @property
    def failed(self) -> bool:
        return self.outcome == "mismatch" or bool(self.survivors)


def limit_named(status: str, message: str) -> str:
    """The limit a verdict names, in the manifest's words."""
    if status == "memory limit":
        return "memory"
    if status == "output limit":
        return "output"
    if status == "time limit":
        return "wall time" if "wall time" in message else "cpu time" if "CPU time" in message else "time"
    if status == "runtime error" and "process limit" in message:
        return "processes"
    return ""


def differences_of(report: dict, case: dict) -> str:
    """Which verdicts the run's isolation may give otherwise: the report's own word where it
    gives one, else verify's rule for the isolation it names."""
    for holder in (case, report):
        if isinstance(holder.get("differences"), str):
            return holder["differences"]
    from verify.runner.isolation import differences
    return differences(case.get("isolation", ""))


def run_cell(fixture: Fixture, mode: Mode, leftovers: Leftovers, workspace: Workspace) -> Cell:
    """Run one fixture in one mode; its verdict against the expected one, and its survivors."""
    argv = [*verify_command(), "check", str(workspace.folder(fixture)), "--case", fixture.case, "--format", "json",
            "--sandbox", mode.sandbox, "--accounting", mode.accounting, "--jobs", "1", *fixture.limit_arguments()]
    since = Window.now()
    started = time.monotonic()
    process = subprocess.Popen(argv, cwd=ROOT, env=verify_environment(workspace), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=fixture.time + VERIFY_GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        err = f"verify was still running {fixture.time + VERIFY_GRACE:g} s after it started"
    survivors = collect_leftovers(fixture, leftovers, workspace, since)
    cell = judge_cell(fixture, mode, process.returncode, out, err)
    cell.wall, cell.survivors = round(time.monotonic() - started, 2), survivors
    return cell


def judge_cell(fixture: Fixture, mode: Mode, exit_code: int, out: str, err: str) -> Cell:
    """What one run of verify (its exit code, its JSON report, its stderr) says against the
    fixture's expected verdict."""
    cell = Cell(fixture.name, mode.name, "mismatch", exit_code=exit_code, expected_status=fixture.verdict,
                expected_limit=fixture.limit)
    try:
        report = json.loads(out)
        entry = report["entries"][0]
    except (ValueError, LookupError, TypeError):
        cell.outcome = "unavailable" if exit_code == 2 else "mismatch"
        cell.message = err.strip().splitlines()[-1] if err.strip() else f"exit code {exit_code}, no report"
        return cell
    if entry.get("error") or not entry.get("cases"):
        cell.message = str(entry.get("error") or "no case ran")
        return cell
    case = entry["cases"][0]
    verdict = case["verdict"]
    cell.status, cell.message = verdict["status"], verdict.get("message", "")
    cell.limit = limit_named(cell.status, cell.message)
    cell.isolation = case.get("isolation", "")
    cell.differences = differences_of(report, case)
    if mode.accounting == "cgroup" and "cgroup" not in cell.isolation:
        cell.message = f"--accounting cgroup ran with {cell.isolation!r}"
    elif (cell.status, cell.limit) == (fixture.verdict, fixture.limit):
        cell.outcome = "match"
    elif fixture.limit in DIFFERING_LIMITS and cell.status in DIFFERING_VERDICTS and cell.differences:
        cell.outcome = "differs (documented)"
    return cell


# -- the suite --------------------------------------------------------------------------------

@dataclass
class Suite:
    user: str
    uid: int
    date: str
    cells: list[Cell] = field(default_factory=list)
    unavailable: dict[str, str] = field(default_factory=dict)    # mode -> verify's one line

    @property
    def failed(self) -> bool:
        return any(cell.failed for cell in self.cells)

    def cells_of(self, mode: str) -> list[Cell]:
        return [cell for cell in self.cells if cell.mode == mode]


def run_suite(fixtures: list[Fixture], modes: list[Mode], leftovers: Leftovers,
              progress=None) -> Suite:
    suite = Suite(user=getpass.getuser(), uid=os.getuid(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    with Workspace() as workspace:
        for mode in modes:
            for fixture in fixtures:
                cell = run_cell(fixture, mode, leftovers, workspace)
                if cell.outcome == "unavailable" and not suite.cells_of(mode.name):
                    suite.unavailable[mode.name] = cell.message
                    break
                if cell.outcome == "unavailable":     # a refusal after runs that went ahead: verify's failure
                    cell.outcome = "mismatch"
                suite.cells.append(cell)
                if progress is not None:
                    progress(cell)
    return suite


def verdict_text(status: str, limit: str) -> str:
    """A verdict in a few letters and the limit it names: "MLE memory", "TLE wall time", "AC"."""
    return SHORT.get(status, status) + (f" {limit}" if limit else "")


def cell_text(cell: Cell) -> str:
    words = verdict_text(cell.status, cell.limit) if cell.status else f"no verdict: {cell.message[:60]}"
    if cell.outcome == "differs (documented)":
        words = f"differs (documented): {words}"
    elif cell.outcome == "mismatch":
        words = f"**{words}** (expected {verdict_text(cell.expected_status, cell.expected_limit)})"
    if cell.survivors:
        words += f" + **{len(cell.survivors)} survivor{'s' if len(cell.survivors) > 1 else ''}**"
    return words


def table(suite: Suite, fixtures: list[Fixture], modes: list[Mode]) -> str:
    """The Markdown table: a row per fixture, a column per mode, then the isolation of each mode."""
    ran = [mode for mode in modes if mode.name not in suite.unavailable]
    by_key = {(cell.fixture, cell.mode): cell for cell in suite.cells}
    lines = ["| fixture | expected | " + " | ".join(mode.name for mode in ran) + " |",
             "|---|---|" + "---|" * len(ran)]
    for fixture in fixtures:
        cells = [cell_text(by_key[fixture.name, mode.name]) if (fixture.name, mode.name) in by_key else "not run"
                 for mode in ran]
        lines.append(f"| {fixture.name} | {verdict_text(fixture.verdict, fixture.limit)} | " + " | ".join(cells) + " |")
    lines.append("")
    for mode in ran:
        isolations = sorted({cell.isolation for cell in suite.cells if cell.mode == mode.name and cell.isolation})
        lines.append(f"- {mode.name}: {', '.join(isolations) or 'no report'}")
    for refused, line in suite.unavailable.items():
        lines.append(f"- {refused}: unavailable: {line}")
    survivors = [f"  - {cell.fixture} in {cell.mode}: {s}" for cell in suite.cells for s in cell.survivors]
    if survivors:
        lines += ["", "Survivors (removed):", *survivors]
    mismatches = [f"  - {c.fixture} in {c.mode}: {c.status or 'no verdict'}: {c.message}"
                  for c in suite.cells if c.outcome == "mismatch"]
    if mismatches:
        lines += ["", "Mismatches:", *mismatches]
    return "\n".join(lines)


def suite_json(suite: Suite) -> dict:
    return {"user": suite.user, "uid": suite.uid, "date": suite.date, "passed": not suite.failed,
            "unavailable": suite.unavailable, "cells": [asdict(cell) for cell in suite.cells]}


# -- as another user ---------------------------------------------------------------------------

def user_python(name: str) -> Path:
    """A Python for user `name` that can run verify from this checkout: the user's own venv
    (made once, with the project's dependencies), the checkout on PYTHONPATH."""
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], check=True, capture_output=True)
        account = pwd.getpwnam(name)
    venv = Path(account.pw_dir) / ".cache" / "verify-conformance" / "venv"
    python = venv / "bin" / "python"
    as_user = ["runuser", "-u", name, "--"]
    probe = [*as_user, "env", f"PYTHONPATH={ROOT}", str(python), "-c", "import verify.cli, click, regex, rich"]
    if python.exists() and subprocess.run(probe, capture_output=True, cwd="/").returncode == 0:
        return python
    system_python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if system_python is None:
        raise SuiteError("no python3 on the system PATH for a normal user")
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for step in ([*as_user, system_python, "-m", "venv", "--system-site-packages", str(venv)],
                 [*as_user, str(venv / "bin" / "pip"), "install", "--quiet", *dependencies], probe):
        done = subprocess.run(step, capture_output=True, text=True, cwd="/")
        if done.returncode != 0:
            last = (done.stderr.strip() or done.stdout.strip() or f"exit code {done.returncode}").splitlines()[-1]
            raise SuiteError(f"cannot prepare a Python for user {name} ({' '.join(step[4:6])}): {last}")
    return python


class UserRun:
    """This script again, as user `name`, started in the background (verify is root here):
    its table goes to `stdout`, `wait()` gives its exit code and its JSON."""

    def __init__(self, name: str, arguments: list[str], stdout=None, *, delegated_cgroup: bool = False) -> None:
        """delegated_cgroup: on a cgroup v1 host, give the user a cgroup of its own first
        (ci/platforms/entrypoint.sh, as a container's recipe does), so that its runs get
        a cgroup each and the suite covers every mode as a normal user."""
        if os.geteuid() != 0 or not shutil.which("runuser"):
            raise SuiteError("running the suite as another user needs root and runuser")
        python = user_python(name)
        account = pwd.getpwnam(name)
        readable = subprocess.run(["runuser", "-u", name, "--", "test", "-r", str(Path(__file__).resolve())], cwd="/")
        if readable.returncode != 0:
            raise SuiteError(f"user {name} cannot read the checkout {ROOT}")
        self.scratch = Path(tempfile.mkdtemp(prefix="verify-conformance-user-"))
        os.chown(self.scratch, account.pw_uid, account.pw_gid)
        self.json_path = self.scratch / "suite.json"
        self.user_groups = [Path(f"{CGROUP_ROOT}/{controller}{own.rstrip('/')}/{name}")
                            for controller, own in _v1_memberships().items()] if delegated_cgroup else []
        as_user = ["sh", str(ROOT / "ci" / "platforms" / "entrypoint.sh"), name] if self.user_groups else \
            ["runuser", "-u", name, "--"]
        self.process = subprocess.Popen(
            [*as_user, "env", f"PYTHONPATH={ROOT}", f"HOME={account.pw_dir}", str(python),
             str(Path(__file__).resolve()), *arguments, "--json", str(self.json_path)],
            cwd="/", stdin=subprocess.DEVNULL, stdout=stdout)

    def wait(self) -> tuple[int, dict | None]:
        code = self.process.wait()
        try:
            return code, json.loads(self.json_path.read_text()) if self.json_path.exists() else None
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)
            for group in self.user_groups:     # (empty now: its last process has ended)
                try:
                    group.rmdir()
                except OSError:
                    pass


CGROUP_ROOT = "/sys/fs/cgroup"
V1_CONTROLLERS = ("memory", "pids", "cpuacct")


def _v1_memberships() -> dict[str, str]:
    """This process's cgroup in each v1 hierarchy verify counts with; {} on a cgroup v2 host."""
    found: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            if controller in V1_CONTROLLERS and Path(CGROUP_ROOT, controller).is_dir():
                found[controller] = path
    return found if len(found) == len(V1_CONTROLLERS) else {}


def can_delegate_v1_cgroup() -> bool:
    """A cgroup v1 host whose memory, pids and cpuacct hierarchies root can write."""
    return os.geteuid() == 0 and bool(_v1_memberships()) and all(
        os.access(f"{CGROUP_ROOT}/{controller}{own}", os.W_OK) for controller, own in _v1_memberships().items())


def run_as_user(name: str, arguments: list[str], json_path: Path | None) -> int:
    """The suite as user `name` (on a cgroup v1 host, given a cgroup of its own first):
    its table on stdout, its JSON where asked; its exit code."""
    code, data = UserRun(name, arguments, delegated_cgroup=can_delegate_v1_cgroup()).wait()
    if json_path is not None and data is not None:
        json_path.write_text(json.dumps(data, indent=2) + "\n")
    return code


# -- the command ------------------------------------------------------------------------------

def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Run the conformance suite (docs/conformance.md).")
    parser.add_argument("--fixture", action="append", default=[], help="only this fixture (repeatable)")
    parser.add_argument("--mode", action="append", default=[], help="only this mode, e.g. bwrap-cgroup (repeatable)")
    parser.add_argument("--require", action="append", default=[],
                        help="fail when this mode is unavailable here (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    parser.add_argument("--as-user", metavar="NAME",
                        help="run the suite as user NAME (created when missing; needs root)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    arguments = parse_arguments(argv)
    try:
        if arguments.as_user:
            passed_on = _without_option(_without_option(argv, "--as-user"), "--json")
            return run_as_user(arguments.as_user, passed_on, arguments.json)
        fixtures, leftovers = load_manifest()
        unknown = set(arguments.fixture) - {f.name for f in fixtures}
        if unknown:
            raise SuiteError(f"unknown fixture {sorted(unknown)[0]!r} (see {FIXTURES / 'expected.toml'})")
        chosen = [f for f in fixtures if not arguments.fixture or f.name in arguments.fixture]
        modes = [Mode.parse(m) for m in arguments.mode] or all_modes()
        required = [Mode.parse(m).name for m in arguments.require]
    except (SuiteError, OSError, subprocess.CalledProcessError) as error:
        print(f"conformance: {error}", file=sys.stderr)
        return 2

    def progress(cell: Cell) -> None:
        print(f"  {cell.mode:14} {cell.fixture:20} {cell_text(cell)}  ({cell.wall:g} s)", file=sys.stderr, flush=True)

    suite = run_suite(chosen, modes, leftovers, progress)
    print(f"Conformance suite as {suite.user} (uid {suite.uid}), {suite.date}\n")
    print(table(suite, chosen, modes))
    missing = [mode for mode in required if mode in suite.unavailable]
    for mode in missing:
        print(f"\nrequired mode {mode} is unavailable: {suite.unavailable[mode]}")
    if arguments.json is not None:
        arguments.json.write_text(json.dumps(suite_json(suite), indent=2) + "\n")
    return 1 if suite.failed or missing else 0


def _without_option(argv: list[str], option: str) -> list[str]:
    kept, skip = [], False
    for argument in argv:
        if skip:
            skip = False
        elif argument == option:
            skip = True
        elif not argument.startswith(option + "="):
            kept.append(argument)
    return kept


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
