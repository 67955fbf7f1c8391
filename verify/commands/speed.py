"""A code-golf contest's second table: entries that solve every case, ranked by total solving time.

The byte ranking is `verify rank NAME`; this is `verify speed NAME`, for any code-golf
contest, and with no name for every contest whose rules have a speed table
(``Contest.speed_table``). Cases run one at a time by default (--jobs 1) so entries do not
slow each other down.
"""
from __future__ import annotations

from pathlib import Path

from tabulate import tabulate

from verify import contests
from verify.commands.jobs import load_checks, run_checks
from verify.commands.rank import code_golf_contests
from verify.entries import find_entries
from verify.errors import VerifyError
from verify.grading import Runner
from verify.report_escape import one_line
from verify.runner import Limits


def speed_contests(contest: str | None) -> list[str]:
    """The contest named (a code-golf one), or every contest whose rules rank by speed."""
    if contest is not None:
        return code_golf_contests(contest)
    named = [name for name in contests.names() if contests.get(name).speed_table]
    if not named:
        raise VerifyError("no contest here ranks by speed: name a code-golf contest (verify speed NAME)")
    return named


def speed_table(runner: Runner, submissions: Path, testcases: Path | None, jobs: int, limits: Limits,
                contest: str) -> str:
    rows = []
    for check in run_checks(runner, load_checks(find_entries(submissions, contest), testcases), limits, jobs):
        total = sum(r.time for r in check.results)
        cpu = sum(r.cpu_time for r in check.results)
        slowest = max(check.results, key=lambda r: r.time, default=None)
        rows.append((not check.passed, total if check.passed else 0.0, check.label, total, cpu,
                     f"{slowest.case} {slowest.time:.3f}" if slowest else "",
                     "" if check.passed else check.why_not))
    rows.sort(key=lambda row: row[:3])
    table = []
    place = 0
    for failed, _, label, total, cpu, slowest_case, why in rows:
        place += 0 if failed else 1
        table.append(["-" if failed else place, one_line(label), f"{total:.3f}", f"{cpu:.3f}",
                      one_line(slowest_case), one_line(why)])
    return f"Speed: {contest} (total wall seconds over every case, jobs={jobs})\n" + tabulate(
        table, ["rank", "entry", "total s", "cpu s", "slowest case (s)", "not ranked because"],
        tablefmt="simple")
