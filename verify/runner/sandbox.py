"""Where a program runs: bubblewrap when present, rlimits + a new session always.

One Sandbox per run. It owns a private temporary folder (a copy of the entry's
folder, so that the program may write there without touching the submission),
builds the command line wrapping the program, and removes everything at the end.

Processes limit: RLIMIT_NPROC counts the processes of a *real uid*, and root is
exempt from it. So when verify runs as root the program runs as a fresh
unprivileged uid drawn at random for this run (no other process has it), which
makes RLIMIT_NPROC exact, and lets us kill every process of that uid at the end.
Under bubblewrap the uid switch is done inside the sandbox by `setpriv`; without
bubblewrap by subprocess's `user=`.
"""
from __future__ import annotations

import os
import secrets
import shutil
import signal
import tempfile
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Sequence

# Read-only system folders visible in the sandbox (those that exist).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
UID_RANGE = (1 << 20, 1 << 30)   # far above any uid a system hands out
TMPFS_SIZE = 256 << 20


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


@cache
def helper_path() -> str | None:
    """verify-init (init_helper.c), compiled once into the cache; None without a C compiler.
    It runs inside bubblewrap, waits for the program and reports its rusage."""
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


def running_as_root() -> bool:
    return os.geteuid() == 0


def isolation_name() -> str:
    parts = ["bubblewrap"] if bwrap_path() else []
    parts.append("rlimits")
    parts.append("own uid" if running_as_root() and (setpriv_path() or not bwrap_path()) else "same uid")
    parts.append("process group")
    return "+".join(parts)


def _under(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def _is_system_path(path: Path) -> bool:
    return any(_under(path, Path(d)) for d in SYSTEM_DIRS)


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

    def __enter__(self) -> "Sandbox":
        self.temp = Path(tempfile.mkdtemp(prefix="verify-run-"))
        drop_uid = running_as_root() and (bwrap_path() is None or setpriv_path() is not None)
        self.uid = secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0] if drop_uid else None
        try:
            self._prepare_workdir()
            if bwrap_path() and helper_path():
                self.report_fd, self._report_write = os.pipe()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    # -- folders --------------------------------------------------------------------

    def _prepare_workdir(self) -> None:
        assert self.temp is not None
        if self.copy_workdir:
            copy = self.temp / "work"
            shutil.copytree(self.workdir, copy, symlinks=True)
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

    def path(self, path: Path) -> Path:
        """Where the program sees `path` (the same path under bubblewrap)."""
        for original, mapped in self._path_map.items():
            if _under(path, original):
                return mapped / path.relative_to(original)
        return path

    # -- command line ---------------------------------------------------------------

    def wrap(self, argv: Sequence[str], prefix: Sequence[str] = ()) -> list[str]:
        """`prefix` (the rlimits) runs outside bubblewrap so that it also bounds bwrap's children."""
        bwrap = bwrap_path()
        if not bwrap:
            return [*prefix, *argv]
        command = [bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                   "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if not running_as_root():
            command.append("--unshare-user")
        for folder in SYSTEM_DIRS:
            if os.path.exists(folder):
                command += ["--ro-bind", folder, folder]
        command += ["--proc", "/proc", "--dev", "/dev",
                    "--perms", "1777", "--size", str(TMPFS_SIZE), "--tmpfs", "/tmp"]
        helper = helper_path() if self._report_write is not None else None
        mounts = [p for p in self.readonly if not _is_system_path(p) and p.exists()]
        if helper:
            mounts.append(Path(helper).parent)
        # bubblewrap would create the parents of a mount point with the host's modes
        # (/root is 0700): create them world-traversable first, or the program's uid
        # could not reach its interpreter or artefact.
        parents = sorted({str(a) for p in [*mounts, self.workdir] for a in p.parents
                          if str(a) != "/" and not _is_system_path(a)}, key=lambda d: d.count("/"))
        for parent in parents:
            command += ["--perms", "0755", "--dir", parent]
        for path in mounts:
            command += ["--ro-bind", str(path), str(path)]
        bind = "--bind" if self.writable_workdir else "--ro-bind"
        command += [bind, str(self._bind_workdir_from), str(self.workdir), "--chdir", str(self.workdir)]
        if helper:
            command += ["--",
                        helper, str(self._report_write), str(-1 if self.uid is None else self.uid), "--"]
            return [*prefix, *command, *argv]
        command.append("--")
        if self.uid is not None:
            command += [setpriv_path(), f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                        "--no-new-privs", "--"]
        return [*prefix, *command, *argv]

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self._report_write,) if self._report_write is not None else ()

    def spawned(self) -> None:
        """Call once the process is started: the parent keeps only the read end."""
        if self._report_write is not None:
            os.close(self._report_write)
            self._report_write = None

    def read_report(self) -> tuple[float, int] | None:
        """(cpu seconds, peak RSS bytes) of the program, as verify-init measured them."""
        if self.report_fd is None:
            return None
        os.set_blocking(self.report_fd, False)
        try:
            words = os.read(self.report_fd, 256).split()
        except BlockingIOError:
            return None
        if len(words) != 3:
            return None
        user, system, rss = (int(w) for w in words)
        return (user + system) / 1e6, rss * 1024

    def popen_user(self) -> int | None:
        """The uid subprocess must switch to itself (only without bubblewrap)."""
        return self.uid if (self.uid is not None and not bwrap_path()) else None

    def environment(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {"PATH": SANDBOX_PATH, "HOME": "/tmp" if bwrap_path() else str(self.visible_workdir),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp" if bwrap_path() else str(self.temp / "tmp")}
        env.update(extra or {})
        return env

    # -- the end --------------------------------------------------------------------

    def kill_leftovers(self) -> None:
        """Kill every process of the run's own uid (those that escaped the process group)."""
        if self.uid is None:
            return
        for _ in range(5):  # a forking process may spawn while we sweep: repeat until none
            pids = processes_of_uid(self.uid)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def cleanup(self) -> None:
        self.kill_leftovers()
        for fd in (self.report_fd, self._report_write):
            if fd is not None:
                os.close(fd)
        self.report_fd = self._report_write = None
        if self.temp is not None:
            shutil.rmtree(self.temp, ignore_errors=True)
            self.temp = None


def processes_of_uid(uid: int) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                found.append(int(entry.name))
        except FileNotFoundError:
            continue
    return found
