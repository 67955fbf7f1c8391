"""Desert replays built while the runs go on.

As soon as a case's judge has its verdict, :class:`ReplaysAhead` hands a copy of the case's
captured output to a helper process, at a lower CPU priority than the runs (whose times are
measured), which builds the replay (:func:`~verify.site.desert.desert_replay`). Writing the
site after the runs then mostly finds the replays ready. A replay built ahead is used only
when everything it was built from is what the page is written from (the same run of the
case: its capture was not reset since, nor did it grow; the same verdict figures, the same
map and rules); else, or when the helper process failed, or has not started on it yet (it
runs at a lower priority and may be behind), the page builds the replay itself. The process
is started by the first replay handed over, so a check without desert cases never starts it.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from verify.challenges.desert.map import DesertMap
from verify.challenges.desert.notation import Notation
from verify.site.capture import OutputCapture
from verify.site.desert import desert_replay

NICENESS = 10


@dataclass(frozen=True)
class _Order:
    """What one replay is built from (all of it compared before the replay is used)."""

    generation: int
    total: int
    stats: dict[str, Any]
    rows: str
    rules: tuple[Notation, str, str]
    replay: Future[dict[str, Any]]


def _lower_priority() -> None:
    try:
        os.nice(NICENESS)
    except OSError:     # not allowed here: the helper runs at the runs' priority
        pass


def _build(desert: DesertMap, capture: OutputCapture, stats: dict[str, Any], notation: Notation, order: str,
           deaths: str) -> dict[str, Any]:
    return desert_replay(desert, capture, stats, notation, order, deaths)


class ReplaysAhead:
    """One helper process building desert replays in the order the cases end."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._unavailable = False
        self._lock = threading.Lock()

    def submit(self, capture: OutputCapture, desert: DesertMap, stats: dict[str, Any], notation: Notation,
               order: str, deaths: str) -> None:
        """Build the replay of what ``capture`` holds now (called as the case's judge decides)."""
        with self._lock:
            if self._unavailable:
                return
            if self._pool is None:
                try:
                    self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=_lower_priority)
                except OSError:         # no process can be started here: the pages build the replays
                    self._unavailable = True
                    return
            replay = self._pool.submit(_build, desert, capture.copy(), dict(stats), notation, order, deaths)
        capture.ahead = _Order(capture.generation, capture.total, dict(stats), desert.text(),
                               (notation, order, deaths), replay)

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None


def replay_built_ahead(capture: OutputCapture, desert: DesertMap, stats: dict[str, Any], notation: Notation,
                       order: str, deaths: str) -> dict[str, Any] | None:
    """The replay built ahead from exactly these inputs (waiting for it), or None."""
    built = capture.ahead
    if not isinstance(built, _Order) or (built.generation, built.total) != (capture.generation, capture.total):
        return None
    if built.stats != stats:
        return None
    if built.rows != desert.text() or built.rules != (notation, order, deaths):
        return None
    if built.replay.cancel():       # not started yet (the helper is behind): the page builds it now
        return None
    try:
        return built.replay.result()
    except Exception:       # the helper process failed (or was stopped): the page builds the replay
        return None
