"""Where the jobs of a check or a tournament run: the :class:`Executor` seam.

A job is ``job(grader, item)``: a module-level function and plain data (picklable),
returning plain data (the JSON form of a result). The same job then runs in a thread
of this process (:class:`LocalExecutor`, the default: no server) or on a worker of a
cluster (:mod:`verify.executors.dask`), where the grader is the worker's own.
``map`` returns the results in the order of the items, whatever order they finish in,
so that what a command reports never depends on how the work was spread.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Protocol, TypeVar

from verify.errors import VerifyError

G = TypeVar("G")
T = TypeVar("T")
R = TypeVar("R")

Done = Callable[[int, R], None]
"""Called on the caller's thread as each job finishes: the item's index and its result."""


class ExecutorError(VerifyError):
    """The executor could not run a job (a worker lost too often, a worker that refuses): one line, exit 2."""


class Executor(Protocol):
    """Runs jobs somewhere; nothing about the jobs' outcome depends on where."""

    def map(self, job: Callable[[G, T], R], items: Sequence[T], *, grader: G, parallel: int,
            on_done: Done[R] | None = None) -> list[R]:
        """``job(g, item)`` for every item, the results in the items' order. ``grader``: the one
        to use in this process; ``parallel``: jobs at once here (a cluster uses its workers').
        A job that raises stops the map: the error is raised here, the jobs not started are not."""

    def workers(self) -> int | None:
        """Workers connected now (None: this machine only)."""

    def isolation(self, here: str) -> str | None:
        """The isolation the jobs ran under, as a cache key names it (``here``: this process's);
        None when the workers' differ (nothing is then cached under one name)."""


class LocalExecutor:
    """Threads of this process: each job mostly waits on its program, so threads keep the cores busy."""

    def map(self, job: Callable[[G, T], R], items: Sequence[T], *, grader: G, parallel: int,
            on_done: Done[R] | None = None) -> list[R]:
        results: dict[int, R] = {}
        if not items:
            return []
        pool = ThreadPoolExecutor(max_workers=max(1, min(parallel, len(items))))
        try:
            futures: dict[Future[R], int] = {pool.submit(job, grader, item): index for index, item in enumerate(items)}
            for future in as_completed(futures):
                index = futures[future]
                results[index] = future.result()
                if on_done is not None:
                    on_done(index, results[index])
        except BaseException:
            # a failed job or Ctrl-C: start nothing more; the runs in flight end within their limits
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return [results[index] for index in range(len(items))]

    def workers(self) -> int | None:
        return None

    def isolation(self, here: str) -> str | None:
        return here

