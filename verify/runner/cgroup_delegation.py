"""A cgroup v2 folder of our own to make the per-run groups in, wherever one can be had.

cgroup v2 lets verify make a run group with memory and process limits only in a folder
it may write whose children get the memory and pids controllers (its
`cgroup.subtree_control`); and such a folder holds no process itself, the root excepted
(the "no internal processes" rule). So verify's own cgroup is seldom usable as it is. Once
per process, the first time a run needs a cgroup, `acquire` looks for a folder in this
order and returns it (the parent of every run group), or why none can be had:

1. verify's own cgroup already gives its children memory and pids (the root cgroup, or a
   subtree someone prepared);
2. its own cgroup is delegated to it (writable, memory and pids available) and holds
   verify alone (`systemd-run [--user] --scope -p Delegate=yes verify ...`, a container
   whose first process is verify): verify moves itself into a leaf ``verify-<tag>-judge``
   and enables memory, pids and cpu for the folder's children; its run groups are the
   leaf's siblings, and threads, the fork server and every process it starts later are in
   the leaf with it;
3. it is the root of a container's private cgroup namespace, writable: every process of
   the container is moved into the leaf ``verify-leaf`` first, which stays after verify
   (the container's processes live in it); the next verify finds itself in that leaf and
   uses its parent;
4. on a systemd host, systemd is asked for a transient scope ``verify-<tag>.scope`` with
   Delegate=yes holding verify (the system manager for root, the user's own manager
   otherwise: StartTransientUnit through busctl), and 2 applies in the scope.

Nothing stays in systemd's tree: a scope is stopped and removed by systemd once its last
process is gone, and at exit verify undoes what it did in a folder it did not ask for (it
moves back, disables what it enabled, removes its leaf). A verify that was killed leaves
its leaf and run groups named with its tag, which the next verify removes (reaper.py),
together with the stale scopes next to its own.

Everything this reads and asks goes through a `Host`, so tests run it over a fake tree.
"""
from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from verify.runner import reaper
from verify.settings import from_process

NEEDED = ("memory", "pids")              # without these a run group limits nothing
WANTED = ("memory", "pids", "cpu")       # enabled for the run groups when available
SHARED_LEAF = "verify-leaf"              # a container's processes, moved out of its root
SCOPE_WAIT = 20.0                        # seconds systemd gets to move verify into its scope
BUSCTL_TIMEOUT = 30.0
_STALE_SCOPE = re.compile(r"verify-(\d+-\d+)\.scope")
_JUDGE_LEAF = re.compile(r"verify-\d+-\d+-judge")


@dataclass(frozen=True)
class Delegation:
    """Where run groups are made (`parent`), how it was had, or why there is none."""

    parent: Path | None
    how: str = ""
    reason: str = ""


def ask_systemd_for_scope(unit: str, pid: int, user: bool) -> str:
    """Ask systemd (the user's manager when `user`) for a transient scope `unit` with
    Delegate=yes holding process `pid`; "" when asked, else why not (one line)."""
    busctl = shutil.which("busctl")
    if busctl is None:
        return "busctl is not installed"
    call = ["call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
            "StartTransientUnit", "ssa(sv)a(sa(sv))", unit, "fail",
            "4", "PIDs", "au", "1", str(pid), "Delegate", "b", "true",
            "CollectMode", "s", "inactive-or-failed", "Description", "s", "verify: per-run cgroups", "0"]
    environment = dict(from_process().environment)     # busctl is ours, trusted: the user's bus address
    if user:
        runtime = environment.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
        environment["XDG_RUNTIME_DIR"] = runtime
        if "DBUS_SESSION_BUS_ADDRESS" not in environment and not os.path.exists(f"{runtime}/bus"):
            return (f"no user bus at {runtime}/bus to reach the user's systemd (apt-get install "
                    f"dbus-user-session; log in, or loginctl enable-linger)")
        bus = ["--user"]
    else:
        bus = ["--system"]
    try:
        answer = subprocess.run([busctl, *bus, "--quiet", *call], env=environment, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=BUSCTL_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"busctl: {error}"
    if answer.returncode == 0:
        return ""
    text = answer.stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:200] if text else f"busctl exit code {answer.returncode}"


def write_file(path: Path, text: str) -> None:
    path.write_text(text)


def writable(folder: Path) -> bool:
    """May we make groups in `folder`, move processes in and enable controllers (a read-only
    mount, a folder owned by someone else or a container's masked tree: no)."""
    return all(os.access(path, os.W_OK) for path in
               (folder, folder / "cgroup.procs", folder / "cgroup.subtree_control"))


