"""The work of the replay pages done while the runs go on.

As soon as a case's judge has its verdict, its contest's presenter may name the work the
case's page needs (a :class:`~verify.contests.contract.CaseJob`, such as a replay);
:class:`JobsAhead` hands it, with a copy of the case's captured output, to a helper
process, at a lower CPU priority than the runs (whose times are measured). Writing the site
after the runs then mostly finds the work done. A result built ahead is used only when
everything it was built from is what the page is written from (the same run of the case:
its capture was not reset since, nor did it grow; the same job key, which holds what the job
reads besides the output, such as the verdict figures and the rules); else, or when the
helper process failed, or has not started on it yet (it runs at a lower priority and may be
behind), the page does the work itself. The process is started by the first job handed
over, so a check whose contests want no work ahead never starts it.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from verify.contests.contract import CaseJob
from verify.site.capture import OutputCapture

NICENESS = 10


@dataclass(frozen=True)
class _Order:
    """What one job ran on (all of it compared before its result is used)."""

    generation: int
    total: int
    key: object
    result: Future[Any]


def _lower_priority() -> None:
    try:
        os.nice(NICENESS)
    except OSError:     # not allowed here: the helper runs at the runs' priority
        pass


class JobsAhead:
    """One helper process doing the pages' jobs in the order the cases end."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._unavailable = False
        self._lock = threading.Lock()

    def submit(self, capture: OutputCapture, job: CaseJob) -> None:
        """Do ``job`` on what ``capture`` holds now (called as the case's judge decides)."""
        with self._lock:
            if self._unavailable:
                return
            if self._pool is None:
                try:
                    self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=_lower_priority)
                except OSError:         # no process can be started here: the pages do the work
                    self._unavailable = True
                    return
            result = self._pool.submit(job.function, capture.copy(), *job.args)
        capture.ahead = _Order(capture.generation, capture.total, job.key, result)

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None


def built_ahead(capture: OutputCapture, job: CaseJob) -> Any | None:
    """The result of ``job`` done ahead on exactly what ``capture`` holds (waiting for it), or None."""
    built = capture.ahead
    if not isinstance(built, _Order) or (built.generation, built.total) != (capture.generation, capture.total):
        return None
    if built.key != job.key:
        return None
    if built.result.cancel():       # not started yet (the helper is behind): the page does it now
        return None
    try:
        return built.result.result()
    except Exception:       # the helper process failed (or was stopped): the page does the work
        return None


def done(capture: OutputCapture, job: CaseJob) -> Any:
    """The result of ``job`` for the page: the one done ahead when it fits, else done now."""
    result = built_ahead(capture, job)
    return job.function(capture, *job.args) if result is None else result
