"""The languages table of ``verify langs``."""
from __future__ import annotations

import json
from collections.abc import Sequence

from tabulate import tabulate

from verify.report_escape import one_line
from verify.reports.formats import LANGS, render
from verify.reports.isolation import isolation_fields, isolation_lines
from verify.runner.selftest import LanguageStatus


def languages_report(statuses: Sequence[LanguageStatus], isolation: str, fmt: str) -> str:
    """The languages in ``fmt``, a format of the registry (:mod:`verify.reports.formats`)."""
    return render(LANGS, fmt, statuses, isolation)


def languages_json(statuses: Sequence[LanguageStatus], isolation: str) -> str:
    return json.dumps({**isolation_fields(isolation), "languages": [s.__dict__ for s in statuses]}, indent=2)


def languages_table(statuses: Sequence[LanguageStatus], isolation: str) -> str:
    rows = [[s.key, s.name, "found" if s.found else "missing", one_line(s.version), one_line(s.selftest),
             f"{s.seconds:.2f}" if s.found else ""] for s in statuses]
    table = tabulate(rows, ["language", "name", "status", "version", "self-test", "seconds"], tablefmt="simple",
                     disable_numparse=True)
    return "\n\n".join(filter(None, [table, "\n".join(map(one_line, isolation_lines(isolation)))]))
