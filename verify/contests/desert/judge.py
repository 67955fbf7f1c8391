"""The offline/streaming judge of one desert output: a :class:`verify.contests.contract.StreamJudge`."""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, cast

from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import STANDARD, Notation
from verify.contests.desert.transcript import Transcript, TranscriptError
from verify.verdict import Status, Verdict

PipeReader = Callable[[int, int], tuple[int, bool, Verdict | None]]   # (fd, budget) -> (read, ended, verdict)


class PipeTranscript(Protocol):
    """A transcript that reads a pipe itself (:meth:`kernel.FastTranscript.read_from`)."""

    piped: int

    def read_from(self, fd: int, budget: int) -> bool: ...

    def feed_held(self) -> None: ...


class DesertJudge:
    """Feeds a :class:`Transcript` and turns its first failure, or its end, into one :class:`Verdict`.

    After a rejection, further chunks are ignored and ``finish`` returns the same verdict.
    """

    def __init__(self, desert: DesertMap, notation: Notation = STANDARD, order: str = "moves-first",
                 deaths: str = "turns", problem: str | None = None, fast: bool = True):
        self.map = desert
        self.transcript: Transcript = _transcript(desert, notation, order, deaths, fast)
        # the fast path's transcript also reads a pipe itself
        self._pipe = cast(PipeTranscript, self.transcript) if hasattr(self.transcript, "read_from") else None
        self.verdict: Verdict | None = None
        if problem is not None:   # a case that cannot be passed (e.g. a trivial demo map)
            self.verdict = Verdict.wrong(problem)

    def feed(self, chunk: bytes) -> Verdict | None:
        if self.verdict is not None:
            return self.verdict
        try:
            self.transcript.feed(chunk)
        except TranscriptError as failure:
            self.verdict = self._rejected(failure)
        return self.verdict

    def pipe_reader(self) -> PipeReader | None:
        """The judge reading the run's stdout pipe itself (see :meth:`read_from`), when its
        compiled loop can: else None, and the runner feeds it chunks."""
        return self.read_from if self.verdict is None and self._pipe is not None else None

    def read_from(self, fd: int, budget: int) -> tuple[int, bool, Verdict | None]:
        """Read and judge at most ``budget`` bytes from the non-blocking pipe ``fd``, in this
        thread (the loop releases the GIL): (bytes read, whether the pipe is closed, the early
        verdict or None). The same bytes give the same verdict as ``feed``."""
        pipe = self._pipe
        if self.verdict is not None or pipe is None:
            return 0, False, self.verdict
        before = pipe.piped
        ended = False
        try:
            ended = pipe.read_from(fd, budget)
        except TranscriptError as failure:
            self.verdict = self._rejected(failure)
        return pipe.piped - before, ended, self.verdict

    def finish(self) -> Verdict:
        if self.verdict is not None:
            return self.verdict
        try:
            if self._pipe is not None:
                self._pipe.feed_held()
            self.transcript.finish()
        except TranscriptError as failure:
            self.verdict = self._rejected(failure)
            return self.verdict
        transcript = self.transcript
        self.verdict = Verdict.accept(
            f"won in attempt {transcript.winning_attempt} after {transcript.deaths} "
            f"death{'s' if transcript.deaths != 1 else ''}",
            **self._stats())
        self.verdict.warnings = list(transcript.warnings)
        return self.verdict

    def _stats(self) -> dict[str, int]:
        transcript = self.transcript
        return {"attempts": transcript.attempts, "deaths": transcript.deaths,
                "winning_turns": transcript.winning_turns,
                "total_turns": transcript.total_turns + transcript.current_turn}

    def _rejected(self, failure: TranscriptError) -> Verdict:
        status = Status.PRESENTATION if failure.presentation else Status.WRONG
        verdict = Verdict(status, failure.message, failure.detail, stats=self._stats())
        verdict.stats["failure"] = type(failure).__name__
        verdict.warnings = list(self.transcript.warnings)
        return verdict


def _transcript(desert: DesertMap, notation: Notation, order: str, deaths: str, fast: bool) -> Transcript:
    """The fast path: a compiled kernel replays the bulk of the turns when it can read the
    notation; ``fast=False``, or without a C compiler to build the kernel, the exact path
    alone (the same verdicts, more slowly)."""
    if fast:
        from verify.contests.desert.kernel import make_transcript  # ctypes: only once judging
        return make_transcript(desert, notation, order, deaths, fast=True)
    return Transcript(desert, notation, order, deaths)


def judge_bytes(desert: DesertMap, output: bytes, chunk_size: int = 1 << 16, **options) -> Verdict:
    """Judge a whole output at once (fed in chunks, as a run would be)."""
    judge = DesertJudge(desert, **options)
    for start in range(0, len(output), chunk_size):
        if judge.feed(output[start:start + chunk_size]) is not None:
            break
    return judge.finish()
