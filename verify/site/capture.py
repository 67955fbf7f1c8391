"""A bounded copy of what a program printed, kept beside its judging for the replay pages.

:class:`OutputCapture` keeps the first ``head`` bytes and the last ``tail`` bytes of an
output and counts the rest: memory stays bounded whatever the program prints, and the
cost per chunk is one copy of at most ``head + tail`` bytes. :func:`capturing` wraps a
:class:`BatchTask` so that its judge is fed as before and the capture sees the same
chunks first; nothing else of the run changes, and a run without ``--html`` is not
wrapped at all.
"""
from __future__ import annotations

import dataclasses

from verify.challenges.contract import BatchTask, StreamJudge
from verify.verdict import Verdict

HEAD_BYTES = 64 << 10
TAIL_BYTES = 64 << 10


class OutputCapture:
    """The head and the tail of an output; ``whole`` when nothing between them was dropped."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES):
        self.head_limit, self.tail_limit = head, tail
        self.reset()

    def reset(self) -> None:
        self.head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self.tail_limit:
            if len(chunk) >= self.tail_limit:
                self._tail[:] = chunk[-self.tail_limit:]
            else:
                self._tail += chunk
                excess = len(self._tail) - self.tail_limit
                if excess > 0:
                    del self._tail[:excess]

    @property
    def tail(self) -> bytes:
        return bytes(self._tail)

    @property
    def whole(self) -> bool:
        return self.total == len(self.head) + len(self._tail)

    @property
    def tail_offset(self) -> int:
        """Where the tail starts in the output."""
        return self.total - len(self._tail)

    def output(self) -> bytes | None:
        """The whole output when it was all kept, else None."""
        return bytes(self.head + self._tail) if self.whole else None


class _CapturingJudge:
    """A StreamJudge that hands each chunk to the capture, then to the real judge."""

    def __init__(self, judge: StreamJudge, capture: OutputCapture):
        self.judge, self.capture = judge, capture

    def feed(self, chunk: bytes) -> Verdict | None:
        self.capture.add(chunk)
        return self.judge.feed(chunk)

    def finish(self) -> Verdict:
        return self.judge.finish()


def capturing(task: BatchTask, capture: OutputCapture) -> BatchTask:
    """``task`` with its judge's input also kept in ``capture`` (the last run's, if it runs twice)."""
    make_judge = task.judge

    def judge() -> StreamJudge:
        made = make_judge()
        capture.reset()
        return _CapturingJudge(made, capture)

    return dataclasses.replace(task, judge=judge)
