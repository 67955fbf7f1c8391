"""The grader of one Dask worker (docs/cluster.md), kept by the worker as one of its plugins:
made at its first job, and closed with the worker (its runner's fork servers and sandboxes
built ahead go then).

Imported where ``distributed`` is installed only: on a worker.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from distributed import WorkerPlugin
from distributed.worker import Worker

from verify.grading import Grader, LocalRunner

PLUGIN = "verify-grader"


class WorkerGrader(WorkerPlugin):
    """One worker's grader over the runner `make_runner` gives (which may refuse, raising: then
    every job is refused, and the runner asked for again at the next)."""

    def __init__(self, make_runner: Callable[[], LocalRunner]) -> None:
        self._make_runner = make_runner
        self._lock = threading.Lock()
        self._runner: LocalRunner | None = None
        self._grader: Grader | None = None

    def grader(self) -> Grader:
        with self._lock:
            if self._grader is None:
                self._runner = self._make_runner()
                self._grader = Grader(self._runner)
            return self._grader

    def teardown(self, worker: Worker) -> None:
        with self._lock:
            if self._runner is not None:
                self._runner.close()
            self._runner = self._grader = None


_adding = threading.Lock()


def grader_of(worker: Worker, make_runner: Callable[[], LocalRunner]) -> Grader:
    """The grader `worker` keeps (added to its plugins at its first job, over `make_runner`'s runner)."""
    with _adding:
        plugin = worker.plugins.get(PLUGIN)
        if not isinstance(plugin, WorkerGrader):
            plugin = worker.plugins[PLUGIN] = WorkerGrader(make_runner)
    return plugin.grader()
