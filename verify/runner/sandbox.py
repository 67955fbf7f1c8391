"""Where a program runs: bubblewrap when present, rlimits + a new session always.

One Sandbox per run. It owns a private temporary folder (a copy of the entry's
folder, so that the program may write there without touching the submission),
builds the command line wrapping the program, and removes everything at the end.

Processes limit: RLIMIT_NPROC counts the processes of a *real uid*, and root is
exempt from it. So when verify runs as root the program runs as a fresh
unprivileged uid drawn at random for this run (no other process has it), which
makes RLIMIT_NPROC exact, and lets us kill every process of that uid at the end.
The rlimits and the uid switch are the last step before the program, done by
verify-init (init_helper.c, compiled once into the cache); without a C compiler,
by `prlimit` and `setpriv` (under bubblewrap) or subprocess's `user=`.
At the end every process of the run is killed, and waited for: under bubblewrap by
killing its PID namespace's init, otherwise by sweeping the run's uid.
"""
from __future__ import annotations

import json
import math
import os
import secrets
import select
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Sequence

from verify.runner.cgroup import RunCgroup, create_run_cgroup
from verify.runner.limits import FILE_SIZE_LIMIT, OPEN_FILES_LIMIT, Limits, prlimit_argv

# Read-only system folders visible in the sandbox (those that exist).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
UID_RANGE = (1 << 20, 1 << 30)   # far above any uid a system hands out
TMPFS_SIZE = 256 << 20           # /tmp, and the entry's folder, each a tmpfs of this size
CGROUP_SLACK = 64 << 20           # the memory cgroup's room above the memory rlimit (at least)
WORKDIR_MAX_FILES = 256          # beyond that (or WORKDIR_MAX_BYTES), the folder is copied instead
WORKDIR_MAX_BYTES = 64 << 20


@cache
def bwrap_path() -> str | None:
    """bubblewrap, unless VERIFY_SANDBOX=none, and only when it actually works here."""
    if os.environ.get("VERIFY_SANDBOX", "").lower() in ("none", "off", "0", "rlimits"):
        return None
    found = shutil.which("bwrap")
    if not found:
        return None
    import subprocess
    probe = subprocess.run([found, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net",
                            "--die-with-parent", "/bin/true"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return found if probe.returncode == 0 else None


@cache
def setpriv_path() -> str | None:
    return shutil.which("setpriv")


HELPER_SOURCE = Path(__file__).with_name("init_helper.c")


def helper_path() -> str | None:
    """verify-init (init_helper.c), compiled once into the cache; None without a C compiler
    (or with VERIFY_HELPER=none). It sets the rlimits, switches uid, waits for the program
    and reports its rusage."""
    environ = os.environ
    if environ.get("VERIFY_HELPER", "").lower() in ("none", "off", "0"):
        return None
    # keyed by what decides the cache folder (see cache_root): several calls per run
    where = (environ.get("VERIFY_CACHE"), environ.get("XDG_CACHE_HOME"), environ.get("HOME"))
    known = _helpers.get(where)
    if known is None or (known and not os.path.exists(known)):
        known = _helpers[where] = _build_helper() or ""
    return known or None


_helpers: dict[tuple[str | None, ...], str] = {}


def _build_helper() -> str | None:
    import hashlib
    import subprocess
    from verify.runner.build import cache_root
    from verify.runner.languages import find_program
    source = HELPER_SOURCE.read_bytes()
    folder = cache_root() / "init" / hashlib.sha256(source).hexdigest()[:16]
    binary = folder / "verify-init"
    if binary.exists():
        return str(binary)
    compiler = find_program(["cc", "gcc", "clang"])
    if compiler is None:
        return None
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
    try:
        built = subprocess.run([compiler, "-O2", "-o", str(staging / "verify-init"), str(HELPER_SOURCE)],
                               stdin=subprocess.DEVNULL, capture_output=True)
        if built.returncode != 0:
            return None
        os.chmod(staging, 0o755)
        try:
            os.rename(staging, folder)
        except OSError:
            if not binary.exists():
                return None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for parent in (folder, folder.parent, folder.parent.parent):
        os.chmod(parent, 0o755)
    return str(binary)


@cache
def _system_mounts() -> list[str]:
    """Read-only binds of the system folders; a folder that is a symlink on the host
    (merged /usr: /bin -> usr/bin) becomes the same symlink, which costs bwrap a lot
    less than a mount. Empty folders are left out."""
    mounts: list[str] = []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):
            mounts += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder) and any(os.scandir(folder)):
            mounts += ["--ro-bind", folder, folder]
    return mounts


