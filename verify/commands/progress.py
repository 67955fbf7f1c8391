"""Progress of a check on stderr, only when stderr is a terminal: cases done of all, the time
elapsed, an estimate of the time left, the workers connected (on a cluster), and the last case
finished. It erases itself at the end.

rich draws it; it is imported only when there is a terminal to draw on (``verify.cli`` stays light)."""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from verify.pipeline.observe import Observer
from verify.report_escape import one_line
from verify.results import CaseResult


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Progress(Observer):
    """An observer of a check's jobs (:mod:`verify.pipeline.observe`); ``close()`` when done."""

    def __init__(self, stream: IO[str] | None = None, workers: Callable[[], int | None] | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.workers = workers
        self.enabled = _is_terminal(self.stream)
        self._bar: Any = None
        self._task: Any = None
        if self.enabled:
            self._start()

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

        console = Console(file=self.stream, force_terminal=True, highlight=False)
        self._bar = Bar(TextColumn("checking"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                        TextColumn("{task.description}", markup=False),
                        console=console, transient=True, redirect_stdout=False, redirect_stderr=False)
        self._task = self._bar.add_task("", total=None)
        self._bar.start()

    def finished(self, position: int, result: CaseResult | None, done: int, total: int) -> None:
        if self._bar is None:
            return
        if result is None:
            last = "a case skipped (--fail-fast)"
        else:
            mark = "ok" if result.passed else result.verdict.status.short
            last = one_line(f"{result.entry} {result.case}: {mark}")
        connected = self.workers() if self.workers is not None else None
        if connected is not None:
            last = f"{connected} worker{'' if connected == 1 else 's'} · {last}"
        self._bar.update(self._task, completed=done, total=total, description=last[:60], refresh=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
