"""The contest's second table: entries that solve every case, ranked by total solving time.

The byte ranking is the generic `verify rank arrows`; this is `verify speed arrows`.
Cases run one at a time by default (--jobs 1) so entries do not slow each other down.
"""
from __future__ import annotations

from pathlib import Path

import click
from tabulate import tabulate

from verify.checking import load_checks, run_checks
from verify.entries import find_entries
from verify.report_escape import one_line
from verify.runner import Limits


def speed_table(submissions: Path, testcases: Path | None, jobs: int, limits: Limits,
                challenge: str = "arrows") -> str:
    checks = run_checks(load_checks(find_entries(submissions, challenge), testcases), limits, jobs)
    rows = []
    for check in checks:
        total = sum(r.time for r in check.results)
        cpu = sum(r.cpu_time for r in check.results)
        slowest = max(check.results, key=lambda r: r.time, default=None)
        rows.append((not check.passed, total if check.passed else 0.0, check.label, total, cpu,
                     f"{slowest.case} {slowest.time:.3f}" if slowest else "",
                     "" if check.passed else check.why_not))
    rows.sort(key=lambda row: row[:3])
    table = []
    place = 0
    for failed, _, label, total, cpu, slowest, why in rows:
        place += 0 if failed else 1
        table.append(["-" if failed else place, one_line(label), f"{total:.3f}", f"{cpu:.3f}", one_line(slowest),
                      one_line(why)])
    return f"Speed: {challenge} (total wall seconds over every case, jobs={jobs})\n" + tabulate(
        table, ["rank", "entry", "total s", "cpu s", "slowest case (s)", "not ranked because"],
        tablefmt="simple")


@click.group("speed")
def speed_command() -> None:
    """Rank entries by total solving time (for contests with a speed table)."""


@speed_command.command("arrows")
@click.option("--submissions", type=click.Path(path_type=Path), default=Path("submissions"), show_default=True)
@click.option("--testcases", type=click.Path(path_type=Path), default=None)
@click.option("--jobs", "-j", type=int, default=1, show_default=True)
@click.option("--time-limit", type=float, default=10.0, show_default=True, help="Seconds per case.")
def arrows_speed(submissions: Path, testcases: Path | None, jobs: int, time_limit: float) -> None:
    """Arrow path entries by total wall time over every case (passing entries first)."""
    limits = Limits(wall_time=time_limit, cpu_time=time_limit)
    click.echo(speed_table(submissions, testcases, jobs, limits))
