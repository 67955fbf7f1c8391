"""``verify check ENTRY...``."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import click

from verify.cli.options import (
    cluster_option,
    isolation_first,
    limit_options,
    make_limits,
    report_format_option,
    runner_option_beside,
    settings_of,
)
from verify.reports.formats import CHECK, formats_of


def _writes(context: click.Context, parameter: click.Parameter, values: tuple[str, ...]) -> list[tuple[str, Path]]:
    pairs = []
    formats = formats_of(CHECK)
    for value in values:
        fmt, sep, path = value.partition("=")
        if not sep or fmt not in formats or not path:
            raise click.BadParameter(f"expected FORMAT=PATH with FORMAT one of {', '.join(formats)}, "
                                     f"not {value!r}", context, parameter)
        pairs.append((fmt, Path(path)))
    return pairs


@click.command()
@click.argument("entries", nargs=-1, type=click.Path(path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Runs at the same time (default: the number of cores).")
@report_format_option(CHECK)
@click.option("--write", "writes", multiple=True, metavar="FORMAT=PATH", callback=_writes,
              help="Also write the report in FORMAT to PATH (repeatable), e.g. junit=report.xml.")
@click.option("--testcases", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of test cases (default: testcases/<contest>).")
@click.option("--case", "cases", multiple=True, metavar="PATTERN",
              help="Only the cases whose name matches (shell pattern, e.g. 'one-row-*'; repeatable).")
@click.option("--changed-since", metavar="REF",
              help="Only the entries whose folder, or whose contest's test cases, changed since the git REF "
                   "(its merge base with HEAD); without ENTRY, among every entry under ./submissions.")
@click.option("-q", "--failures-only", is_flag=True, help="Show only the failing cases and the summary line.")
@click.option("-x", "--fail-fast", is_flag=True,
              help="Stop each entry at its first failing case: its cases not started yet are not run and the "
                   "report lists them as skipped (such a check is not kept for `verify rank`).")
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also keep each whole check in DIR, for `verify results merge` and `verify rank --results`.")
@click.option("--html", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Also write a static site to DIR: leaderboards, a page per entry, a replay per case.")
@click.option("--fuzz", type=click.IntRange(min=0), default=0, metavar="N",
              help="Also run each entry on N generated inputs (those `verify fuzz ENTRY` tries first).")
@limit_options
@runner_option_beside      # the sandbox is probed and tried while the entries load
@cluster_option
def check(entries: tuple[Path, ...], jobs: int | None, output_format: str, writes: list[tuple[str, Path]],
          testcases: Path | None, cases: tuple[str, ...], changed_since: str | None, failures_only: bool,
          fail_fast: bool, results_dir: Path | None, html: Path | None, fuzz: int, runner: Any, cluster: str | None,
          **limits: Any) -> None:
    """Run each ENTRY (an entry folder) on its contest's test cases and its own demo.

    On a terminal the table is a summary per entry with the failing cases in full (in
    colour unless NO_COLOR is set); piped, it is the full table, one row per case.
    Exit code 0 when every case of every entry is accepted, 1 otherwise."""
    with isolation_first(runner):
        from verify.commands.check import CheckOptions, changed_entries
        from verify.commands.check import check as run_check
        from verify.executors import open_executor
        from verify.reports.colour import use_colour

        selected: list[Path] = list(entries)
        if changed_since is not None:
            selected = changed_entries(selected, changed_since)
            if not selected:
                runner.await_isolation()        # (an isolation that cannot be had is said instead)
                click.echo(f"no entry changed since {changed_since}")
                sys.exit(0)
        elif not selected:
            raise click.UsageError("give ENTRY folders (or --changed-since REF)")
        terminal = sys.stdout.isatty()
        settings = settings_of(click.get_current_context())
        options = CheckOptions(limits=make_limits(**limits), jobs=jobs, fmt=output_format, testcases=testcases,
                               cases=cases, writes=tuple(writes), results_dir=results_dir,
                               failures_only=failures_only, compact=terminal,
                               width=shutil.get_terminal_size().columns if terminal else None,
                               colour=use_colour(sys.stdout, settings.colour), html=html, fuzz=fuzz,
                               fail_fast=fail_fast)
        with open_executor(cluster, runner) as executor:
            report, code = run_check(runner, selected, options, settings=settings, executor=executor)
        click.echo(report)
        sys.exit(code)
