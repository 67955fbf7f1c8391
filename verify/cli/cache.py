"""``verify cache info|prune|clear``: what the cache holds, and bounding it."""
from __future__ import annotations

import click

from verify.cli.options import report_format_option, settings_of
from verify.reports.cache import human_size
from verify.reports.formats import CACHE


@click.group("cache")
def cache() -> None:
    """What verify keeps between runs (builds, results, tournament logs): show it, bound it, clear it.

    The folder is $VERIFY_CACHE, else $XDG_CACHE_HOME/verify, else ~/.cache/verify.
    `verify check` and `verify rank` prune it to $VERIFY_CACHE_MAX_MB MiB (default 2048; 0: no bound).
    """


@cache.command("info")
@report_format_option(CACHE)
def info(output_format: str) -> None:
    """Each part of the cache with its number of items and its size."""
    from verify.commands.cache_admin import cache_parts
    from verify.reports.cache import cache_report

    root = settings_of(click.get_current_context()).cache
    click.echo(cache_report(root, cache_parts(root), output_format))


@cache.command("prune")
@click.option("--max-size", "max_mb", type=click.IntRange(min=0), default=None, metavar="MiB",
              help="Keep at most this many MiB [default: $VERIFY_CACHE_MAX_MB, else 2048].")
def prune(max_mb: int | None) -> None:
    """Remove the least recently used items until the cache is under the bound
    (what was used in the last minute stays: a run in flight keeps its builds)."""
    from verify.commands.cache_admin import MIB, max_bytes
    from verify.commands.cache_admin import prune as run_prune

    settings = settings_of(click.get_current_context())
    bound = max_mb * MIB if max_mb is not None else max_bytes(settings.cache_max_mb)
    if bound is None:
        click.echo("no bound: $VERIFY_CACHE_MAX_MB is 0 (give --max-size)")
        return
    done = run_prune(bound, settings.cache)
    click.echo(f"removed {done.removed} item{'s' if done.removed != 1 else ''} ({human_size(done.freed)}); "
               f"the cache holds {human_size(done.size_after)} (bound {human_size(bound)})"
               + (f"; {done.kept_recent} used in the last minute kept" if done.kept_recent else ""))


@cache.command("clear")
def clear() -> None:
    """Remove everything verify keeps in the cache (builds are made again when next needed)."""
    from verify.commands.cache_admin import clear as run_clear

    root = settings_of(click.get_current_context()).cache
    done = run_clear(root)
    click.echo(f"removed {done.removed} item{'s' if done.removed != 1 else ''} ({human_size(done.freed)}) "
               f"from {root}")
