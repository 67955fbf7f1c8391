"""A control group per run: the kernel counts memory, processes and CPU time for
every process of the run, and those counts decide the limit verdicts.

What it gives that rlimits cannot:
- memory: every page the run holds (heap, mmap, memfd, SysV and POSIX shared memory,
  tmpfs files) is charged; at the limit the kernel kills inside the group and counts
  the kill (an exact "memory limit"), and the peak charge is the reported memory;
- processes: `pids.max` refuses forks beyond the limit and `pids.events` counts each
  refusal, a counter the program cannot fake (no text it prints is read);
- CPU time: the group's total covers children that were never reaped.

A fresh group is made for each run and removed after it (about 0.3 ms for the three
v1 hierarchies on the machine this was built on), so no counter needs resetting.
verify-init joins it through descriptors of its `cgroup.procs` files before it
starts the program, which works inside bubblewrap too.

Used by default where the machine gives us groups to write: v1 with the memory, pids and
cpuacct hierarchies (as root), else v2 in a folder of our own that cgroup_delegation.py
finds or asks systemd for, once per process and only when a run first needs a cgroup.
Where none can be had, `unavailable_reason()` says why in one line (`--accounting
rlimits` goes without, asked for by name). Once cgroups are in force, a run whose group
cannot be made is the judge's failure (`RunCgroupFailed`), never a run judged quietly
without one.
"""
from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from verify.errors import JudgeFailure
from verify.runner import cgroup_delegation, reaper

V1_CONTROLLERS = ("memory", "pids", "cpuacct")


@dataclass(frozen=True)
class CgroupSetup:
    """Where per-run groups are made: one parent folder per v1 hierarchy, or one v2 folder."""

    version: str                       # "v1" | "v2"
    parents: tuple[tuple[str, Path], ...]   # (controller, folder); v2: (("unified", folder),)

    @property
    def name(self) -> str:
        return f"cgroup {self.version}"

    @property
    def parent_folders(self) -> list[Path]:
        """The folders where per-run groups are made (and where a killed verify may have left some)."""
        return [parent for _, parent in self.parents]


@dataclass(frozen=True)
class CgroupUsage:
    cpu_time: float          # seconds of CPU used by every process of the run
    peak_memory: int         # bytes: the group's peak charge
    oom_kills: int           # processes the kernel killed at the memory limit
    forks_refused: int       # forks refused at the process limit


@cache
def probed_setup() -> CgroupSetup | None:
    """This machine's per-run cgroup set-up, or None when none can be made here (then
    `unavailable_reason()` says why). The first call may move verify into a cgroup of its own."""
    setup, _ = _probed()
    return setup


def unavailable_reason() -> str:
    """Why no per-run cgroup can be had here, in one line; "" when one can."""
    return _probed()[1]


@cache
def _probed() -> tuple[CgroupSetup | None, str]:
    v1 = v1_setup(Path("/proc/self"))
    if v1 is not None and _probe(v1):
        return v1, ""
    delegation = cgroup_delegation.acquire()
    if delegation.parent is None:
        return None, f"no cgroup v2 folder for run groups: {delegation.reason}"
    v2 = CgroupSetup("v2", (("unified", delegation.parent),))
    if not _probe(v2):
        return None, f"a trial run group in {delegation.parent} ({delegation.how}) could not be made"
    return v2, ""


def v1_setup(proc_self: Path) -> CgroupSetup | None:
    """The v1 set-up (our groups in the memory, pids and cpuacct hierarchies), or None."""
    try:
        mounts = (proc_self / "mountinfo").read_text().splitlines()
        memberships = (proc_self / "cgroup").read_text().splitlines()
    except OSError:
        return None
    v1_roots: dict[str, str] = {}
    for mount in mounts:
        fields = mount.split()
        if "-" not in fields:
            continue
        separator = fields.index("-")
        fstype, options = fields[separator + 1], fields[separator + 3].split(",")
        if fstype == "cgroup":
            for controller in V1_CONTROLLERS:
                if controller in options:
                    v1_roots.setdefault(controller, fields[4])
    v1_parents: dict[str, Path] = {}
    for line in memberships:
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(","):
            if controller in v1_roots:
                v1_parents[controller] = Path(v1_roots[controller] + path)
    if set(v1_parents) != set(V1_CONTROLLERS):
        return None
    return CgroupSetup("v1", tuple((c, v1_parents[c]) for c in V1_CONTROLLERS))


def _probe(setup: CgroupSetup) -> bool:
    try:
        trial = RunCgroup.create(setup, 64 << 20, 8)
    except OSError:
        return False
    trial.remove()
    return True


