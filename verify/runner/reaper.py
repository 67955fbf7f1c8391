"""Nothing of a run survives verify: stale leftovers, live aborts, signals.

Three jobs, all about what a run leaves behind when verify itself ends abnormally:

- **Names that say who owns them.** Every folder or cgroup verify makes for a run carries
  its owner's tag, ``<pid>-<start time>`` (the start time is field 22 of
  ``/proc/<pid>/stat``, in clock ticks since boot, so a pid reused by another process is
  not mistaken for the owner): ``verify-run-<tag>-*`` (a run's temporary folder),
  ``.build-<tag>-*`` (a compile's staging folder), ``verify-<tag>-*`` (a run's cgroup).
- **Stale ones are removed.** A verify killed with SIGKILL cannot clean up; the next verify
  does: ``remove_stale`` deletes what carries the tag of an owner that is no longer
  alive (and kills what is left in such a cgroup). Sandboxes call ``remove_stale_once``
  before their first run in a process.
- **Live runs are aborted on a signal.** Each sandbox registers a callable that kills
  its processes and removes its folder (``track`` / ``untrack``).
  ``install_signal_handlers`` makes SIGINT, SIGTERM, SIGHUP and SIGQUIT call every one
  of them (``abort_all``) and then end verify at once with exit code 128 + the signal
  (``os._exit``: worker threads blocked on a program's pipes cannot hold it up). A
  second signal during that ends verify immediately, unless it is the same signal
  within SIGNAL_REPEAT_GRACE of the first: the same request sent twice (``timeout``
  signals its child, then the child's whole process group, verify included).

This module uses the standard library only (it is imported by cgroup.py and
sandbox.py, early in the import of ``verify.runner``).

Limits: the owner test reads ``/proc``, so two verify processes in different PID
namespaces sharing one temporary folder could take each other's folders for stale ones;
only entries owned by our own effective uid are ever removed. A folder named in the
older way (``verify-run-XXXXXXXX``, no tag) is never touched.
"""
from __future__ import annotations

import itertools
import os
import re
import shutil
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

CGROUP_KILL_TIMEOUT = 2.0     # seconds spent emptying one stale cgroup
ABORT_TIMEOUT = 3.0           # seconds abort_all waits for the aborts it started
SIGNAL_REPEAT_GRACE = 0.5     # seconds within which the same signal again is the same request
HANDLED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")

_TAG = r"(\d+-\d+)"
_RUN_FOLDER = re.compile(r"verify-run-" + _TAG + r"-")
_BUILD_FOLDER = re.compile(r"\.build-" + _TAG + r"-")
_CGROUP = re.compile(r"verify-" + _TAG + r"-")


# -- who owns what ------------------------------------------------------------------

def _stat_fields(pid: int | str) -> list[bytes] | None:
    """Fields 3.. of /proc/<pid>/stat (after the command name), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


_own: tuple[int, str] | None = None


def owner_tag() -> str:
    """``<pid>-<start time>`` of this process (recomputed after a fork)."""
    global _own
    pid = os.getpid()
    if _own is None or _own[0] != pid:
        fields = _stat_fields("self")
        start = fields[19].decode() if fields and len(fields) > 19 else "0"
        _own = (pid, f"{pid}-{start}")
    return _own[1]


def owner_alive(tag: str) -> bool:
    """Is the process that made `tag` still running? A zombie counts as gone; a tag that
    does not parse, or a machine without /proc, counts as alive (nothing is removed on
    its account)."""
    match = re.fullmatch(r"(\d+)-(\d+)", tag)
    if match is None or not os.path.exists("/proc/self/stat"):
        return True
    if tag == owner_tag():
        return True
    fields = _stat_fields(match.group(1))
    if fields is None or len(fields) <= 19:
        return False
    return fields[0] not in (b"Z", b"X") and fields[19].decode() == match.group(2)


def run_folder_prefix() -> str:
    """Prefix of a run's temporary folder: ``tempfile.mkdtemp(prefix=run_folder_prefix(), ...)``."""
    return f"verify-run-{owner_tag()}-"


