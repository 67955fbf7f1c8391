"""``verify speed [CONTEST]``: the speed table of a code-golf contest."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from verify.cli.options import runner_option


@click.command()
@click.argument("contest", required=False)
@click.option("--submissions", type=click.Path(path_type=Path), default=Path("submissions"), show_default=True)
@click.option("--testcases", type=click.Path(path_type=Path), default=None)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--time-limit", type=click.FloatRange(min=0.01), default=10.0, show_default=True,
              help="Seconds per case.")
@runner_option
def speed(contest: str | None, submissions: Path, testcases: Path | None, jobs: int, time_limit: float,
          runner: Any) -> None:
    """Entries of CONTEST by total wall time over every case (passing entries first); with no
    CONTEST, of every contest whose rules rank by speed."""
    from verify.commands.speed import speed_contests, speed_table  # (the check's jobs) not for --help
    from verify.runner import Limits
    limits = Limits(wall_time=time_limit, cpu_time=time_limit)
    click.echo("\n\n".join(speed_table(runner, submissions, testcases, jobs, limits, name)
                           for name in speed_contests(contest)))
