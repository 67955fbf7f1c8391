"""One class per isolation mode: how a run is placed and launched around verify-init.

A backend decides what differs between modes: where the program's folder and temporary
folder are (and what it sees of them), the launch plan (the command line around
verify-init, or around prlimit/setpriv without it), what verify-init must add for that
mode, and how the run is ended. The hardening itself (the cgroup join, rlimits, the uid
switch, Landlock, seccomp, the subreaper) is composed once, by the Sandbox, as
verify-init's options. A new mode is one new class here, named in `BACKENDS`.

A backend keeps no state: it reads and fills the Sandbox it is given (`Box`).
"""
from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import ClassVar, Protocol

from verify.runner.mode import LANDLOCK_SIGNAL_SCOPE, Isolation

# Read-only system folders visible in the sandbox (those that exist).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
# the devices of bubblewrap's --dev (its /dev/shm aside: the run's own)
SANDBOX_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
                   "/dev/pts", "/dev/ptmx")
TMPFS_SIZE = 256 << 20           # /tmp, /dev/shm and the entry's folder: each a tmpfs of this size
WORKDIR_MAX_FILES = 256          # beyond that (or WORKDIR_MAX_BYTES), the folder is copied instead
WORKDIR_MAX_BYTES = 64 << 20


class Box(Protocol):
    """What a backend reads and fills of one run's Sandbox."""

    workdir: Path
    readonly: Sequence[Path]
    artefacts: Sequence[Path]
    copy_workdir: bool
    isolation: Isolation
    uid: int | None
    temp: Path | None
    visible_workdir: Path | None
    report_fd: int | None
    _path_map: dict[Path, Path]
    _info_write: int | None
    _bind_workdir_from: Path | None
    _workdir_layout: list[list[str]] | None
    _file_fds: list[int]
    _seccomp_fd: int | None

    def _copy_to_temp(self) -> Path: ...

    def path(self, path: Path) -> Path: ...


def under(path: Path | str, folder: Path | str) -> bool:
    """`path` is `folder` or inside it (string test: this runs several times per run)."""
    path, folder = str(path), str(folder).rstrip("/") or "/"
    return path == folder or path.startswith(folder + "/") or folder == "/"


def is_system_path(path: Path | str) -> bool:
    return any(under(path, d) for d in SYSTEM_DIRS)


def running_as_root() -> bool:
    return os.geteuid() == 0


class Backend:
    """The mode-dependent half of a Sandbox (see the module's docstring)."""

    name: ClassVar[str]
    namespaced: ClassVar[bool]        # the run has its own PID namespace: killing its init ends it

    def can_switch_uid(self, isolation: Isolation) -> bool:
        """Whether a run can get its own uid here (verify is root)."""
        raise NotImplementedError

    def prepare_workdir(self, box: Box) -> None:
        """Make the program's folder and temporary folder; set `box.visible_workdir`."""
        raise NotImplementedError

    def command(self, box: Box, helper: str | None) -> list[str]:
        """The launch plan's outer part, up to the supervisor (verify-init or setpriv)."""
        raise NotImplementedError

    def supervisor_options(self, box: Box) -> list[str]:
        """What verify-init must add in this mode."""
        raise NotImplementedError

    def writable_folders(self, box: Box) -> list[str]:
        """Where the program may write (Landlock): its folder and its temporary folders."""
        raise NotImplementedError

    def readable_folders(self, box: Box) -> list[str]:
        """Beyond the writable ones, where the program may read and execute (Landlock);
        [] leaves reads unrestricted by Landlock (a mount namespace shows only these)."""
        return []

    def private_tmp(self, box: Box) -> str:
        """The program's own temporary folder, as it sees it."""
        raise NotImplementedError

    def home(self, box: Box) -> str:
        raise NotImplementedError

    def ends_by_request(self, isolation: Isolation) -> bool:
        """verify-init is the process verify started, and ends the run when asked."""
        raise NotImplementedError

    def popen_user(self, box: Box) -> int | None:
        """The uid the process verify starts must switch to itself (none of verify-init, setpriv)."""
        return None


