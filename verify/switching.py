"""A shorter thread switch interval while some work runs beside a thread that waits on processes.

The interval is the whole interpreter's (:func:`sys.setswitchinterval`), and two such pieces of
work may overlap (a check's isolation resolved while its report's modules load): the shortest
interval asked for holds while any is running, and the interval from before the first comes back
when the last ends.
"""
from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_asked: list[float] = []
_before = [sys.getswitchinterval()]


@contextmanager
def switching_every(seconds: float) -> Iterator[None]:
    """The interpreter switches threads at least every ``seconds`` within this block."""
    with _lock:
        if not _asked:
            _before[0] = sys.getswitchinterval()
        _asked.append(seconds)
        sys.setswitchinterval(min([_before[0], *_asked]))
    try:
        yield
    finally:
        with _lock:
            _asked.remove(seconds)
            sys.setswitchinterval(min([_before[0], *_asked]))
