"""Where one program runs: its private folder, its command line, and its end.

One Sandbox per run (and per build). The isolation it applies is the `Isolation` it is
given (mode.py; isolation.py resolves one): bubblewrap when in force, and what
the machine allows of a cgroup per run, seccomp, Landlock and a fresh uid. It reads
nothing else of the environment.

- A private copy of the entry's folder: under bubblewrap rebuilt inside a size-bounded
  tmpfs of the sandbox (nothing on the host), else copied into a `verify-run-*`
  folder (in the isolation's `temp_root`) removed at the end (and by the next verify
  if this one is killed).
- As root, the program runs as a fresh unprivileged uid drawn at random for this run.
- verify-init (init_helper.c) is the last step before the program: it joins the run's
  cgroup, sets the rlimits, switches uid, confines the program with Landlock and (without
  bubblewrap) seccomp, supervises it and kills what it leaves behind.
- The end: under bubblewrap, its PID namespace's init is killed (the kernel then kills
  the rest). Without it, verify-init, the run's subreaper, is asked to end the run
  (`stop`): it kills the program's group and every orphan that came back to it, reports
  and exits; only if it has not within STOP_GRACE is its whole tree killed from here.
  Then every process of the run still there is killed and waited for: the cgroup's
  members, the run's uid.
"""
from __future__ import annotations

import json
import math
import os
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from verify.runner import reaper
from verify.runner.backends import (
    Backend,
    backend_for,
    running_as_root,
    under,
)
from verify.runner.cgroup import RunCgroup, create_run_cgroup, remove_group_folder
from verify.runner.limits import FILE_SIZE_LIMIT, OPEN_FILES_LIMIT, Limits, prlimit_argv
from verify.runner.machine import RUN_UIDS
from verify.runner.mode import Isolation
from verify.runner.proctree import descendants

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
UID_RANGE = RUN_UIDS             # (a fork server's steps draw their uids here)
NPROC_SLACK = 8                  # RLIMIT_NPROC above pids.max (which counts verify-init too):
                                 # the cgroup must refuse first
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full")
TMP_PLACEHOLDER = "{tmp}"        # in a language's environment: the run's own temporary folder
STOP_SIGNAL = signal.SIGUSR2     # verify-init: end the run now
STOP_GRACE = 5.0                 # seconds verify-init gets for that before its tree is killed from here


class RunProcess(Protocol):
    """A run's main process as verify drives it: one verify started (`subprocess.Popen`), or a
    fork server's step made by its step maker (handed.py)."""

    @property
    def pid(self) -> int: ...

    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None
    returncode: Any

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


@dataclass(frozen=True)
class Report:
    """What verify-init saw of the program."""

    cpu_time: float              # seconds, the program and every descendant it reaped
    peak_memory: int             # bytes, the largest resident set
    status: int                  # the program's wait status
    started: bool                # False: the run's set-up failed before the exec (the judge's failure)
    refused: int                 # requests for memory the kernel refused at the rlimit; -1: not watched


def remove_stale_runs(isolation: Isolation) -> None:
    """Folders and cgroups left by a verify that was killed (once per place and process)."""
    reaper.remove_stale_once([isolation.temp_root],
                             isolation.cgroups.parent_folders if isolation.cgroups is not None else [])