def build_folder_prefix() -> str:
    """Prefix of a compile's staging folder (next to the compile cache's final folder)."""
    return f".build-{owner_tag()}-"


def cgroup_name_prefix() -> str:
    """Prefix of a run's cgroup folder."""
    return f"verify-{owner_tag()}-"


# -- removing what dead owners left --------------------------------------------------

def _stale_tag(name: str, patterns: Iterable[re.Pattern[str]]) -> str | None:
    """The owner's tag when `name` is one of ours and its owner is dead, else None."""
    for pattern in patterns:
        match = pattern.match(name)
        if match is not None:
            tag = match.group(1)
            return None if owner_alive(tag) else tag
    return None


def remove_stale(folders: Iterable[Path], cgroup_parents: Iterable[Path] = ()) -> None:
    """Remove what verify processes that are no longer alive left behind.

    In each of `folders`: directories named ``verify-run-<tag>-*`` or ``.build-<tag>-*``
    whose owner is dead, owned by our effective uid (a symlink or a file with such a name
    is left alone, and nothing is followed through a symlink). In each of
    `cgroup_parents`: cgroups named ``verify-<tag>-*`` whose owner is dead: every process
    still in one is killed, then it is removed. Never raises: a folder that vanished
    meanwhile or cannot be removed is skipped."""
    euid = os.geteuid()
    for folder in folders:
        for entry in _entries(folder):
            if _stale_tag(entry.name, (_RUN_FOLDER, _BUILD_FOLDER)) is None:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode) and info.st_uid == euid:
                # rmtree works through descriptors here (shutil.rmtree.avoids_symlink_attacks):
                # a folder swapped for a symlink meanwhile is not followed
                shutil.rmtree(entry.path, ignore_errors=True)
    for parent in cgroup_parents:
        for entry in _entries(parent):
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
            except OSError:
                continue
            if _stale_tag(entry.name, (_CGROUP,)) is not None:
                empty_and_remove_cgroup(Path(entry.path))


def _entries(folder: Path | str) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _cgroup_members(folder: Path) -> list[int]:
    try:
        return [int(word) for word in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def empty_and_remove_cgroup(folder: Path, timeout: float = CGROUP_KILL_TIMEOUT) -> None:
    """SIGKILL every process in the cgroup until none is left (bounded), then rmdir it."""
    try:                                    # v2, Linux 5.14+: the kernel kills them all
        kill = os.open(folder / "cgroup.kill", os.O_WRONLY | os.O_CLOEXEC)   # (never created)
        try:
            os.write(kill, b"1")
        finally:
            os.close(kill)
    except OSError:
        pass
    deadline = time.monotonic() + timeout
    pause = 0.0005
    while True:
        members = _cgroup_members(folder)
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            folder.rmdir()                  # succeeds once the last process has left it
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                return
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


_stale_lock = threading.Lock()
_stale_done: set[str] = set()
_roots: set[str] = set()            # temporary folders where this process makes run folders


def remove_stale_once(folders: Iterable[Path], cgroup_parents: Iterable[Path] = ()) -> None:
    """``remove_stale``, at most once per folder and per cgroup parent in this process
    (the first sandbox calls it; later ones pay one set lookup). A thread arriving while
    it runs waits for it. Never raises."""
    folder_names = [str(f) for f in folders]
    parents = [str(p) for p in cgroup_parents]
    keys = [("f:" + f) for f in folder_names] + [("c:" + p) for p in parents]
    if all(key in _stale_done for key in keys):
        return
    with _stale_lock:
        _roots.update(folder_names)
        todo_folders = [f for f in folder_names if "f:" + f not in _stale_done]
        todo_parents = [p for p in parents if "c:" + p not in _stale_done]
        try:
            remove_stale([Path(f) for f in todo_folders], [Path(p) for p in todo_parents])
        except Exception:          # only housekeeping: a run must not fail because of it
            pass
        _stale_done.update(keys)


def _remove_own_folders() -> None:
    """Remove this process's own run and build folders from the folders it used (the last
    step before exiting on a signal: catches one a worker thread made after its abort)."""
    prefixes = (run_folder_prefix(), build_folder_prefix())
    for root in list(_roots):
        for entry in _entries(root):
            if entry.name.startswith(prefixes):
                try:
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path, ignore_errors=True)
                except OSError:
                    pass


