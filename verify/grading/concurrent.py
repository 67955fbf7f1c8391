"""Judging on the second core: a worker thread replays the output while the runner reads on.

The runner's thread reads the entry's stdout 64 KiB at a time and calls the judge's
``feed`` before it reads again. A judge that replays each chunk right there keeps the
pipe unread meanwhile, so the entry blocks on a full pipe and the two take turns on one
core. :class:`ConcurrentJudge` makes ``feed`` hand the chunk to a worker thread and return
at once; the worker feeds the real judge (whose compiled loop releases the GIL), so the
entry, the runner and the replay run side by side.

Bounded memory: at most ``waiting_chunks`` chunks, and about ``waiting_bytes`` bytes (one
chunk more at most), wait for the worker; ``feed`` blocks when they are all taken
(backpressure on the entry, as a slow judge always gave), whatever size the runner reads.
When the worker falls behind it takes the chunks that wait together (up to 1 MiB, in order)
and feeds them as one: the judge's verdict does not depend on where chunks end, and its
Python work per call is paid once per MiB instead of once per 64 KiB.
A judge that reads the run's pipe itself (its ``pipe_reader()``, see :meth:`ConcurrentJudge.pipe_reader`)
judges in the runner's thread as it reads; the worker is then never started.
Early stop: once the worker has a rejection, the next ``feed`` returns it (at most
``waiting_chunks + 1`` calls after the chunk that holds the failure), so the runner still
stops the program. A crash of the real judge in the worker is a judge error verdict, never
a hang. The worker ends with ``finish``, ``close``, a rejection, or when the judge is
dropped without either (a run killed for a limit is never finished): no thread is left.
"""
from __future__ import annotations

import threading
import weakref
from collections import deque
from collections.abc import Callable

from verify.contests.contract import StreamJudge
from verify.grading.verdicts import judge_crash
from verify.verdict import Verdict

WAITING_CHUNKS = 48      # 3 MiB of 64 KiB chunks, on top of the judge's own state
WAITING_BYTES = 4 << 20  # and no more than ~4 MiB if the runner reads bigger chunks
JOINED_BYTES = 1 << 20   # chunks that wait are fed together, up to this: less Python per byte
THREAD_NAME = "judge-beside-run"   # the worker's name, as a thread listing shows it


class _Mailbox:
    """What the caller's thread and the worker share, under one condition variable."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.chunks: deque[bytes] = deque()
        self.waiting_bytes = 0
        self.closing = False        # no more chunks will come: drain them, then stop
        self.abandoned = False      # stop now, drop what waits
        self.verdict: Verdict | None = None   # the worker's early verdict

    def close(self, abandon: bool) -> None:
        with self.changed:
            self.closing = True
            if abandon:
                self.abandoned = True
                self.chunks.clear()
                self.waiting_bytes = 0
            self.changed.notify_all()


def _work(mailbox: _Mailbox, judge: StreamJudge) -> None:
    """The worker: feed the chunks in order until a verdict, the end, or abandonment.
    Holds no reference to the :class:`ConcurrentJudge`, so dropping that ends this."""
    changed = mailbox.changed
    while True:
        with changed:
            while not mailbox.chunks and not mailbox.closing:
                changed.wait()
            if mailbox.abandoned or not mailbox.chunks:
                return
            chunk = mailbox.chunks.popleft()
            if mailbox.chunks and len(chunk) < JOINED_BYTES:   # behind: take what waits, in order
                taken = [chunk]
                size = len(chunk)
                while mailbox.chunks and size + len(mailbox.chunks[0]) <= JOINED_BYTES:
                    taken.append(mailbox.chunks.popleft())
                    size += len(taken[-1])
                chunk = b"".join(taken)
            mailbox.waiting_bytes -= len(chunk)
            changed.notify_all()            # room for the next chunks: the caller goes on reading
        try:
            verdict = judge.feed(chunk)
        except Exception as error:  # a bug in the judge: a verdict, not a dead thread and a hang
            verdict = judge_crash(error)
        if verdict is not None:
            with changed:
                mailbox.verdict = verdict
                mailbox.chunks.clear()
                mailbox.waiting_bytes = 0
                changed.notify_all()
            return


class ConcurrentJudge:
    """A :class:`StreamJudge` that runs ``judge`` (fed and finished in order) on a worker thread."""

    def __init__(self, judge: StreamJudge, waiting_chunks: int = WAITING_CHUNKS,
                 waiting_bytes: int = WAITING_BYTES):
        if waiting_chunks < 1 or waiting_bytes < 1:
            raise ValueError("waiting_chunks and waiting_bytes must be at least 1")
        self.judge = judge
        self.waiting_chunks = waiting_chunks
        self.waiting_bytes = waiting_bytes
        self._mailbox = _Mailbox()
        self._worker: threading.Thread | None = None     # started by the first chunk
        self._finished: Verdict | None = None
        # a judge dropped without finish() (a run killed for a limit) stops its worker
        self._finalizer = weakref.finalize(self, self._mailbox.close, True)

    def feed(self, chunk: bytes) -> Verdict | None:
        mailbox = self._mailbox
        with mailbox.changed:
            if mailbox.verdict is None and not mailbox.closing:
                while mailbox.verdict is None and (len(mailbox.chunks) >= self.waiting_chunks
                                                   or mailbox.waiting_bytes >= self.waiting_bytes):
                    mailbox.changed.wait()
                if mailbox.verdict is None:
                    mailbox.chunks.append(bytes(chunk))   # a copy if the caller reuses a buffer
                    mailbox.waiting_bytes += len(chunk)
                    mailbox.changed.notify_all()
            verdict = mailbox.verdict
        if verdict is None and self._worker is None:
            self._worker = threading.Thread(target=_work, args=(mailbox, self.judge),
                                            name=THREAD_NAME, daemon=True)
            self._worker.start()
        return verdict

    def pipe_reader(self) -> Callable[[int, int], tuple[int, bool, Verdict | None]] | None:
        """The wrapped judge's own reader of the run's stdout pipe, when it has one and no chunk
        went to the worker: the reading thread then judges as it reads (no worker, no chunk
        handed over; the judge's compiled loop releases the GIL). None: it is fed chunks."""
        if self._worker is not None or self._finished is not None:
            return None
        make = getattr(self.judge, "pipe_reader", None)
        reader: Callable[[int, int], tuple[int, bool, Verdict | None]] | None = make() if make is not None else None
        return reader

    def finish(self) -> Verdict:
        """Wait for the worker to read every chunk, then the judge's final verdict."""
        if self._finished is not None:
            return self._finished
        self._mailbox.close(abandon=False)
        self._join()
        verdict = self._mailbox.verdict
        if verdict is None:
            try:
                verdict = self.judge.finish()
            except Exception as error:
                verdict = judge_crash(error)
        self._finished = verdict
        return verdict

    def close(self) -> None:
        """Stop the worker now, dropping the chunks that wait (the run was abandoned)."""
        self._mailbox.close(abandon=True)
        self._join()

    def _join(self) -> None:
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join()
        self._finalizer.detach()

    @property
    def worker_alive(self) -> bool:
        return self._worker is not None and self._worker.is_alive()
