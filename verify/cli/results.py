"""``verify results merge``: combine the results of sharded checks."""
from __future__ import annotations

from pathlib import Path

import click


@click.group()
def results() -> None:
    """Check results kept in folders (verify check --results-dir): combine shards for verify rank --results."""


@results.command()
@click.argument("shards", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--into", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The folder that receives every result (created when missing).")
def merge(shards: tuple[Path, ...], into: Path) -> None:
    """Copy the check results of every SHARD folder into one; then `verify rank --results DIR`."""
    from verify.commands.shards import merge_results  # (the results' readers) not for --help
    count = merge_results(shards, into)
    click.echo(f"{count} check results in {into}")
