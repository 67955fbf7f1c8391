"""Boxes kept idle for the next run of the same key (fork servers, sandboxes built
ahead): at most `limit` in all, the least recently kept dropped first. Thread-safe; what
it drops or drains is the caller's to close (outside its lock)."""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

T = TypeVar("T")


class IdleBoxes(Generic[T]):
    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._boxes: OrderedDict[Hashable, list[T]] = OrderedDict()

    def take(self, key: Hashable) -> T | None:
        """The box kept last for `key`, no longer kept; None when none waits."""
        with self._lock:
            waiting = self._boxes.get(key)
            found = waiting.pop() if waiting else None
            if waiting == []:
                del self._boxes[key]
        return found

    def keep(self, key: Hashable, box: T) -> list[T]:
        """Keep `box` for `key`; the boxes dropped to stay within the limit."""
        dropped: list[T] = []
        with self._lock:
            self._boxes.setdefault(key, []).append(box)
            self._boxes.move_to_end(key)
            while sum(len(boxes) for boxes in self._boxes.values()) > self._limit:
                oldest_key, oldest = next(iter(self._boxes.items()))
                dropped.append(oldest.pop(0))
                if not oldest:
                    del self._boxes[oldest_key]
        return dropped

    def count(self, key: Hashable | None = None) -> int:
        """How many wait (for `key`, or in all)."""
        with self._lock:
            if key is not None:
                return len(self._boxes.get(key, ()))
            return sum(len(boxes) for boxes in self._boxes.values())

    def boxes(self) -> list[T]:
        with self._lock:
            return [box for boxes in self._boxes.values() for box in boxes]

    def drain(self) -> list[T]:
        """Every box, no longer kept."""
        with self._lock:
            everything = [box for boxes in self._boxes.values() for box in boxes]
            self._boxes.clear()
        return everything
