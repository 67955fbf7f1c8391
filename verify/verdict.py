"""One verdict type for every contest."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Status(enum.StrEnum):
    ACCEPTED = "accepted"
    WRONG = "wrong"                       # the contest's judge says why
    PRESENTATION = "presentation error"   # output that cannot be read as the contest's format
    TIME_LIMIT = "time limit"
    MEMORY_LIMIT = "memory limit"
    OUTPUT_LIMIT = "output limit"
    RUNTIME_ERROR = "runtime error"       # exit code or signal, with the tail of stderr
    COMPILE_ERROR = "compile error"
    JUDGE_ERROR = "judge error"           # our fault, or the input's: never the entry's

    @property
    def short(self) -> str:
        return _SHORT[self]

    def __str__(self) -> str:
        return self.value


_SHORT = {
    Status.ACCEPTED: "AC", Status.WRONG: "WA", Status.PRESENTATION: "PE",
    Status.TIME_LIMIT: "TLE", Status.MEMORY_LIMIT: "MLE", Status.OUTPUT_LIMIT: "OLE",
    Status.RUNTIME_ERROR: "RE", Status.COMPILE_ERROR: "CE", Status.JUDGE_ERROR: "JE",
}


@dataclass
class Verdict:
    """The result of judging one output (or one run) of one entry on one case.

    ``message`` is one line naming exactly what went wrong (turn, square, rule),
    ``detail`` may hold more lines (e.g. two maps side by side), ``stats`` holds
    contest figures (attempts, deaths, turns, score...), ``warnings`` are listed
    without failing.
    """

    status: Status
    message: str = ""
    detail: str = ""
    warnings: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return self.status is Status.ACCEPTED

    def summary(self) -> str:
        """The verdict in one short line: ``"time limit: still running after 2 s (wall time)"``."""
        return f"{self.status}: {self.message}" if self.message else str(self.status)

    @classmethod
    def accept(cls, message: str = "", **stats: Any) -> Verdict:
        return cls(Status.ACCEPTED, message, stats=dict(stats))

    @classmethod
    def wrong(cls, message: str, detail: str = "", **stats: Any) -> Verdict:
        return cls(Status.WRONG, message, detail, stats=dict(stats))

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "message": self.message,
            "detail": self.detail,
            "warnings": list(self.warnings),
            "stats": dict(self.stats),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Verdict:
        """The inverse of :meth:`to_dict`; a ValueError names what does not fit."""
        if not isinstance(data, dict):
            raise ValueError(f"a verdict is an object, not {type(data).__name__}")
        try:
            status = Status(data["status"])
        except (KeyError, ValueError):
            raise ValueError(f"unknown verdict status {str(data.get('status'))[:40]!r}") from None
        message, detail = data.get("message", ""), data.get("detail", "")
        warnings, stats = data.get("warnings", []), data.get("stats", {})
        if not (isinstance(message, str) and isinstance(detail, str) and isinstance(stats, dict)
                and isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)):
            raise ValueError("a verdict's message, detail, warnings or stats has the wrong type")
        return cls(status, message, detail, list(warnings), dict(stats))
