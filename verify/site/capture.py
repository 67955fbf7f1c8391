"""A bounded copy of what a program printed, kept beside its judging for the replay pages.

:class:`OutputCapture` keeps the first ``head`` bytes and the last ``tail`` bytes of an
output and counts the rest: memory stays bounded whatever the program prints, and the
cost per chunk is one copy of at most ``head + tail`` bytes. :func:`capturing` wraps a
:class:`BatchTask` so that its judge is fed as before and the capture sees the same
chunks first, and is told the judge's verdict as soon as it has one (so that the replay
can be built while the other runs go on); nothing else of the run changes, and a run
without ``--html`` is not wrapped at all.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from verify.contests.contract import BatchTask, StreamJudge
from verify.verdict import Verdict

HEAD_BYTES = 64 << 10
TAIL_BYTES = 64 << 10


class OutputCapture:
    """The head and the tail of an output; ``whole`` when nothing between them was dropped."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES):
        self.head_limit, self.tail_limit = head, tail
        self.generation = 0         # how many times it was reset: one per run of the case
        self.ahead: Any = None      # the replay built from it while the runs go on (verify.site.ahead)
        self.reset()

    def reset(self) -> None:
        self.generation += 1
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

    def copy(self) -> OutputCapture:
        """What it holds now, apart."""
        copied = OutputCapture(self.head_limit, self.tail_limit)
        copied.head, copied._tail, copied.total = bytearray(self.head), bytearray(self._tail), self.total
        return copied

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


Judged = Callable[[OutputCapture, Verdict], None]


class _CapturingJudge:
    """A StreamJudge that hands each chunk to the capture, then to the real judge; and its
    verdict, once, to ``judged``."""

    def __init__(self, judge: StreamJudge, capture: OutputCapture, judged: Judged | None):
        self.judge, self.capture, self.judged = judge, capture, judged

    def feed(self, chunk: bytes) -> Verdict | None:
        self.capture.add(chunk)
        verdict = self.judge.feed(chunk)
        if verdict is not None:
            self._tell(verdict)
        return verdict

    def finish(self) -> Verdict:
        verdict = self.judge.finish()
        self._tell(verdict)
        return verdict

    def _tell(self, verdict: Verdict) -> None:
        judged, self.judged = self.judged, None
        if judged is not None:
            try:
                judged(self.capture, verdict)
            except Exception:   # the pages build their replays themselves: never a verdict changed
                pass


def capturing(task: BatchTask, capture: OutputCapture, judged: Judged | None = None) -> BatchTask:
    """``task`` with its judge's input also kept in ``capture`` (the last run's, if it runs twice);
    ``judged(capture, verdict)`` is called once a run's judge has its verdict."""
    make_judge = task.judge

    def judge() -> StreamJudge:
        made = make_judge()
        capture.reset()
        return _CapturingJudge(made, capture, judged)

    return dataclasses.replace(task, judge=judge)