# -- the live registry -----------------------------------------------------------------

_registry_lock = threading.RLock()     # re-entrant: a signal handler may run while the main thread holds it
_registry: dict[int, Callable[[], None]] = {}
_tokens = itertools.count(1)
_exiting = threading.Event()           # set by the signal handler: verify is about to end
_first_signal: tuple[int, float] | None = None   # (number, time.monotonic()) of the signal that set it


def track(abort: Callable[[], None]) -> int:
    """Register `abort` (kills a run's processes and removes its folder; must be safe to
    call from another thread while the run goes on); returns the token for `untrack`.

    Once a signal handler is ending verify, a worker thread starting a new run waits here
    until the process is gone: nothing new is started after the aborts."""
    if _exiting.is_set() and threading.current_thread() is not threading.main_thread():
        threading.Event().wait()        # never returns: os._exit is on its way
    with _registry_lock:
        token = next(_tokens)
        _registry[token] = abort
    return token


def untrack(token: int | None) -> None:
    """Forget a run that has been cleaned up (an unknown or None token is ignored)."""
    if token is None:
        return
    with _registry_lock:
        _registry.pop(token, None)


def abort_all(timeout: float = ABORT_TIMEOUT) -> None:
    """Call every registered abort (each once: they are forgotten as they are taken),
    concurrently, and wait for them (at most `timeout` seconds). An abort that raises is
    ignored. Thread-safe; calling it again only aborts what was registered since."""
    with _registry_lock:
        aborts = list(_registry.values())
        _registry.clear()
    if not aborts:
        return

    def guarded(abort: Callable[[], None]) -> None:
        try:
            abort()
        except BaseException:
            pass

    # Each in a thread of its own, even one: the thread a signal interrupted may hold a lock
    # an abort needs, and a stuck abort must not hold up the others or verify's exit.
    threads = [threading.Thread(target=guarded, args=(abort,), name="verify-abort", daemon=True)
               for abort in aborts]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


def tracked() -> int:
    """How many runs are registered (for tests)."""
    with _registry_lock:
        return len(_registry)


# -- signals ---------------------------------------------------------------------------

def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BaseException:         # e.g. re-entrant write interrupted by the signal
            pass


def _on_signal(number: int, frame: object) -> None:
    global _first_signal
    code = 128 + number
    if _exiting.is_set():
        first = _first_signal
        if first is not None and first[0] == number and time.monotonic() - first[1] < SIGNAL_REPEAT_GRACE:
            return                     # the same request again: the abort under way goes on
        os._exit(code)                 # a second signal while aborting: stop at once
    _first_signal = (number, time.monotonic())
    _exiting.set()
    try:
        _flush()
        name = signal.Signals(number).name
        words = "interrupted" if number == signal.SIGINT else f"stopped by {name}"
        lead = "\r\x1b[K" if os.isatty(2) else ""
        try:
            os.write(2, f"{lead}verify: {words}: stopping the runs\n".encode())
        except OSError:
            pass
        abort_all()
        _remove_own_folders()
    finally:
        _flush()
        os._exit(code)


def install_signal_handlers() -> bool:
    """Make SIGINT, SIGTERM, SIGHUP and SIGQUIT abort every run and end verify with exit
    code 128 + the signal. Only from the main thread (elsewhere: nothing, False); a signal
    that is ignored when verify starts (``nohup``) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        return False
    for name in HANDLED_SIGNALS:
        number = getattr(signal, name, None)
        if number is None:
            continue
        try:
            if signal.getsignal(number) == signal.SIG_IGN:
                continue
            signal.signal(number, _on_signal)
        except (OSError, ValueError):
            continue
    return True