class RunCgroup:
    """One run's group(s): limits, membership descriptors, usage, kill, removal."""

    def __init__(self, setup: CgroupSetup, folders: dict[str, Path]) -> None:
        self.setup = setup
        self.folders = folders          # controller ("memory", "pids", "cpuacct" or "unified") -> folder
        self.procs_fds: list[int] = []

    @classmethod
    def create(cls, setup: CgroupSetup, memory: int, processes: int) -> RunCgroup:
        name = reaper.cgroup_name_prefix() + os.urandom(4).hex()
        group = cls(setup, {})
        try:
            for controller, parent in setup.parents:
                folder = parent / name
                folder.mkdir()
                group.folders[controller] = folder
            group._write("memory", "memory.limit_in_bytes" if setup.version == "v1" else "memory.max", memory)
            if setup.version == "v1":
                group._write_if_present("memory", "memory.memsw.limit_in_bytes", memory)  # no escape to swap
            else:
                group._write_if_present("memory", "memory.swap.max", 0)
            group._write("pids", "pids.max", processes)
            group.procs_fds = [os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
                               for folder in group.folders.values()]
        except OSError:
            group.remove()
            raise
        return group

    def _folder(self, controller: str) -> Path:
        return self.folders.get(controller) or self.folders["unified"]

    def _write(self, controller: str, name: str, value: int) -> None:
        (self._folder(controller) / name).write_text(str(value))

    def _write_if_present(self, controller: str, name: str, value: int) -> None:
        try:
            self._write(controller, name, value)
        except OSError:
            pass

    def _read(self, controller: str, name: str) -> str:
        try:
            return (self._folder(controller) / name).read_text()
        except OSError:
            return ""

    def _keyed(self, controller: str, name: str, key: str) -> int:
        for line in self._read(controller, name).splitlines():
            word, _, value = line.partition(" ")
            if word == key:
                try:
                    return int(value)
                except ValueError:
                    return 0
        return 0

    def cpu_time(self) -> float:
        """CPU seconds used so far by every process of the run."""
        if self.setup.version == "v1":
            text = self._read("cpuacct", "cpuacct.usage").strip()
            return int(text) / 1e9 if text.isdigit() else 0.0
        return self._keyed("unified", "cpu.stat", "usage_usec") / 1e6

    def usage(self) -> CgroupUsage:
        if self.setup.version == "v1":
            peak_text = self._read("memory", "memory.max_usage_in_bytes").strip()
            oom = self._keyed("memory", "memory.oom_control", "oom_kill")
        else:
            peak_text = self._read("memory", "memory.peak").strip()
            oom = self._keyed("memory", "memory.events", "oom_kill")
        return CgroupUsage(cpu_time=self.cpu_time(), peak_memory=int(peak_text) if peak_text.isdigit() else 0,
                           oom_kills=oom, forks_refused=self._keyed("pids", "pids.events", "max"))

    def members(self) -> list[int]:
        pids: set[int] = set()
        for folder in self.folders.values():
            try:
                pids.update(int(p) for p in (folder / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                continue
        return sorted(pids)

    def kill_all(self, timeout: float = 2.0) -> None:
        """SIGKILL every process of the group until none is left (a process forking
        meanwhile is caught by the next round; pids.max bounds how many there can be)."""
        kill_file = self.folders.get("unified")
        if kill_file is not None:
            try:
                (kill_file / "cgroup.kill").write_text("1")
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        pause = 0.0002
        while time.monotonic() < deadline:
            members = self.members()
            if not members:
                return
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(pause)
            pause = min(pause * 2, 0.01)

    def close_fds(self) -> None:
        for fd in self.procs_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        self.procs_fds = []

    def remove(self) -> None:
        self.close_fds()
        for folder in self.folders.values():
            remove_group_folder(folder)
        self.folders = {}


def remove_group_folder(folder: Path, timeout: float = 5.0) -> None:
    """rmdir a group once its last processes have left it (any still inside are killed)."""
    reaper.empty_and_remove_cgroup(folder, timeout)


class RunCgroupFailed(JudgeFailure):
    """A run's cgroup cannot be made although cgroups are in force: the judge's failure."""


def create_run_cgroup(setup: CgroupSetup, memory: int, processes: int) -> RunCgroup:
    """A new group for one run under `setup`; RunCgroupFailed when it cannot be made (a
    run without one would be judged by other counts than every other run of the command)."""
    try:
        return RunCgroup.create(setup, memory, processes)
    except OSError as error:
        where = setup.parent_folders[0] if setup.parent_folders else "?"
        raise RunCgroupFailed(f"cannot make a run's cgroup in {where}: {error.strerror or error}; "
                              f"fix: keep that folder writable by verify and below its cgroup.max.descendants, "
                              f"or choose --accounting rlimits") from None
