"""``verify langs``: every language, found or missing, with its version, after a self-test."""
from __future__ import annotations

from verify.reports.languages import languages_report
from verify.runner import isolation_name
from verify.runner.selftest import check_languages


def langs(keys: list[str], fmt: str) -> tuple[str, int]:
    statuses = check_languages(keys or None)
    return languages_report(statuses, isolation_name(), fmt), 0 if all(s.ok for s in statuses) else 1