def temp_root() -> str | None:
    """Where runs get their private folder: $VERIFY_TMPDIR, else /dev/shm (a tmpfs: creating
    and removing a folder per run there costs a fraction of what it costs on a disk),
    else the system's temporary folder."""
    chosen = os.environ.get("VERIFY_TMPDIR")
    if chosen:
        return chosen
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK):
        return "/dev/shm"
    return None


def running_as_root() -> bool:
    return os.geteuid() == 0


def isolation_name() -> str:
    from verify.runner.cgroup import memory_cgroup_parent
    cgroup = memory_cgroup_parent()
    return _isolation_name(bwrap_path(), helper_path(), cgroup[0] if cgroup else None,
                           running_as_root(), setpriv_path())


@cache
def _isolation_name(bwrap: str | None, helper: str | None, cgroup: str | None, root: bool,
                    setpriv: str | None) -> str:
    """(Named once per setting: every run reports it.)"""
    parts = ["bubblewrap"] if bwrap else []
    parts.append("rlimits")
    if helper and cgroup:
        parts.append(f"memory cgroup {cgroup}")
    parts.append("own uid" if root and (setpriv or not bwrap) else "same uid")
    parts.append("process group")
    return "+".join(parts)


def _under(path: Path | str, folder: Path | str) -> bool:
    """`path` is `folder` or inside it (string test: this runs several times per run)."""
    path, folder = str(path), str(folder).rstrip("/") or "/"
    return path == folder or path.startswith(folder + "/") or folder == "/"


def _is_system_path(path: Path | str) -> bool:
    return any(_under(path, d) for d in SYSTEM_DIRS)


@cache
def _parent_dirs(paths: tuple[str, ...]) -> list[str]:
    """bwrap arguments creating the parents of these mount points (the same few sets come
    back run after run: computed once each)."""
    parents = sorted({a for p in paths for a in _parents(p) if not _is_system_path(a)},
                     key=lambda d: d.count("/"))
    return [word for parent in parents for word in ("--perms", "0755", "--dir", parent)]


def _parents(path: str) -> list[str]:
    found = []
    while True:
        path = os.path.dirname(path)
        if path in ("/", ""):
            return found
        found.append(path)