@dataclass
class Host:
    """What acquisition reads and asks: this machine by default, a fake tree in tests."""

    proc_self: Path = Path("/proc/self")                 # its mountinfo and cgroup files
    pid: int = field(default_factory=os.getpid)              # the process to place
    current_pid: Callable[[], int] = os.getpid                 # who runs the exit hook (a fork's child: not us)
    uid: int = field(default_factory=os.geteuid)
    systemd_booted: bool = field(default_factory=lambda: os.path.isdir("/run/systemd/system"))
    ask_scope: Callable[[str, int, bool], str] = ask_systemd_for_scope
    at_exit: Callable[[Callable[[], None]], object] = atexit.register
    write: Callable[[Path, str], None] = write_file                 # every write into the tree
    writable: Callable[[Path], bool] = writable
    remove: Callable[[Path], None] = Path.rmdir                      # an empty group (its files go with it)
    scope_wait: float = SCOPE_WAIT


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def _members(folder: Path) -> set[int]:
    return {int(word) for word in _words(folder / "cgroup.procs") if word.isdigit()}


def v2_folder(proc_self: Path) -> tuple[Path, str] | None:
    """Our cgroup v2 folder and its path as /proc/self/cgroup gives it ("/" at the root of
    our cgroup namespace), or None when no cgroup2 is mounted that holds it."""
    found = _v2_place(proc_self)
    return None if found is None else (found[0], found[1])


def _v2_place(proc_self: Path) -> tuple[Path, str, Path] | None:
    """`v2_folder` and the mount point of the hierarchy."""
    try:
        mounts = (proc_self / "mountinfo").read_text().splitlines()
        memberships = (proc_self / "cgroup").read_text().splitlines()
    except OSError:
        return None
    path = next((line[3:] for line in memberships if line.startswith("0::")), None)
    if path is None:
        return None
    for mount in mounts:
        fields = mount.split()
        if "-" not in fields:
            continue
        separator = fields.index("-")
        if separator + 1 >= len(fields) or fields[separator + 1] != "cgroup2":
            continue
        root, point = fields[3], fields[4]
        if path == root or path.startswith(root.rstrip("/") + "/"):
            relative = path[len(root.rstrip("/")):].lstrip("/")
            return (Path(point) / relative if relative else Path(point)), path, Path(point)
    return None


def acquire(host: Host | None = None) -> Delegation:
    """The folder to make run groups in (moving verify and asking systemd as needed), or
    why none can be had here."""
    host = host or Host()
    found = _v2_place(host.proc_self)
    if found is None:
        return Delegation(None, reason="no cgroup v2 hierarchy holds verify's cgroup here")
    folder, path, top = found
    offered = _words(top / "cgroup.controllers")
    if not set(NEEDED) <= offered:
        return Delegation(None, reason="the cgroup v2 hierarchy offers no memory and pids controllers here "
                                       "(they are on cgroup v1, or not given to this container)")
    here = use_folder(host, folder, path)
    if here.parent is not None or not host.systemd_booted:
        return here
    unit = f"verify-{reaper.owner_tag()}.scope"
    failure = host.ask_scope(unit, host.pid, host.uid != 0)
    if failure:
        return Delegation(None, reason=f"{here.reason}, and systemd gave verify no delegated scope ({failure})")
    scope = _wait_for_scope(host, unit)
    if scope is None:
        return Delegation(None, reason=f"{here.reason}, and systemd did not move verify into {unit} "
                                       f"within {host.scope_wait:g} s")
    remove_stale_scopes(scope[0].parent)
    inside = use_folder(host, *scope)
    if inside.parent is None:
        return Delegation(None, reason=f"systemd's scope {unit}: {inside.reason}")
    return Delegation(inside.parent, how=f"systemd scope {unit}: {inside.how}")


def _wait_for_scope(host: Host, unit: str) -> tuple[Path, str] | None:
    deadline = time.monotonic() + host.scope_wait
    pause = 0.005
    while True:
        found = v2_folder(host.proc_self)
        if found is not None and found[1].rsplit("/", 1)[-1] == unit:
            return found
        if time.monotonic() > deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


