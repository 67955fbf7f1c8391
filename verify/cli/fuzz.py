"""``verify fuzz ENTRY``."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from verify.cli.options import runner_option


@click.command()
@click.argument("entry", type=click.Path(path_type=Path))
@click.option("--runs", type=click.IntRange(min=1), default=None,
              help="Inputs to try (default: 100 when --time is not given).")
@click.option("--time", "seconds", type=click.FloatRange(min=0.01), default=None,
              help="Seconds to keep trying new inputs (instead of --runs).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="The same seed and --runs give the same inputs and the same shrink.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs at the same time (the result does not depend on it).")
@click.option("--save", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the minimal failing input into DIR as fuzz-<failure>.txt (a test case).")
@click.option("--max-size", type=click.IntRange(min=2), default=None,
              help="Largest input, in the contest's own measure (a board's side, a route's length...; "
                   "each contest has its default: docs/fuzz.md).")
@click.option("--time-limit", type=click.FloatRange(min=0.01), default=5.0, show_default=True,
              help="Wall-time limit per run, seconds.")
@click.option("--step-timeout", type=click.FloatRange(min=0.01), default=None,
              help="Interactive matches: seconds a player has to answer one step (default: the contest's).")
@click.option("--ignore", multiple=True, metavar="CLASS",
              help="A failure class that does not count (as printed, e.g. 'wrong: step limit'); repeatable.")
@click.option("--replay", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Run the entry once on a saved input FILE (a --save file) instead of fuzzing.")
@runner_option
def fuzz(entry: Path, runs: int | None, seconds: float | None, seed: int, jobs: int, save: Path | None,
         max_size: int | None, time_limit: float, step_timeout: float | None, ignore: tuple[str, ...],
         replay: Path | None, runner: Any) -> None:
    """Run ENTRY (an entry folder) on generated valid inputs of its contest until one fails,
    then shrink that input to a minimal one that fails the same way (the same rule broken,
    the same kind of presentation error, time limit or crash), print it with its verdict
    and the commands that reproduce it.

    Exit code 0 when nothing failed, 1 when a failure was found, 2 on bad usage."""
    from verify.commands.fuzz import FuzzOptions, fuzz_entry
    from verify.commands.fuzz import replay as replay_case
    from verify.errors import VerifyError
    from verify.runner import Limits

    if runs is not None and seconds is not None:
        raise VerifyError("give --runs or --time, not both")
    if replay is not None and (runs is not None or seconds is not None or save is not None):
        raise VerifyError("--replay runs one saved input: it takes no --runs, --time or --save")
    options = FuzzOptions(seed=seed, runs=runs, seconds=seconds, jobs=jobs, save=save, max_size=max_size,
                          limits=Limits(wall_time=time_limit, cpu_time=time_limit), step_timeout=step_timeout,
                          ignore=ignore)
    if replay is not None:
        text, code = replay_case(runner, entry, replay, options)
    else:
        text, code = fuzz_entry(runner, entry, options)
    click.echo(text)
    sys.exit(code)
