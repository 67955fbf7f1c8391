"""``verify langs``: every language, found or missing, with its version, after a self-test."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from verify.reports.languages import languages_report
from verify.runner import Isolation
from verify.runner.selftest import check_languages


def langs(keys: list[str], fmt: str, *, isolation: Isolation, environment: Mapping[str, str],
          cache: Path) -> tuple[str, int]:
    """The report of each language (self-tested under `isolation`, built in `cache`, its version
    probed in `environment`), and 0 when every one works."""
    statuses = check_languages(keys or None, isolation=isolation, environment=environment, cache=cache)
    return languages_report(statuses, isolation.name, fmt), 0 if all(s.ok for s in statuses) else 1