class Bubblewrap(Backend):
    """bubblewrap: own mount, PID, network, IPC and UTS namespaces; nothing of the host
    visible but the system folders, the program's tools and its folder."""

    name = "bubblewrap"
    namespaced = True

    def can_switch_uid(self, isolation: Isolation) -> bool:
        return bool(isolation.helper or isolation.setpriv)

    def prepare_workdir(self, box: Box) -> None:
        box.visible_workdir = box.workdir
        if box.copy_workdir:
            box._workdir_layout = _tmpfs_layout(box)
            if box._workdir_layout is not None:
                return                     # nothing of this run on the host's file systems
        box._bind_workdir_from = box._copy_to_temp()

    def command(self, box: Box, helper: str | None) -> list[str]:
        isolation = box.isolation
        assert isolation.bwrap is not None
        command = [isolation.bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                   "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if box.uid is not None:
            # only what verify-init needs to start the program as the run's uid and to kill
            # what it leaves; the program itself starts with none (the uid switch clears them)
            command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_KILL"]
        if box._info_write is not None:
            command += ["--info-fd", str(box._info_write)]
        if box._seccomp_fd is not None:
            command += ["--seccomp", str(box._seccomp_fd)]
        if helper:
            # verify-init is the namespace's init itself (it reaps and kills like bwrap's
            # own init would, and its exit kills the namespace): one process fewer per run.
            command.append("--as-pid-1")
        if not running_as_root():
            command.append("--unshare-user")
        command += _system_mounts()
        command += ["--proc", "/proc", "--dev", "/dev",
                    "--perms", "1777", "--size", str(TMPFS_SIZE), "--tmpfs", "/tmp",
                    "--perms", "1777", "--size", str(TMPFS_SIZE), "--tmpfs", "/dev/shm"]
        mounts = [p for p in box.readonly if not is_system_path(p) and p.exists()]
        if helper:
            mounts.append(Path(helper).parent)
        # bubblewrap would create the parents of a mount point with the host's modes
        # (/root is 0700): create them world-traversable first, or the program's uid
        # could not reach its interpreter or artefact.
        command += _parent_dirs(tuple(str(p) for p in (*mounts, box.workdir)))
        for path in mounts:
            command += ["--ro-bind", str(path), str(path)]
        if box._workdir_layout is not None:
            command += ["--perms", "1777", "--size", str(TMPFS_SIZE), "--tmpfs", str(box.workdir)]
            for step in box._workdir_layout:
                command += step
        else:
            command += ["--bind", str(box._bind_workdir_from), str(box.workdir)]
        command += ["--chdir", str(box.workdir), "--"]
        return command

    def supervisor_options(self, box: Box) -> list[str]:
        return []

    def writable_folders(self, box: Box) -> list[str]:
        return [str(box.visible_workdir), "/tmp", "/dev/shm"]     # the last two: this run's own tmpfs

    def private_tmp(self, box: Box) -> str:
        return "/tmp"

    def home(self, box: Box) -> str:
        return "/tmp"

    def ends_by_request(self, isolation: Isolation) -> bool:
        return False


class NoSandbox(Backend):
    """No namespaces of bubblewrap: the program sees the host's files (read-only to it,
    with Landlock), works in a copy of its folder, and is supervised by verify-init (as
    root also in its own mount and IPC namespaces with a private /tmp and /dev/shm)."""

    name = "no sandbox"
    namespaced = False

    def can_switch_uid(self, isolation: Isolation) -> bool:
        return True

    def prepare_workdir(self, box: Box) -> None:
        source = box._copy_to_temp()
        temp = box.temp
        assert temp is not None
        box.visible_workdir = source
        box._path_map[box.workdir] = source
        if box.uid is not None:
            # Without a mount namespace the program sees real paths: artefacts
            # in our (private) compile cache are copied where its uid can read them.
            for index, path in enumerate(box.readonly):
                if path in box.artefacts and path.is_dir():
                    target = temp / f"ro{index}"
                    shutil.copytree(path, target, symlinks=True)
                    box._path_map[path] = target
        os.chmod(temp, 0o755)
        private_tmp = temp / "tmp"
        private_tmp.mkdir(mode=0o700)
        if box.uid is not None:
            os.chown(private_tmp, box.uid, box.uid)

    def command(self, box: Box, helper: str | None) -> list[str]:
        return []

    def supervisor_options(self, box: Box) -> list[str]:
        isolation = box.isolation
        options: list[str] = []
        if box.uid is not None:
            options += ["--private-tmp", str(TMPFS_SIZE)]
            if box.temp is not None:
                options += ["--keep", str(box.temp)]
            if not box.copy_workdir:
                options += ["--keep", str(box.workdir)]
        if box._seccomp_fd is not None:
            options += ["--seccomp", str(box._seccomp_fd)]
        if box.uid is None and not (isolation.uses_landlock and isolation.landlock_abi >= LANDLOCK_SIGNAL_SCOPE):
            # the same uid as verify, no PID namespace, no Landlock signal scope: verify-init
            # stacks its guard filter (no signal, pidfd, rlimit aimed at it, verify, kill(-1))
            options += ["--guard", "1"]
        return options

    def readable_folders(self, box: Box) -> list[str]:
        # what bubblewrap would show: the system folders, /proc, the devices of its /dev,
        # the folders and files the run needs (as the program sees them: copies of the
        # artefacts for its own uid), and the run's temporary folder; never a home, another
        # entry, a test case, the host's /tmp or /dev/shm
        folders = [d for d in SYSTEM_DIRS if os.path.exists(d)] + ["/proc", *SANDBOX_DEVICES]
        folders += [str(box.path(p)) for p in box.readonly]
        if box.temp is not None:
            folders.append(str(box.temp))
        return folders

    def writable_folders(self, box: Box) -> list[str]:
        if box.uid is not None:
            return [str(box.visible_workdir), "/tmp", "/dev/shm"]   # verify-init's private tmpfs
        assert box.temp is not None
        return [str(box.visible_workdir), str(box.temp / "tmp")]

    def private_tmp(self, box: Box) -> str:
        if box.uid is not None and box.report_fd is not None:
            return "/tmp"
        return str(box.temp / "tmp") if box.temp else "/tmp"

    def home(self, box: Box) -> str:
        return str(box.visible_workdir)

    def ends_by_request(self, isolation: Isolation) -> bool:
        return isolation.helper is not None

    def popen_user(self, box: Box) -> int | None:
        return box.uid if box.report_fd is None else None


BACKENDS: dict[str, Backend] = {"bubblewrap": Bubblewrap(), "none": NoSandbox()}


def backend_for(isolation: Isolation) -> Backend:
    """The backend of `isolation`: bubblewrap when it is in force, else none."""
    return BACKENDS["bubblewrap" if isolation.bwrap else "none"]


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


@cache
def _parent_dirs(paths: tuple[str, ...]) -> list[str]:
    """bwrap arguments creating the parents of these mount points (the same few sets come
    back run after run: computed once each)."""
    parents = sorted({a for p in paths for a in _parents(p) if not is_system_path(a)},
                     key=lambda d: d.count("/"))
    return [word for parent in parents for word in ("--perms", "0755", "--dir", parent)]


def _parents(path: str) -> list[str]:
    found: list[str] = []
    while True:
        path = os.path.dirname(path)
        if path in ("/", ""):
            return found
        found.append(path)


def _tmpfs_layout(box: Box) -> list[list[str]] | None:
    """Under bubblewrap the entry's folder is rebuilt inside a size-limited tmpfs of
    the sandbox (bwrap copies each file from a descriptor): writable, bounded, and
    gone with the namespace, with nothing to copy or remove on the host. None when
    the folder is too big for that (then it is copied to the run's temp folder).
    Only regular files and folders are taken (a symlink is recreated as a symlink,
    which the sandbox resolves in its own view); nothing is opened that could block."""
    layout: list[list[str]] = []
    total = 0
    for root, dirs, files in os.walk(box.workdir):
        dirs.sort()
        for name in list(dirs):
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
            if len(box._file_fds) >= WORKDIR_MAX_FILES:
                _drop_layout(box)
                return None
            try:
                fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue                       # unreadable: the program cannot see it either
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                os.close(fd)                   # a FIFO, socket or device: not copied
                continue
            box._file_fds.append(fd)
            total += info.st_size
            if total > WORKDIR_MAX_BYTES:
                _drop_layout(box)
                return None
            mode = "0777" if info.st_mode & 0o111 else "0666"
            layout.append(["--perms", mode, "--file", str(fd), path])
    return layout


def _drop_layout(box: Box) -> None:
    for fd in box._file_fds:
        os.close(fd)
    box._file_fds = []
