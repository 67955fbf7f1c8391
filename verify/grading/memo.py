"""What a runner has prepared, kept as long as the runner: each program is prepared once.

The jobs of a check or a tournament are plain data (they may run on another machine), so
each names its program again instead of carrying what was prepared. The runner gives back
what it prepared for the same key, the build's identity (``Recipe.key``: the build cache's
key), so a program is built and its artefact checked once per runner, and a changed file
is a new key: the next command (or the next job of a long-lived worker) sees it. A program
that does not build keeps its error, raised again for every job without building again;
the judge's own failure (:class:`~verify.errors.JudgeFailure`) is never kept. At most
``limit`` programs are kept, the least recently used dropped first.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from verify.errors import JudgeFailure, VerifyError

P = TypeVar("P")

MAX_KEPT = 1024


class _Slot(Generic[P]):
    """One key's outcome; its lock makes a second asker wait for the first one's build."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.prepared: P | None = None
        self.failure: VerifyError | None = None


class PreparedMemo(Generic[P]):
    """Thread-safe: jobs on threads of one process share their runner."""

    def __init__(self, limit: int = MAX_KEPT) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._slots: OrderedDict[Hashable, _Slot[P]] = OrderedDict()

    def get(self, key: Hashable, make: Callable[[], P], usable: Callable[[P], bool] | None = None) -> P:
        """What ``make()`` gave for ``key`` (made now if it never was); the error it raised
        (a VerifyError) raised again. ``usable``: whether what was kept may still be given
        (else it is made again)."""
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                slot = self._slots[key] = _Slot()
                while len(self._slots) > self._limit:
                    self._slots.popitem(last=False)
            else:
                self._slots.move_to_end(key)
        with slot.lock:
            if slot.prepared is not None and usable is not None and not usable(slot.prepared):
                slot.prepared = None
            if slot.prepared is None and slot.failure is None:
                try:
                    slot.prepared = make()
                except JudgeFailure:
                    raise
                except VerifyError as error:
                    slot.failure = error
            if slot.failure is not None:
                raise slot.failure.with_traceback(None)
            assert slot.prepared is not None
            return slot.prepared

    def __len__(self) -> int:
        with self._lock:
            return len(self._slots)
