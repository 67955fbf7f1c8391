"""Results of judging, as plain data that round-trips through JSON.

A :class:`CaseResult` is one program run (or one match) with its verdict and
measures; a :class:`CheckResult` is one entry's check: its case results, or why
it could not be checked at all. ``to_dict``/``from_dict`` (and the JSON forms)
are exact inverses, so results written by one run (a shard, a cache) are read
back by another without running anything again.

A check kept on disk (the result cache, a shard) is :func:`stored_check`: the check with
the key it is stored under and the digest of its content, so that a file is served only
under its own key and whole (:func:`read_stored_check`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from verify.errors import VerifyError
from verify.verdict import Verdict


class ResultsFormatError(VerifyError):
    """Results read back (a cache file, a shard) that are not what this version writes."""


def _field(data: Any, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
    if not isinstance(data, dict):
        raise ResultsFormatError(f"expected an object, found {type(data).__name__}")
    if key not in data:
        if default is ...:
            raise ResultsFormatError(f"missing field {key!r}")
        return default
    value = data[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float)):
        raise ResultsFormatError(f"field {key!r}: unexpected {type(value).__name__}")
    return value


@dataclass
class CaseResult:
    """One entry on one case: the verdict, and what the run cost."""

    entry: str                     # the entry's label (contest/folder)
    case: str
    verdict: Verdict
    time: float = 0.0              # wall seconds
    memory: int = 0                # peak resident bytes
    cpu_time: float = 0.0
    isolation: str = ""
    stdout_bytes: int = 0

    @property
    def passed(self) -> bool:
        return self.verdict.accepted

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.entry, "case": self.case, "verdict": self.verdict.to_dict(),
                "time": round(self.time, 4), "cpu_time": round(self.cpu_time, 4), "memory": self.memory,
                "stdout_bytes": self.stdout_bytes, "isolation": self.isolation}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        try:
            verdict = Verdict.from_dict(_field(data, "verdict", dict))
        except ValueError as error:
            raise ResultsFormatError(str(error)) from None
        return cls(entry=_field(data, "entry", str), case=_field(data, "case", str), verdict=verdict,
                   time=_field(data, "time", float, 0.0), memory=_field(data, "memory", int, 0),
                   cpu_time=_field(data, "cpu_time", float, 0.0), isolation=_field(data, "isolation", str, ""),
                   stdout_bytes=_field(data, "stdout_bytes", int, 0))


@dataclass
class CheckResult:
    """One entry's check: its case results, or why it could not be checked at all."""

    label: str
    results: list[CaseResult] = field(default_factory=list)
    error: str | None = None       # broken entry.toml, no cases, ...

    @property
    def passed(self) -> bool:
        return self.error is None and bool(self.results) and all(r.passed for r in self.results)

    @property
    def why_not(self) -> str:
        """Why the entry does not pass, in one line ("" when it passes)."""
        if self.error:
            return self.error
        failed = [r for r in self.results if not r.passed]
        if not failed:
            return "" if self.results else "no cases"
        first = failed[0]
        message = f": {first.verdict.message}" if first.verdict.message else ""
        more = f" (and {len(failed) - 1} more failed)" if len(failed) > 1 else ""
        return f"{first.case}: {first.verdict.status}{message}{more}"

    def to_dict(self) -> dict[str, Any]:
        return {"entry": self.label, "passed": self.passed, "error": self.error,
                "cases": [r.to_dict() for r in self.results]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CheckResult:
        error = _field(data, "error", (str, type(None)), None)
        cases = _field(data, "cases", list, [])
        return cls(_field(data, "entry", str), [CaseResult.from_dict(c) for c in cases], error)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes) -> CheckResult:
        try:
            data = json.loads(text)
        except ValueError as error:
            raise ResultsFormatError(f"not JSON: {error}") from None
        return cls.from_dict(data)


STORED_FORMAT = "verify check result 2"


def _content_digest(check: dict[str, Any]) -> str:
    canonical = json.dumps(check, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def stored_check(key: str, result: CheckResult) -> bytes:
    """The bytes of ``result`` kept under ``key``: its JSON form, the key, and the content's digest."""
    check = CheckResult(result.label, result.results, result.error).to_dict()
    return json.dumps({"format": STORED_FORMAT, "key": key, "sha256": _content_digest(check),
                       "check": check}).encode()


def read_stored_check(data: bytes, key: str) -> CheckResult:
    """The check :func:`stored_check` wrote under ``key``; a ResultsFormatError for anything else:
    another format, a file under another key's name (renamed, copied), a content that does
    not match its digest (truncated, edited)."""
    try:
        stored = json.loads(data)
    except ValueError as error:
        raise ResultsFormatError(f"not JSON: {error}") from None
    if _field(stored, "format", str, "") != STORED_FORMAT:
        raise ResultsFormatError(f"not a stored check of this version (expected format {STORED_FORMAT!r})")
    if _field(stored, "key", str) != key:
        raise ResultsFormatError("stored under another key than its own (renamed or copied)")
    check = _field(stored, "check", dict)
    if _field(stored, "sha256", str) != _content_digest(check):
        raise ResultsFormatError("its content does not match its digest (truncated or edited)")
    return CheckResult.from_dict(check)
