"""What watches a check while it runs: the progress line, the site's capture of outputs,
``--fail-fast``. Each is an :class:`Observer`; the executor calls them, never the other way.

- ``task``: when the jobs are made, what runs for a task here (the site wraps a batch task
  so that its output is kept); on a cluster's workers the plain task runs.
- ``admit``: in the job's thread, just before it runs: False and the case is not run
  (it is reported as skipped). Called in this process only.
- ``judged``: in the job's thread, as soon as its case has its result.
- ``finished``: on the caller's thread as each job ends, with how many are done of all
  (``result`` None: the case was not run).

:class:`WhileRunning` is no watcher: it does the work a check needs only once its runs are
over (the report's modules) while the first program runs, instead of after the last.
"""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Sequence

from verify.contests.contract import BatchTask, StreamJudge
from verify.pipeline.plan import EntryCheck, Job
from verify.results import CaseResult
from verify.switching import switching_every
from verify.verdict import Verdict


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


# while the work runs, a thread that wants the interpreter waits at most this long for it
# (5 ms by default): a run's thread reading its pipe between its judge's calls is not held up
WORK_SWITCH_INTERVAL = 0.0002


class WhileRunning(Observer):
    """``work`` (what the check needs only after its runs, such as its report's modules), done
    on a thread of its own as soon as a batch program of the check has started: the program's
    run then covers it. At most once; :meth:`close` waits for it (when no program started, it
    is not done: what needs it does it then). While it runs, the interpreter switches threads
    every ``WORK_SWITCH_INTERVAL`` seconds instead of every 5 ms. A failure of ``work`` is left
    to where it is needed again.

    The start is seen when the runner asks the judge for its reader of the pipe (at the start
    of the run's I/O, before any byte is read): the task's judge is wrapped, and the wrapper
    only passes every call on."""

    def __init__(self, work: Callable[[], None]):
        self._work = work
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._done = False

    def task(self, position: int, check: EntryCheck, task: Job) -> Job:
        if not isinstance(task, BatchTask):
            return task
        make = task.judge

        def judge() -> StreamJudge:
            return _StartSeen(make(), self._start)
        return dataclasses.replace(task, judge=judge)

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None or self._done:
                return
            self._thread = threading.Thread(target=self._run, name="verify-while-running")
            self._thread.start()

    def _run(self) -> None:
        with switching_every(WORK_SWITCH_INTERVAL):
            try:
                self._work()
            except Exception:       # (done again, and failing there, where it is needed)
                pass

    def close(self) -> None:
        with self._lock:
            thread, self._done = self._thread, True
        if thread is not None:
            thread.join()


class _StartSeen:
    """A judge passed on as it is, that calls ``started`` when its run's I/O starts."""

    def __init__(self, judge: StreamJudge, started: Callable[[], None]):
        self.judge, self._started = judge, started

    def feed(self, chunk: bytes) -> Verdict | None:
        return self.judge.feed(chunk)

    def finish(self) -> Verdict:
        return self.judge.finish()

    def pipe_reader(self) -> object:
        self._started()
        make = getattr(self.judge, "pipe_reader", None)
        return make() if make is not None else None
