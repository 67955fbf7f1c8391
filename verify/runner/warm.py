"""Sandboxes built ahead of time for the next run of the same program (`ahead=True`).

An option that nothing turns on by default: `run_program(..., ahead=True)` or
`run_prepared(..., ahead=True)`. Under bubblewrap most of a short run's cost is bwrap
setting up namespaces and mounts, none of which depends on the run's input. So while
such a run runs, the sandboxes for the *next* runs of the same program are built: bwrap,
its mounts and verify-init, which waits (as root, before the rlimits, the uid switch
and the fork) until verify writes one byte to a pipe. The next identical run (same
command, folder, limits, environment, isolation) only writes that byte and its stdin.
Nothing of the program runs before that, every run still gets a new namespace, uid and
process, and a sandbox whose entry folder changed since it was built is thrown away.

Possible only under bubblewrap with verify-init (the one that can wait for go) and
without a cgroup per run (each waiting sandbox would hold one); elsewhere `ahead=True`
runs as usual. At most MAX_READY sandboxes wait at a time (the oldest is dropped), and
they wait in a `BuiltAheadPool`, which its owner closes (a runner, pools.py; they die
with verify anyway: --die-with-parent).
"""
from __future__ import annotations

import os
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path

from verify.runner.build import Prepared
from verify.runner.idle import IdleBoxes
from verify.runner.limits import Limits
from verify.runner.mode import Isolation
from verify.runner.process import RunResult, Started, StdoutConsumer, drive
from verify.runner.sandbox import RunProcess, Sandbox

MAX_READY = 4
AHEAD = 2          # sandboxes kept ready per program: their set-ups overlap too
DISPOSE_TIMEOUT = 5.0
SEEN_KEYS = 64

Key = tuple[Hashable, ...]                      # what two runs must share to use the same sandbox
Signature = tuple[tuple[str, str, int, int, int, int], ...]


@dataclass
class Ready:
    """A sandbox built ahead: verify-init waits in it for go."""

    sandbox: Sandbox
    process: RunProcess
    argv: list[str]
    signature: Signature


def possible(isolation: Isolation) -> bool:
    """Only under bubblewrap with verify-init, and not with a cgroup per run."""
    return bool(isolation.bwrap and isolation.helper and isolation.cgroups is None)


def folder_signature(folder: Path) -> Signature:
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


def dispose(ready: Ready) -> None:
    """Close its go pipe (verify-init exits without running anything) and wait for it."""
    dispose_waiting(ready.sandbox, ready.process)


def dispose_waiting(sandbox: Sandbox, process: RunProcess) -> None:
    """Remove a sandbox whose verify-init waits for go (`process`: what verify started)."""
    sandbox.close_go()
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
            if stream is not None:
                stream.close()
        except OSError:
            pass


class BuiltAheadPool:
    """Sandboxes built ahead, per run key (at most MAX_READY); its owner closes it
    (`close`), which removes them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: IdleBoxes[Ready] = IdleBoxes(MAX_READY)
        self._seen: OrderedDict[Key, None] = OrderedDict()

    def possible(self, isolation: Isolation) -> bool:
        return possible(isolation)

    def run(self, prepared: Prepared, *, args: Sequence[str], limits: Limits, stdin: bytes,
            on_stdout: StdoutConsumer | None, isolation: Isolation) -> RunResult:
        """Run `prepared` in a sandbox built ahead when one waits (else in a new one), and
        meanwhile build those of its next runs. `possible(isolation)` must hold."""
        key: Key = (tuple(prepared.argv(args, limits)), str(prepared.program.folder),
                    tuple(map(str, prepared.readonly)), limits, prepared.language.memory,
                    prepared.language.memory_extra, tuple(sorted(prepared.language.env.items())), isolation)
        signature = folder_signature(prepared.program.folder)

        def build_next() -> None:
            try:
                for _ in range(self.missing(key)):
                    build_one()
            except Exception:    # only an optimisation: this run must go on whatever happens here
                pass

        def build_one() -> None:
            sandbox = prepared.sandbox(isolation, wait_for_go=True).__enter__()
            if sandbox.temp is not None:           # a folder too big for the tmpfs: not worth it
                sandbox.cleanup()
                return
            try:
                started = prepared.start(sandbox, args, limits)
            except BaseException:
                sandbox.cleanup()
                raise
            self.keep(key, Ready(sandbox, started.process, started.argv, signature))

        ready = self.take(key, signature)
        if ready is not None:
            try:
                if ready.sandbox.go():
                    started = Started(ready.process, ready.argv, time.monotonic())
                    build_next()               # (the program is starting meanwhile: its wall time counts)
                    return drive(started, ready.sandbox, limits, stdin=stdin, on_stdout=on_stdout)
            finally:
                dispose(ready)
        with prepared.sandbox(isolation) as sandbox:
            started = prepared.start(sandbox, args, limits)
            build_next()
            return drive(started, sandbox, limits, stdin=stdin, on_stdout=on_stdout)

    def take(self, key: Key, signature: Signature) -> Ready | None:
        """A waiting sandbox for `key`, alive and built from the same folder, or None."""
        found = self._ready.take(key)
        if found is None:
            return None
        if found.process.poll() is not None or found.signature != signature:
            dispose(found)
            return None
        return found


    def missing(self, key: Key) -> int:
        """How many more sandboxes to build for `key`: none the first time a program is run
        (a program run once, such as an architect given its seed, would only waste them),
        then up to AHEAD."""
        with self._lock:
            if key not in self._seen:
                self._seen[key] = None
                if len(self._seen) > SEEN_KEYS:
                    self._seen.popitem(last=False)
                return 0
            self._seen.move_to_end(key)
        return max(0, AHEAD - self._ready.count(key))


    def keep(self, key: Key, ready: Ready) -> None:
        for dropped in self._ready.keep(key, ready):
            dispose(dropped)


    def waiting(self) -> int:
        """How many sandboxes wait now."""
        return self._ready.count()

    def close(self) -> list[RunProcess]:
        """Remove every waiting sandbox; their (ended) processes."""
        everything = self._ready.drain()
        with self._lock:
            self._seen.clear()
        for ready in everything:
            dispose(ready)
        return [ready.process for ready in everything]
