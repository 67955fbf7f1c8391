"""One self-erasing progress line on stderr, only when stderr is a terminal."""
from __future__ import annotations

import sys

from verify.report_escape import one_line
from verify.results import CaseResult


class Progress:
    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, result: CaseResult, done: int, total: int) -> None:
        if self.enabled:
            mark = "ok" if result.passed else result.verdict.status.short
            line = f"[{done}/{total}] {one_line(result.entry)} {one_line(result.case)}: {mark}"
            sys.stderr.write("\r\x1b[K" + line[:150])
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
