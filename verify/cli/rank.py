"""``verify rank [CHALLENGE]``."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from verify.cli.options import format_option, limit_options, make_limits, runner_option
from verify.commands.rank import rank as run_rank


@click.command()
@click.argument("challenge", required=False)
@click.option("--submissions", type=click.Path(file_okay=False, path_type=Path),
              default="submissions", show_default=True, help="Folder holding <challenge>/<entry>/.")
@click.option("--testcases", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of test cases (default: testcases/<challenge>).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None)
@format_option("table", "json", "markdown")
@click.option("--fresh", is_flag=True, help="Re-run every check (ignore cached results).")
@limit_options
@runner_option
def rank(challenge: str | None, submissions: Path, testcases: Path | None, jobs: int | None, output_format: str,
         fresh: bool, runner: Any, **limits: Any) -> None:
    """Leaderboard of the code-golf entries under --submissions (of CHALLENGE, or all).

    Score: source bytes plus interpreter-flag penalties (docs/entries.md). Only entries
    passing every case are ranked; the others are listed with the reason."""
    click.echo(run_rank(runner, challenge, submissions=submissions, testcases=testcases, jobs=jobs,
                        fmt=output_format, fresh=fresh, limits=make_limits(**limits)))
