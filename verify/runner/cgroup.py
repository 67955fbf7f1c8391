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
            group.set_limits(memory, processes)
            group.procs_fds = [os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
                               for folder in group.folders.values()]
        except OSError:
            group.remove()
            raise
        return group

    def set_limits(self, memory: int, processes: int) -> None:
        """The group's memory limit (swap included: no escape to it) and its process limit."""
        v1 = self.setup.version == "v1"
        self._write("memory", "memory.limit_in_bytes" if v1 else "memory.max", memory)
        if v1:
            self._write_if_present("memory", "memory.memsw.limit_in_bytes", memory)
        else:
            self._write_if_present("memory", "memory.swap.max", 0)
        self._write("pids", "pids.max", processes)

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
        return _read_file(f"{self._folder(controller)}/{name}")

    def _number(self, controller: str, name: str) -> int:
        text = self._read(controller, name).strip()
        return int(text) if text.isdigit() else 0

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
        return self._cpu_total()

    def _cpu_total(self) -> float:
        """CPU seconds used so far by every process the group held."""
        if self.setup.version == "v1":
            return self._number("cpuacct", "cpuacct.usage") / 1e9
        return self._keyed("unified", "cpu.stat", "usage_usec") / 1e6

    def usage(self) -> CgroupUsage:
        oom = (self._keyed("memory", "memory.oom_control", "oom_kill") if self.setup.version == "v1"
               else self._keyed("memory", "memory.events", "oom_kill"))
        return CgroupUsage(cpu_time=self._cpu_total(), peak_memory=self._peak(), oom_kills=oom,
                           forks_refused=self._keyed("pids", "pids.events", "max"))

    def _peak(self) -> int:
        """The group's peak charge in bytes."""
        return self._number("memory", "memory.max_usage_in_bytes" if self.setup.version == "v1" else "memory.peak")

    def members(self) -> list[int]:
        pids: set[int] = set()
        for folder in self.folders.values():
            try:
                pids.update(int(p) for p in _read_file(f"{folder}/cgroup.procs").split())
            except ValueError:
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


class KeptCgroup:
    """One group kept for the runs of a fork server, one run at a time: made once (no
    mkdir or rmdir per run, and no first join of a fresh memory group, which waits for
    the kernel's RCU grace period: several ms), each run's counts taken as differences
    from that run's start (`StepCgroup`). Only where the peak memory can be reset: v1's
    `memory.max_usage_in_bytes`, v2's `memory.peak` on Linux 6.12+ (reset per descriptor);
    elsewhere it cannot be made (OSError)."""

    def __init__(self, setup: CgroupSetup, memory: int, processes: int) -> None:
        self.group = RunCgroup.create(setup, memory, processes)
        self.limits = (memory, processes)
        self._counters: dict[str, int] = {}        # the group's counter files, kept open (path -> fd)
        # it outlives runs: a signal that ends verify removes it too (else the next verify does)
        self._token: int | None = reaper.track(self._abort)
        try:
            probe = StepCgroup(self)
            try:
                probe.begin()
            finally:
                probe.remove()
        except OSError:
            self.remove()
            raise

    def step(self, memory: int, processes: int) -> StepCgroup:
        """The group for the next run, under these limits (a group whose limits differ
        is made again: v1's swap limit must never fall below the memory limit, so
        changing both in place depends on their order). Its counts start at `begin()`."""
        if (memory, processes) != self.limits:
            replacement = RunCgroup.create(self.group.setup, memory, processes)
            self.remove()
            self.group, self.limits = replacement, (memory, processes)
        return StepCgroup(self)

    def counter(self, path: str) -> int:
        """A descriptor of one of the group's files, opened once (a step reads about ten of
        them: one pread each instead of an open, a read and a close). Close-on-exec: no run
        gets one."""
        fd = self._counters.get(path)
        if fd is None:
            mode = os.O_RDWR if path.endswith("/memory.max_usage_in_bytes") else os.O_RDONLY   # (reset by a write)
            fd = self._counters[path] = os.open(path, mode | os.O_CLOEXEC)
        return fd

    def _close_counters(self) -> None:
        for fd in self._counters.values():
            os.close(fd)
        self._counters = {}

    def remove(self) -> None:
        self._close_counters()
        self.group.remove()
        reaper.untrack(self._token)
        self._token = None

    def _abort(self) -> None:
        """From a signal handler: empty and remove the group's folders (its descriptors are left)."""
        for folder in list(self.group.folders.values()):
            remove_group_folder(folder, timeout=0.5)


class StepCgroup(RunCgroup):
    """One run's share of a `KeptCgroup`: its own membership descriptors, and counts from
    `begin()` (the CPU time, the peak above the charge it started with, out-of-memory
    kills, refused forks). Its removal leaves the group to its keeper."""

    def __init__(self, kept: KeptCgroup) -> None:
        group = kept.group
        super().__init__(group.setup, dict(group.folders))
        self.kept = kept
        self._start = CgroupUsage(cpu_time=0.0, peak_memory=0, oom_kills=0, forks_refused=0)
        self._peak_fd: int | None = None
        try:
            if self.setup.version == "v2":
                self._peak_fd = os.open(f"{self._folder('memory')}/memory.peak", os.O_RDWR | os.O_CLOEXEC)
            self.procs_fds = [os.open(f"{folder}/cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
                              for folder in self.folders.values()]
        except OSError:
            self.remove()
            raise

    def begin(self) -> None:
        """Count from now: the peak reset to the charge the group holds, every counter read."""
        if self._peak_fd is None:
            os.pwrite(self.kept.counter(f"{self._folder('memory')}/memory.max_usage_in_bytes"), b"0", 0)
            charge = self._number("memory", "memory.usage_in_bytes")
            oom = self._keyed("memory", "memory.oom_control", "oom_kill")
        else:
            os.write(self._peak_fd, b"reset")          # (Linux 6.12+: for reads through this descriptor)
            charge = self._number("memory", "memory.current")
            oom = self._keyed("memory", "memory.events", "oom_kill")
        self._start = CgroupUsage(cpu_time=self._cpu_total(), peak_memory=charge, oom_kills=oom,
                                  forks_refused=self._keyed("pids", "pids.events", "max"))

    def _read(self, controller: str, name: str) -> str:
        try:
            return os.pread(self.kept.counter(f"{self._folder(controller)}/{name}"), 1 << 16, 0).decode()
        except OSError:
            return ""

    def cpu_time(self) -> float:
        return self._cpu_total() - self._start.cpu_time

    def usage(self) -> CgroupUsage:
        whole = super().usage()
        start = self._start
        return CgroupUsage(cpu_time=whole.cpu_time - start.cpu_time,
                           peak_memory=max(0, whole.peak_memory - start.peak_memory),
                           oom_kills=whole.oom_kills - start.oom_kills,
                           forks_refused=whole.forks_refused - start.forks_refused)

    def _peak(self) -> int:
        if self._peak_fd is None:
            return super()._peak()
        text = os.pread(self._peak_fd, 64, 0).strip()
        return int(text) if text.isdigit() else 0

    def remove(self) -> None:
        self.close_fds()
        if self._peak_fd is not None:
            os.close(self._peak_fd)
            self._peak_fd = None
        self.folders = {}


def _read_file(path: str) -> str:
    """A cgroup file's text ("" when it cannot be read): a few system calls, no file object."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return ""
    try:
        return os.read(fd, 1 << 16).decode()
    except OSError:
        return ""
    finally:
        os.close(fd)


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