@dataclass
class Sandbox:
    """A private place for one run. Use as a context manager; `wrap` gives the argv."""

    workdir: Path                                  # the entry's folder (copied, then shown at this path)
    readonly: Sequence[Path] = ()                  # more folders/files the program needs (artefacts, toolchains)
    artefacts: Sequence[Path] = ()                 # those of `readonly` in verify's private compile cache
    copy_workdir: bool = True                      # False: a build binds its (private) build folder as is
    wait_for_go: bool = False                      # built ahead of time: verify-init waits for go()
    uid: int | None = None                         # the run's own uid (None: keep ours)
    temp: Path | None = None
    visible_workdir: Path | None = None            # where the program sees its folder
    cgroup: RunCgroup | None = None                # the run's cgroup, when the machine allows
    report_fd: int | None = None                   # where verify-init writes the program's end
    _path_map: dict[Path, Path] = field(default_factory=dict)
    _report_write: int | None = None
    _swept: bool = False
    _info_read: int | None = None                  # bwrap --info-fd: the PID namespace's init
    _init_pid: int | None = None                   # (its pid, once read from there)
    _info_write: int | None = None
    _bind_workdir_from: Path | None = None         # what bubblewrap shows at `workdir`
    _workdir_layout: list[list[str]] | None = None  # the folder rebuilt in a tmpfs (see _tmpfs_layout)
    _file_fds: list[int] = field(default_factory=list)
    _seccomp_fd: int | None = None
    _go_read: int | None = None
    _go_write: int | None = None
    _token: int | None = None
    _stop_requested: bool = False
    _report: Report | None = None                  # verify-init's report, once read
    isolation: Isolation = field(kw_only=True)    # how the run is isolated (isolation.py resolves one)
    backend: Backend = field(init=False)          # the isolation's mode: bubblewrap, none (backends.py)

    def __post_init__(self) -> None:
        self.backend = backend_for(self.isolation)

    def __enter__(self) -> Sandbox:
        isolation = self.isolation
        remove_stale_runs(isolation)
        drop_uid = isolation.own_uid and self.backend.can_switch_uid(isolation)
        low, high = isolation.uid_range
        self.uid = secrets.randbelow(high - low) + low if drop_uid else None
        self._token = reaper.track(self.abort)
        try:
            self._prepare_workdir()
            if isolation.helper:
                self.report_fd, self._report_write = os.pipe()
                if self.wait_for_go:
                    self._go_read, self._go_write = os.pipe()
            if self.backend.namespaced:
                self._info_read, self._info_write = os.pipe()      # bwrap --info-fd: its init's pid
            if isolation.seccomp is not None and (self.backend.namespaced or isolation.helper):
                self._seccomp_fd = os.open(isolation.seccomp, os.O_RDONLY | os.O_CLOEXEC)
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    # -- folders --------------------------------------------------------------------

    def _prepare_workdir(self) -> None:
        self.backend.prepare_workdir(self)

    def _copy_to_temp(self) -> Path:
        """The run's temporary folder on the host, with a copy of the entry's folder (its
        uid's) when the run works in a copy; where the program's folder comes from."""
        self.temp = Path(tempfile.mkdtemp(prefix=reaper.run_folder_prefix(), dir=self.isolation.temp_root))
        if not self.copy_workdir:
            return self.workdir
        copy = self.temp / "work"
        shutil.copytree(self.workdir, copy, symlinks=True, copy_function=shutil.copy)
        if self.uid is not None:
            for root, dirs, files in os.walk(copy):
                for name in (root, *(os.path.join(root, d) for d in dirs),
                             *(os.path.join(root, f) for f in files)):
                    os.lchown(name, self.uid, self.uid)
        return copy

    def path(self, path: Path) -> Path:
        """Where the program sees `path` (the same path under bubblewrap)."""
        for original, mapped in self._path_map.items():
            if under(path, original):
                return mapped / path.relative_to(original)
        return path

    # -- command line ---------------------------------------------------------------

    def wrap(self, argv: Sequence[str], limits: Limits, memory_kind: str = "data", memory_extra: int = 0,
             processes: int | None = None) -> list[str]:
        """The full command line: verify-init (or prlimit/setpriv) and bubblewrap around `argv`.

        `processes`: the process limit of the run (default: limits.processes)."""
        isolation = self.isolation
        processes = limits.processes if processes is None else processes
        helper = isolation.helper if self._report_write is not None else None
        if helper:
            prefix: list[str] = []
            self.cgroup = (create_run_cgroup(isolation.cgroups, limits.memory, processes + 1)
                           if isolation.cgroups is not None else None)
            inner = [helper, *self._helper_options(limits, memory_kind, memory_extra, processes), "--"]
        else:
            nproc = processes + 1 if self.uid is not None else (
                None if running_as_root() else _processes_of_current_user() + processes)
            prefix = prlimit_argv(limits, memory_kind, nproc, memory_extra)
            inner = []
            if self.backend.namespaced and self.uid is not None:
                inner = [isolation.setpriv or "setpriv", f"--reuid={self.uid}", f"--regid={self.uid}",
                         "--clear-groups", "--no-new-privs", "--"]
        return [*prefix, *self.backend.command(self, helper), *inner, *argv]

    def _helper_options(self, limits: Limits, memory_kind: str, memory_extra: int, processes: int) -> list[str]:
        isolation = self.isolation
        options = ["--report", str(self._report_write), "--cpu", str(max(1, math.ceil(limits.cpu_time))),
                   "--fsize", str(FILE_SIZE_LIMIT), "--nofile", str(OPEN_FILES_LIMIT)]
        if self._go_read is not None:
            options = ["--go", str(self._go_read), *options]
        if self.cgroup is not None:
            for fd in self.cgroup.procs_fds:
                options += ["--cgroup", str(fd)]
            nproc = processes + NPROC_SLACK               # the cgroup counts and refuses
        else:
            options += ["--memory", f"{memory_kind}:{limits.memory + memory_extra}"]
            nproc = processes
        if self.uid is not None:
            options += ["--uid", str(self.uid), "--nproc", str(nproc)]
        elif not running_as_root() and self.cgroup is None:
            # (with a cgroup, pids.max counts and refuses: a per-uid rlimit would also count
            # the judge's other processes, and refuse first, uncounted)
            options += ["--nproc", str(_processes_of_current_user() + processes)]
        options += self.backend.supervisor_options(self)
        if isolation.uses_landlock:
            options += ["--landlock", str(isolation.landlock_abi)]
            for folder in self._writable_folders():
                options += ["--writable", folder]
            for folder in self.backend.readable_folders(self):
                options += ["--readable", folder]
            for device in WRITABLE_DEVICES:
                options += ["--writable-file", device]
        return options

    @property
    def ends_by_request(self) -> bool:
        """verify-init is the process verify started (no bubblewrap around it): asked, it ends the run."""
        return self.backend.ends_by_request(self.isolation)

    @property
    def expects_report(self) -> bool:
        """verify-init reports this run's end (no report: its set-up failed)."""
        return self.report_fd is not None

    def _writable_folders(self) -> list[str]:
        """Where the program may write: its folder (the private copy), its temporary
        folders. Everything else is read-only to it, whatever the file modes say."""
        return self.backend.writable_folders(self)

    @property
    def pass_fds(self) -> tuple[int, ...]:
        cgroup_fds = self.cgroup.procs_fds if self.cgroup else []
        return tuple(fd for fd in (self._report_write, self._info_write, *cgroup_fds, self._go_read,
                                   self._seccomp_fd, *self._file_fds) if fd is not None)

    def spawned(self) -> None:
        """Call once the process is started: the parent keeps only the read ends."""
        for fd in self.pass_fds:
            os.close(fd)
        self._report_write = self._info_write = self._go_read = self._seccomp_fd = None
        self._file_fds = []
        if self.cgroup:
            self.cgroup.procs_fds = []

    def go(self) -> bool:
        """Let a sandbox built ahead of time start its program (False: it is gone)."""
        if self._go_write is None:
            return False
        try:
            return os.write(self._go_write, b"g") == 1
        except OSError:
            return False
        finally:
            os.close(self._go_write)
            self._go_write = None

    def close_go(self) -> None:
        """Never let a sandbox built ahead of time start: verify-init exits (125) without
        running anything."""
        if self._go_write is not None:
            os.close(self._go_write)
            self._go_write = None

    @property
    def ends_at_report(self) -> bool:
        """Whether the run is over once verify-init has reported, before it and the processes
        around it have exited (a fork server's step: its verify-init is the PID namespace's
        init, which reports only after every process of the step is dead)."""
        return False

    def read_report(self) -> Report | None:
        """What verify-init saw of the program; None when it wrote nothing (yet)."""
        if self._report is not None:
            return self._report
        if self.report_fd is None:
            return None
        os.set_blocking(self.report_fd, False)
        try:
            words = os.read(self.report_fd, 256).split()
        except BlockingIOError:
            return None
        if len(words) != 6:
            return None
        user, system, rss, status, started, refused = (int(w) for w in words)
        self._report = Report((user + system) / 1e6, rss * 1024, status, started == 1, refused)
        return self._report

    def launch(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> RunProcess:
        """Start the command line `argv` (from `wrap`) with the sandbox's environment plus `env`:
        its stdin, stdout and stderr are pipes, it leads a new session."""
        return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=str(self.visible_workdir), env=self.environment(env),
                                start_new_session=True, user=self.popen_user(), close_fds=True,
                                pass_fds=self.pass_fds)

    def popen_user(self) -> int | None:
        """The uid subprocess must switch to itself (only without bubblewrap and verify-init)."""
        return self.backend.popen_user(self)

    def private_tmp(self) -> str:
        """The run's own temporary folder, as the program sees it (its TMPDIR)."""
        return self.backend.private_tmp(self)

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The program's whole environment: fixed (nothing of verify's own), plus the language's
        (`extra`), where "{tmp}" in a value is the run's own temporary folder."""
        tmp = self.private_tmp()
        env = {"PATH": SANDBOX_PATH, "HOME": self.backend.home(self),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": tmp}
        env.update({name: value.replace(TMP_PLACEHOLDER, tmp) for name, value in (extra or {}).items()})
        return env

    # -- the end --------------------------------------------------------------------

    def stop(self, pid: int, pidfd: int) -> None:
        """End the run now (at a limit, or its consumer is done). `pid`, `pidfd`: the process
        verify started (verify-init, or bubblewrap around it), not yet waited for."""
        if self._stop_requested:
            return
        if not self.ends_by_request:
            if not self._ask_namespace_init(pid):
                kill_group(pid)    # bubblewrap: its namespace's init dies, and with it the run
            return
        self._stop_requested = True
        try:
            signal.pidfd_send_signal(pidfd, STOP_SIGNAL)
        except OSError:            # (ProcessLookupError included) it has ended
            pass

    def _ask_namespace_init(self, bwrap_pid: int) -> bool:
        """Under bubblewrap with verify-init as the namespace's init: ask it to end the run
        (it then reports the program's end and the CPU time of all it reaped, which a kill
        from here would lose). False when it cannot be asked."""
        init = self._namespace_init() if self.isolation.helper and self.report_fd is not None else None
        if init is None:
            return False
        try:
            initfd = os.pidfd_open(init)
        except OSError:
            return False
        try:
            # the pidfd pins the process: it is bubblewrap's child, not a pid reused since
            with open(f"/proc/{init}/stat", "rb") as status:
                if int(status.read().rsplit(b")", 1)[1].split()[1]) != bwrap_pid:
                    return False
            signal.pidfd_send_signal(initfd, STOP_SIGNAL)
        except (OSError, ValueError, IndexError):
            return False
        finally:
            os.close(initfd)
        self._stop_requested = True
        return True

    def end(self, process: RunProcess) -> None:
        """End the run whose process verify started (`process`, not yet waited for) and let
        it end (the caller then waits for it)."""
        if process.returncode is None:
            try:
                pidfd = os.pidfd_open(process.pid)
            except OSError:
                pidfd = None
            if pidfd is not None:
                try:
                    self.stop(process.pid, pidfd)
                    self.await_end(process.pid, pidfd)
                finally:
                    os.close(pidfd)
        if not self.ends_by_request:
            kill_group(process.pid)

    def await_end(self, pid: int, pidfd: int) -> None:
        """Give verify-init, once asked to end the run, STOP_GRACE seconds to do it; past
        that (a last resort) its whole tree is killed from here, verify-init last, so that
        every orphan still comes back to it meanwhile and is found."""
        if not self.ends_by_request:
            if self._stop_requested and not select.select([pidfd], [], [], STOP_GRACE)[0]:
                kill_group(pid)    # verify-init did not end the run in time: its namespace dies
            return
        if select.select([pidfd], [], [], STOP_GRACE if self._stop_requested else 0)[0]:
            return
        _kill_tree(pid)
        try:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        except OSError:
            pass

    def kill_leftovers(self) -> None:
        """Make sure no process of the run survives, and wait until they are all dead:
        the PID namespace's init (its death takes the namespace), the cgroup's members,
        every process of the run's uid."""
        if self._swept:
            return
        self._swept = True
        init = self._namespace_init()
        if init is not None:
            _kill_and_wait([init])
        if self.cgroup is not None:
            self.cgroup.kill_all()
        elif self.uid is not None and init is None:
            _sweep_uid(self.uid, timeout=5.0)

    def bwrap_argv(self, init: str) -> list[str]:
        """bubblewrap's command line for this sandbox with `init` (whose folder it shows)
        as its PID 1, up to and with the "--" before the command (a fork server's sandbox)."""
        assert self.backend.namespaced
        return self.backend.command(self, init)

    def namespace_init(self) -> int | None:
        """The pid (as verify sees it) of the sandbox's PID 1, once bubblewrap has said it."""
        return self._namespace_init()

    def _namespace_init(self) -> int | None:
        if self._info_read is None:
            return None
        os.set_blocking(self._info_read, False)
        try:
            info = json.loads(os.read(self._info_read, 4096) or b"null")
        except (BlockingIOError, ValueError, OSError):
            return None
        pid = info.get("child-pid") if isinstance(info, dict) else None
        if isinstance(pid, int):
            self._init_pid = pid
        return self._init_pid

    def abort(self) -> None:
        """From a signal handler while another thread may be driving the run: kill every
        process of it and remove its folder, without closing descriptors (the driving
        thread, or a Popen it is in, may hold their numbers; cgroup.remove() closes the
        cgroup's) and without trusting _swept (the driving thread may have set it before
        killing anything)."""
        init = self._init_pid
        if init is None and self._info_read is not None and not self._swept:
            try:
                init = self._namespace_init()
            except OSError:                         # closed meanwhile by the driving thread
                init = None
        if init is not None:
            _kill_and_wait([init], timeout=1.0)
        cgroup = self.cgroup
        if cgroup is not None:
            cgroup.kill_all(timeout=1.0)
            for folder in list(cgroup.folders.values()):
                remove_group_folder(folder, timeout=0.5)    # (an open cgroup.procs does not stop rmdir)
        if self.uid is not None:
            _sweep_uid(self.uid, timeout=1.0)
        temp = self.temp
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)

    def cleanup(self) -> None:
        self.kill_leftovers()
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        for fd in (self.report_fd, self._report_write, self._info_read, self._info_write,
                   self._go_read, self._go_write, self._seccomp_fd, *self._file_fds):
            if fd is not None:
                os.close(fd)
        self._file_fds = []
        self.report_fd = self._report_write = self._info_read = self._info_write = None
        self._go_read = self._go_write = self._seccomp_fd = None
        if self.temp is not None:
            shutil.rmtree(self.temp, ignore_errors=True)
            self.temp = None
        if self._token is not None:
            reaper.untrack(self._token)
            self._token = None


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by `pid`."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_tree(pid: int, timeout: float = 5.0) -> None:
    """SIGKILL every descendant of `pid` (a subreaper) until none is left."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        living = [child for child in descendants(pid) if _state(child) not in (None, "Z", "X")]
        if not living:
            return
        for child in living:
            try:
                os.kill(child, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.001)


def _processes_of_current_user() -> int:
    uid = os.getuid()
    count = 0
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                count += 1
        except FileNotFoundError:
            pass
    return count


def _state(pid: int) -> str | None:
    """The process's state letter ("R", "S", "Z"...), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def _kill_and_wait(pids: list[int], timeout: float = 5.0) -> None:
    """SIGKILL each pid, then wait until each is gone or a zombie."""
    if len(pids) == 1:
        # One process (the namespace's init): a pidfd turns readable exactly when it has
        # exited, so there is no polling delay.
        try:
            pidfd = os.pidfd_open(pids[0])
        except (ProcessLookupError, OSError):
            return
        try:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            select.select([pidfd], [], [], timeout)
        except (ProcessLookupError, OSError):
            pass
        finally:
            os.close(pidfd)
        return
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + timeout
    pause = 0.0005
    while pids and time.monotonic() < deadline:
        pids = [pid for pid in pids if _state(pid) not in (None, "Z", "X")]
        if pids:
            time.sleep(pause)
            pause = min(pause * 2, 0.02)


def _sweep_uid(uid: int, timeout: float) -> None:
    """Kill every process of `uid` until none is left (a forking one may spawn meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = processes_of_uid(uid)
        if not pids:
            return
        _kill_and_wait(pids, timeout=max(0.01, deadline - time.monotonic()))


def processes_of_uid(uid: int) -> list[int]:
    """Living (not zombie) processes whose uid is `uid`."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid and _state(int(entry.name)) not in (None, "Z", "X"):
                found.append(int(entry.name))
        except FileNotFoundError:
            continue
    return found
