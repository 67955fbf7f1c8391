"""``verify check ENTRY...``."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from verify.cli.options import format_option, limit_options, make_limits, runner_option
from verify.commands.check import check as run_check


@click.command()
@click.argument("entries", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Runs at the same time (default: the number of cores).")
@format_option("table", "json", "junit", "markdown")
@click.option("--testcases", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of test cases (default: testcases/<challenge>).")
@click.option("--case", "cases", multiple=True, metavar="PATTERN",
              help="Only the cases whose name matches (shell pattern, e.g. 'one-row-*'; repeatable).")
@limit_options
@runner_option
def check(entries: tuple[Path, ...], jobs: int | None, output_format: str, testcases: Path | None,
          cases: tuple[str, ...], runner: Any, **limits: Any) -> None:
    """Run each ENTRY (an entry folder) on its contest's test cases and its own demo.

    Exit code 0 when every case of every entry is accepted, 1 otherwise."""
    report, code = run_check(runner, entries, jobs=jobs, fmt=output_format, testcases=testcases,
                             limits=make_limits(**limits), cases=cases)
    click.echo(report)
    sys.exit(code)
