"""Sandboxes built ahead of time for the next run of the same program.

Under bubblewrap most of a short run's cost is bwrap setting up namespaces and mounts
(about 8 ms here), none of which depends on the run's input. So when a program is run,
the sandbox for its *next* run is built at the same time: bwrap, its mounts and
verify-init, which waits (as root, before the rlimits, the uid switch and the fork)
until verify writes one byte to a pipe. The next identical run (same command, folder,
limits, environment) only writes that byte and its stdin. Nothing of the program runs
before that, every run still gets a new namespace, uid and process, and a sandbox whose
entry folder changed since it was built is thrown away.

At most MAX_READY sandboxes wait at a time (the oldest is dropped), and all are removed
when verify exits (and die with it anyway: --die-with-parent).
"""
from __future__ import annotations

import atexit
import os
import subprocess
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from verify.runner.sandbox import Sandbox

MAX_READY = 4
AHEAD = 2          # sandboxes kept ready per program: their set-ups overlap too
DISPOSE_TIMEOUT = 5.0


@dataclass
class Ready:
    sandbox: Sandbox
    process: subprocess.Popen
    argv: list[str]
    signature: tuple


_lock = threading.Lock()
_ready: "OrderedDict[tuple, list[Ready]]" = OrderedDict()


def folder_signature(folder: Path) -> tuple:
    """What the sandbox copied of the entry's folder: names, sizes, times and modes."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files) + dirs:
            try:
                info = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            found.append((root, name, info.st_size, info.st_mtime_ns, info.st_mode, info.st_ino))
    return tuple(found)


def take(key: tuple, signature: tuple) -> Ready | None:
    """A waiting sandbox for `key`, alive and built from the same folder, or None."""
    with _lock:
        waiting = _ready.get(key)
        found = waiting.pop() if waiting else None
        if waiting == []:
            del _ready[key]
    if found is None:
        return None
    if found.process.poll() is not None or found.signature != signature:
        dispose(found)
        return None
    return found


_seen: "OrderedDict[tuple, None]" = OrderedDict()
SEEN_KEYS = 64


def missing(key: tuple) -> int:
    """How many more sandboxes to build for `key`: none the first time a program is run
    (a program run once, such as an architect given its seed or a language's self-test,
    would only waste them), then up to AHEAD."""
    with _lock:
        if key not in _seen:
            _seen[key] = None
            if len(_seen) > SEEN_KEYS:
                _seen.popitem(last=False)
            return 0
        _seen.move_to_end(key)
        return max(0, AHEAD - len(_ready.get(key, ())))


def keep(key: tuple, ready: Ready) -> None:
    with _lock:
        _ready.setdefault(key, []).append(ready)
        _ready.move_to_end(key)
        dropped = []
        while sum(len(v) for v in _ready.values()) > MAX_READY:
            oldest_key, oldest = next(iter(_ready.items()))
            dropped.append(oldest.pop(0))
            if not oldest:
                del _ready[oldest_key]
    for ready in dropped:
        dispose(ready)


def dispose(ready: Ready) -> None:
    """Close its go pipe (verify-init exits without running anything) and wait for it."""
    sandbox, process = ready.sandbox, ready.process
    if sandbox._go_write is not None:
        os.close(sandbox._go_write)
        sandbox._go_write = None
    try:
        process.wait(timeout=DISPOSE_TIMEOUT)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
    sandbox.cleanup()
    for stream in (process.stdin, process.stdout, process.stderr):
        try:
            stream.close()
        except OSError:
            pass


def dispose_all() -> None:
    with _lock:
        everything = [r for waiting in _ready.values() for r in waiting]
        _ready.clear()
        _seen.clear()
    for ready in everything:
        dispose(ready)


atexit.register(dispose_all)
