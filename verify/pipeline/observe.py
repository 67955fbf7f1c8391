"""What watches a check while it runs: the progress line, the site's capture of outputs,
``--fail-fast``. Each is an :class:`Observer`; the executor calls them, never the other way.

- ``task``: when the jobs are made, what runs for a task here (the site wraps a batch task
  so that its output is kept); on a cluster's workers the plain task runs.
- ``admit``: in the job's thread, just before it runs: False and the case is not run
  (it is reported as skipped). Called in this process only.
- ``judged``: in the job's thread, as soon as its case has its result.
- ``finished``: on the caller's thread as each job ends, with how many are done of all
  (``result`` None: the case was not run).
"""
from __future__ import annotations

import threading
from collections.abc import Sequence

from verify.pipeline.plan import EntryCheck, Job
from verify.results import CaseResult


class Observer:
    """Does nothing at every step: an observer overrides the steps it watches."""

    def task(self, position: int, check: EntryCheck, task: Job) -> Job:
        return task

    def admit(self, position: int) -> bool:
        return True

    def judged(self, position: int, result: CaseResult) -> None:
        pass

    def finished(self, position: int, result: CaseResult | None, done: int, total: int) -> None:
        pass


class Observers:
    """Several observers as one, in order: a case runs when every one admits it."""

    def __init__(self, observers: Sequence[Observer] = ()):
        self.observers = tuple(observers)

    def task(self, position: int, check: EntryCheck, task: Job) -> Job:
        for observer in self.observers:
            task = observer.task(position, check, task)
        return task

    def admit(self, position: int) -> bool:
        return all(observer.admit(position) for observer in self.observers)

    def judged(self, position: int, result: CaseResult) -> None:
        for observer in self.observers:
            observer.judged(position, result)

    def finished(self, position: int, result: CaseResult | None, done: int, total: int) -> None:
        for observer in self.observers:
            observer.finished(position, result, done, total)


class FailFast(Observer):
    """``--fail-fast``: once a case of an entry fails, that entry's cases not started yet are
    not run. The failure is recorded in the job's own thread, so the next case of the entry
    (even one a free thread takes at once) sees it."""

    def __init__(self) -> None:
        self._stopped: set[int] = set()
        self._lock = threading.Lock()

    def admit(self, position: int) -> bool:
        with self._lock:
            return position not in self._stopped

    def judged(self, position: int, result: CaseResult) -> None:
        if not result.passed:
            with self._lock:
                self._stopped.add(position)