def use_folder(host: Host, folder: Path, path: str) -> Delegation:
    """Make `folder` (our cgroup, at `path`) or its parent fit to hold run groups, without
    asking anyone; a Delegation without parent says why it cannot be."""
    if set(NEEDED) <= _words(folder / "cgroup.subtree_control") and host.writable(folder):
        return Delegation(folder, how=f"{path} gives its children memory and pids")
    parent = folder.parent
    in_leaf = folder.name == SHARED_LEAF or _JUDGE_LEAF.fullmatch(folder.name) is not None
    if in_leaf and path != "/" and host.writable(parent) and set(NEEDED) <= _words(parent / "cgroup.subtree_control"):
        return Delegation(parent, how=f"the parent of its leaf {folder.name}")   # e.g. a worker verify started
    if not host.writable(folder):
        return Delegation(None, reason=f"verify's cgroup {path} is not delegated to uid {host.uid} "
                                       f"(it cannot write it)")
    available = _words(folder / "cgroup.controllers")
    if not set(NEEDED) <= available:
        return Delegation(None, reason=f"verify's cgroup {path} offers no "
                                       f"{' and '.join(c for c in NEEDED if c not in available)} controller")
    if not (folder / "cgroup.type").exists():          # the root cgroup may hold processes and children
        failure = _enable(host, folder, available)
        return Delegation(None, reason=failure) if failure else Delegation(folder, how="the root cgroup")
    others = _members(folder) - {host.pid}
    if not others:
        return _move_into_leaf(host, folder, path, available)
    if path == "/":
        return _move_container_into_leaf(host, folder, path, available)
    return Delegation(None, reason=f"verify's cgroup {path} holds {len(others)} other "
                                   f"process{'es' if len(others) > 1 else ''}, so it cannot give run groups "
                                   f"controllers")


def _enable(host: Host, folder: Path, available: set[str]) -> str:
    """Enable the wanted controllers for `folder`'s children; "" or why not."""
    enabled = _words(folder / "cgroup.subtree_control")
    for controller in WANTED:
        if controller in available and controller not in enabled:
            try:
                host.write(folder / "cgroup.subtree_control", f"+{controller}")
            except OSError as error:
                if controller in NEEDED:
                    return f"cannot enable {controller} for the children of {folder} ({error.strerror})"
    return ""


def _move(host: Host, pid: int, into: Path) -> str:
    try:
        host.write(into / "cgroup.procs", str(pid))
    except ProcessLookupError:
        return ""                                      # it ended meanwhile
    except OSError as error:
        return f"cannot move process {pid} into {into} ({error.strerror})"
    return ""


def _move_into_leaf(host: Host, folder: Path, path: str, available: set[str]) -> Delegation:
    leaf = folder / f"{reaper.cgroup_name_prefix()}judge"
    enabled_before = _words(folder / "cgroup.subtree_control")
    try:
        leaf.mkdir()
    except OSError as error:
        return Delegation(None, reason=f"cannot make a group in verify's cgroup {path} ({error.strerror})")
    failure = _move(host, host.pid, leaf) or _enable(host, folder, available)
    if failure:
        _undo(host, folder, leaf, enabled_before)
        return Delegation(None, reason=failure)
    host.at_exit(lambda: _undo(host, folder, leaf, enabled_before) if host.current_pid() == host.pid else None)
    return Delegation(folder, how=f"verify moved into {leaf.name} in {path}")


def _undo(host: Host, folder: Path, leaf: Path, enabled_before: set[str]) -> None:
    """Give `folder` back as it was: controllers off, verify back in it, leaf removed (what
    cannot be undone stays, e.g. a child still in the leaf)."""
    for controller in reversed(WANTED):
        if controller not in enabled_before and controller in _words(folder / "cgroup.subtree_control"):
            try:
                host.write(folder / "cgroup.subtree_control", f"-{controller}")
            except OSError:
                return
    if _move(host, host.pid, folder):
        return
    try:
        host.remove(leaf)
    except OSError:
        pass


def _move_container_into_leaf(host: Host, folder: Path, path: str, available: set[str]) -> Delegation:
    leaf = folder / SHARED_LEAF
    try:
        leaf.mkdir(exist_ok=True)
    except OSError as error:
        return Delegation(None, reason=f"cannot make a group in the container's cgroup {path} ({error.strerror})")
    for _ in range(50):                                # processes forking meanwhile land in the root again
        members = _members(folder)
        if not members:
            break
        for pid in sorted(members):
            failure = _move(host, pid, leaf)
            if failure:
                return Delegation(None, reason=failure)
    failure = _enable(host, folder, available)
    if failure:
        return Delegation(None, reason=failure)
    return Delegation(folder, how=f"the container's processes moved into {SHARED_LEAF}")


def remove_stale_scopes(slice_folder: Path) -> None:
    """Empty the scopes of verify processes that were killed (their run groups and leaf, by
    reaper's naming); systemd then removes each scope."""
    try:
        entries = list(os.scandir(slice_folder))
    except OSError:
        return
    for entry in entries:
        match = _STALE_SCOPE.fullmatch(entry.name)
        if match is not None and not reaper.owner_alive(match.group(1)):
            reaper.remove_stale([], [Path(entry.path)])
