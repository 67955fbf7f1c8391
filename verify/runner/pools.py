"""The boxes a runner keeps for the runs that follow (`ahead=True`): one interface over
its fork servers (forkserver.py) and its sandboxes built ahead (warm.py).

A `Pools` belongs to the runner that made it, which closes it (grading's LocalRunner);
closing removes every waiting server and sandbox. A caller of `run_prepared(...,
ahead=True)` passes its own (`pools=`). Any still open when verify exits is closed then:
nothing of them survives verify.
"""
from __future__ import annotations

import atexit
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from verify.runner.build import Prepared
from verify.runner.forkserver import ForkServerPool
from verify.runner.limits import Limits
from verify.runner.mode import Isolation
from verify.runner.process import RunResult, StdoutConsumer
from verify.runner.warm import BuiltAheadPool


class Pool(Protocol):
    """Boxes made once and used by several runs of one program."""

    def possible(self, isolation: Isolation) -> bool:
        """Whether this pool can serve runs under `isolation`."""

    def run(self, prepared: Prepared, *, args: Sequence[str], limits: Limits, stdin: bytes,
            on_stdout: StdoutConsumer | None, isolation: Isolation) -> RunResult | None:
        """The run, served from the pool; None when it cannot serve this one."""

    def close(self) -> object:
        """Remove everything the pool holds."""


class Pools:
    """The fork servers first (as root under bubblewrap; `forkserver` False: none; `zygote`
    False: none of their steps forked from an interpreter started ahead; built in `cache`,
    None: cache_root()), else sandboxes built ahead."""

    def __init__(self, *, forkserver: bool = True, zygote: bool = True, cache: Path | None = None) -> None:
        self.fork_servers = ForkServerPool(enabled=forkserver, zygotes=zygote, cache=cache)
        self.built_ahead = BuiltAheadPool()
        self.members: tuple[Pool, ...] = (self.fork_servers, self.built_ahead)
        _open.add(self)

    def run(self, prepared: Prepared, *, args: Sequence[str], limits: Limits, stdin: bytes,
            on_stdout: StdoutConsumer | None, isolation: Isolation) -> RunResult | None:
        """The run from the first pool that can serve it; None when none can."""
        for pool in self.members:
            if pool.possible(isolation):
                result = pool.run(prepared, args=args, limits=limits, stdin=stdin, on_stdout=on_stdout,
                                  isolation=isolation)
                if result is not None:
                    return result
        return None

    def close(self) -> None:
        for pool in self.members:
            pool.close()

    def __enter__(self) -> Pools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_open: weakref.WeakSet[Pools] = weakref.WeakSet()


@atexit.register
def _close_open() -> None:
    for pools in list(_open):
        pools.close()