@dataclass
class Sandbox:
    """A private place for one run. Use as a context manager; `wrap` gives the argv."""

    workdir: Path                                  # the entry's folder (copied, then shown at this path)
    readonly: Sequence[Path] = ()                  # more folders/files the program needs (artefacts, toolchains)
    writable_workdir: bool = True                  # False: compile sandboxes bind their build dir as is
    copy_workdir: bool = True
    uid: int | None = None                         # the run's own uid (None: keep ours)
    temp: Path | None = None
    visible_workdir: Path | None = None            # where the program sees its folder
    _path_map: dict[Path, Path] = field(default_factory=dict)
    report_fd: int | None = None                   # where verify-init writes the program's rusage
    _report_write: int | None = None
    _swept: bool = False
    _info_read: int | None = None                  # bwrap --info-fd: the PID namespace's init
    _info_write: int | None = None
    _bind_workdir_from: Path | None = None         # what bubblewrap shows at `workdir`
    cgroup: RunCgroup | None = None                # the run's memory cgroup, when the machine allows
    _workdir_layout: list[list[str]] | None = None # the folder rebuilt in a tmpfs (see _tmpfs_layout)
    _file_fds: list[int] = field(default_factory=list)
    wait_for_go: bool = False                      # built ahead of time: verify-init waits for go()
    _go_read: int | None = None
    _go_write: int | None = None

    def __enter__(self) -> "Sandbox":
        drop_uid = running_as_root() and bool(helper_path() or not bwrap_path() or setpriv_path())
        self.uid = secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0] if drop_uid else None
        try:
            self._prepare_workdir()
            if helper_path():
                self.report_fd, self._report_write = os.pipe()
                if self.wait_for_go:
                    self._go_read, self._go_write = os.pipe()
            if bwrap_path():
                self._info_read, self._info_write = os.pipe()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    # -- folders --------------------------------------------------------------------

    def _prepare_workdir(self) -> None:
        if self.copy_workdir and bwrap_path():
            self._workdir_layout = self._tmpfs_layout()
            if self._workdir_layout is not None:
                self.visible_workdir = self.workdir
                return                     # nothing of this run on the host's file systems
        self.temp = Path(tempfile.mkdtemp(prefix="verify-run-", dir=temp_root()))
        if self.copy_workdir:
            copy = self.temp / "work"
            shutil.copytree(self.workdir, copy, symlinks=True, copy_function=shutil.copy)
            if self.uid is not None:
                for root, dirs, files in os.walk(copy):
                    for name in (root, *(os.path.join(root, d) for d in dirs),
                                 *(os.path.join(root, f) for f in files)):
                        os.lchown(name, self.uid, self.uid)
            source_of_workdir = copy
        else:
            source_of_workdir = self.workdir
        if bwrap_path():
            self.visible_workdir = self.workdir
            self._bind_workdir_from = source_of_workdir
        else:
            self.visible_workdir = source_of_workdir
            self._path_map[self.workdir] = source_of_workdir
            if self.uid is not None:
                # Without a mount namespace the program sees real paths: artefacts
                # under our (private) home are copied where its uid can read them.
                from verify.runner.build import cache_root
                for index, path in enumerate(self.readonly):
                    if _under(path, cache_root()) and path.is_dir():
                        target = self.temp / f"ro{index}"
                        shutil.copytree(path, target, symlinks=True)
                        os.chmod(self.temp, 0o755)
                        self._path_map[path] = target
                os.chmod(self.temp, 0o755)
            private_tmp = self.temp / "tmp"
            private_tmp.mkdir(mode=0o700)
            if self.uid is not None:
                os.chown(private_tmp, self.uid, self.uid)

    def _tmpfs_layout(self) -> list[list[str]] | None:
        """Under bubblewrap the entry's folder is rebuilt inside a size-limited tmpfs of
        the sandbox (bwrap copies each file from a descriptor): writable, bounded, and
        gone with the namespace, with nothing to copy or remove on the host. None when
        the folder is too big for that (then it is copied to the run's temp folder)."""
        layout: list[list[str]] = []
        total = 0
        for root, dirs, files in os.walk(self.workdir):
            dirs.sort()
            for name in dirs:
                path = os.path.join(root, name)
                if os.path.islink(path):
                    layout.append(["--symlink", os.readlink(path), path])
                    dirs.remove(name)
                else:
                    layout.append(["--perms", "0777", "--dir", path])
            for name in sorted(files):
                path = os.path.join(root, name)
                if os.path.islink(path):
                    layout.append(["--symlink", os.readlink(path), path])
                    continue
                if len(self._file_fds) >= WORKDIR_MAX_FILES:
                    return self._drop_layout()
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                except OSError:
                    continue                       # unreadable: the program cannot see it either
                self._file_fds.append(fd)
                size = os.fstat(fd).st_size
                total += size
                if total > WORKDIR_MAX_BYTES:
                    return self._drop_layout()
                mode = "0777" if os.access(path, os.X_OK) else "0666"
                layout.append(["--perms", mode, "--file", str(fd), path])
        return layout

    def _drop_layout(self) -> None:
        for fd in self._file_fds:
            os.close(fd)
        self._file_fds = []
        return None

    def path(self, path: Path) -> Path:
        """Where the program sees `path` (the same path under bubblewrap)."""
        for original, mapped in self._path_map.items():
            if _under(path, original):
                return mapped / path.relative_to(original)
        return path

    # -- command line ---------------------------------------------------------------

    def wrap(self, argv: Sequence[str], limits: Limits, memory_kind: str = "data", memory_extra: int = 0,
             processes: int | None = None) -> list[str]:
        """The full command line: rlimits, uid switch and (when present) bubblewrap around `argv`.

        With verify-init, it sets the rlimits and switches uid itself, as the last step
        before the program; without it, `prlimit` (outside bubblewrap) and `setpriv`
        (inside) or subprocess's `user=` (no bubblewrap) do it."""
        helper = helper_path() if self._report_write is not None else None
        if helper:
            prefix: list[str] = []
            # The cgroup is the backstop above the rlimit: at the same size, the kernel would
            # thrash reclaiming page cache before the program ever saw its MemoryError.
            self.cgroup = create_run_cgroup(limits.memory + memory_extra + max(CGROUP_SLACK, limits.memory // 4))
            go = ["--go", str(self._go_read)] if self._go_read is not None else []
            inner = [helper, *go, str(self._report_write), str(-1 if self.uid is None else self.uid),
                     str(-1 if processes is None else processes), str(max(1, math.ceil(limits.cpu_time))),
                     memory_kind, str(limits.memory + memory_extra), str(FILE_SIZE_LIMIT),
                     str(OPEN_FILES_LIMIT), str(self.cgroup.procs_fd if self.cgroup else -1), "--"]
        else:
            prefix = prlimit_argv(limits, memory_kind, processes, memory_extra)
            inner = []
            if bwrap_path() and self.uid is not None:
                inner = [setpriv_path(), f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                         "--no-new-privs", "--"]
        bwrap = bwrap_path()
        if not bwrap:
            return [*prefix, *inner, *argv]
        command = [bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                   "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if self._info_write is not None:
            command += ["--info-fd", str(self._info_write)]
        if helper:
            # verify-init is the namespace's init itself (it reaps and kills like bwrap's
            # own init would, and its exit kills the namespace): one process fewer per run.
            command.append("--as-pid-1")
        if not running_as_root():
            command.append("--unshare-user")
        command += _system_mounts()
        command += ["--proc", "/proc", "--dev", "/dev",
                    "--perms", "1777", "--size", str(TMPFS_SIZE), "--tmpfs", "/tmp"]
        mounts = [p for p in self.readonly if not _is_system_path(p) and p.exists()]
        if helper:
            mounts.append(Path(helper).parent)
        # bubblewrap would create the parents of a mount point with the host's modes
        # (/root is 0700): create them world-traversable first, or the program's uid
        # could not reach its interpreter or artefact.
        command += _parent_dirs(tuple(str(p) for p in (*mounts, self.workdir)))
        for path in mounts:
            command += ["--ro-bind", str(path), str(path)]
        bind = "--bind" if self.writable_workdir else "--ro-bind"
        if self._workdir_layout is not None:
            command += ["--perms", "1777", "--size", str(TMPFS_SIZE), "--tmpfs", str(self.workdir)]
            for step in self._workdir_layout:
                command += step
        else:
            command += [bind, str(self._bind_workdir_from), str(self.workdir)]
        command += ["--chdir", str(self.workdir), "--"]
        return [*prefix, *command, *inner, *argv]

    @property
    def pass_fds(self) -> tuple[int, ...]:
        cgroup_fd = self.cgroup.procs_fd if self.cgroup else None
        return tuple(fd for fd in (self._report_write, self._info_write, cgroup_fd, self._go_read,
                                   *self._file_fds) if fd is not None)

    def spawned(self) -> None:
        """Call once the process is started: the parent keeps only the read ends."""
        for fd in self.pass_fds:
            os.close(fd)
        self._report_write = self._info_write = self._go_read = None
        self._file_fds = []
        if self.cgroup:
            self.cgroup.procs_fd = None

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

    def read_report(self) -> tuple[float, int, int] | None:
        """(cpu seconds, peak RSS bytes, wait status) of the program, as verify-init saw them."""
        if self.report_fd is None:
            return None
        os.set_blocking(self.report_fd, False)
        try:
            words = os.read(self.report_fd, 256).split()
        except BlockingIOError:
            return None
        if len(words) != 4:
            return None
        user, system, rss, status = (int(w) for w in words)
        return (user + system) / 1e6, rss * 1024, status

    def popen_user(self) -> int | None:
        """The uid subprocess must switch to itself (only without bubblewrap and verify-init)."""
        return self.uid if (self.uid is not None and not bwrap_path() and self.report_fd is None) else None

    def environment(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {"PATH": SANDBOX_PATH, "HOME": "/tmp" if bwrap_path() else str(self.visible_workdir),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp" if bwrap_path() else str(self.temp / "tmp")}
        env.update(extra or {})
        return env

    # -- the end --------------------------------------------------------------------

    def kill_leftovers(self) -> None:
        """Make sure no process of the run survives, and wait until they are all dead.

        Under bubblewrap: kill the PID namespace's init (bwrap tells its pid through
        --info-fd); the kernel kills every process of the namespace and the init only
        becomes a zombie once they are all gone. Without bubblewrap: kill every process
        of the run's own uid, including any that left the process group with setsid."""
        if self._swept:
            return
        self._swept = True
        init = self._namespace_init()
        if init is not None:
            _kill_and_wait([init])
        elif self.uid is not None:
            deadline = time.monotonic() + 5.0
            while time.monotonic() < deadline:  # a forking process may spawn while we sweep
                pids = processes_of_uid(self.uid)
                if not pids:
                    return
                _kill_and_wait(pids)

    def _namespace_init(self) -> tuple[int, bytes] | None:
        if self._info_read is None:
            return None
        os.set_blocking(self._info_read, False)
        try:
            info = json.loads(os.read(self._info_read, 4096) or b"null")
        except (BlockingIOError, ValueError):
            return None
        pid = info.get("child-pid") if isinstance(info, dict) else None
        return (pid, b"") if isinstance(pid, int) else None

    def cleanup(self) -> None:
        self.kill_leftovers()
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        for fd in (self.report_fd, self._report_write, self._info_read, self._info_write,
                   self._go_read, self._go_write, *self._file_fds):
            if fd is not None:
                os.close(fd)
        self._file_fds = []
        self.report_fd = self._report_write = self._info_read = self._info_write = None
        self._go_read = self._go_write = None
        if self.temp is not None:
            shutil.rmtree(self.temp, ignore_errors=True)
            self.temp = None


def _state(pid: int) -> str | None:
    """The process's state letter ("R", "S", "Z"...), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def _kill_and_wait(targets, timeout: float = 5.0) -> None:
    """SIGKILL each (pid, _) or pid, then wait until each is gone or a zombie."""
    pids = [t[0] if isinstance(t, tuple) else t for t in targets]
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
