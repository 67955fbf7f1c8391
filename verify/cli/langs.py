"""``verify langs [LANGUAGE...]``."""
from __future__ import annotations

import sys
from typing import Any

import click

from verify.cli.options import report_format_option, runner_option, settings_of
from verify.reports.formats import LANGS


@click.command()
@click.argument("languages", nargs=-1)
@report_format_option(LANGS)
@runner_option
def langs(languages: tuple[str, ...], output_format: str, runner: Any) -> None:
    """List the languages, found or missing, with their versions, after a self-test."""
    from verify.commands.langs import langs as run_langs  # (tabulate, the self-test) not for --help
    settings = settings_of(click.get_current_context())
    report, code = run_langs(list(languages), fmt=output_format, isolation=runner.resolved,
                             environment=settings.environment, cache=settings.cache)
    click.echo(report)
    sys.exit(code)
