"""``verify koth <contest>``: the tournament of any contest that has one (its
:class:`~verify.contests.contract.Tournament`), played by the core's driver
(:mod:`verify.pipeline.tournament`). The options every tournament has are here; a
contest adds its own (``Tournament.options``), given to it as text."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from verify.cli.options import cluster_option, report_format_option, runner_option, settings_of
from verify.contests.contract import Contest, Presenter, Tournament, TournamentOption
from verify.errors import VerifyError
from verify.reports.formats import KOTH


def _key(option: TournamentOption) -> str:
    return option.name.lstrip("-").replace("-", "_")


def _contest_option(option: TournamentOption) -> click.Option:
    return click.Option([option.name, _key(option)], default=option.default, show_default=option.default is not None,
                        help=option.help)


def koth_command(contest: Contest) -> click.Command:
    """The ``koth`` command of ``contest`` (which has a tournament)."""
    tournament = contest.load_tournament()
    if tournament is None:
        raise VerifyError(f"{contest.name} entries do not meet in a tournament")
    name = contest.name

    @click.command(name, help=f"""{contest.title}: the tournament among its entries.

    ENTRIES are entry folders (default: every entry under submissions/{name}/). With --cluster
    the matches run on the cluster's workers (--logs on a filesystem they share).""")
    @click.argument("entries", nargs=-1, type=click.Path(path_type=Path))
    @click.option("-j", "--jobs", default=2, show_default=True, type=click.IntRange(1, 64), help="Runs in parallel.")
    @report_format_option(KOTH)
    @click.option("--logs", type=click.Path(path_type=Path), default=None,
                  help=f"Folder for the match logs [default: the cache's {name}-logs/<UTC time>; "
                       "`verify cache prune` removes old ones].")
    @click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
    @click.option("--html", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
                  help="Also write a static site to DIR: the boards, and the contest's pages of its matches.")
    @runner_option
    @cluster_option
    def koth(entries: tuple[Path, ...], jobs: int, output_format: str, logs: Path | None, quiet: bool,
             html: Path | None, runner: Any, cluster: str | None, **own: str | None) -> None:
        run_koth(contest, tournament, entries, tournament.parse_options(own), jobs=jobs, output_format=output_format,
                 logs=logs, quiet=quiet, html=html, runner=runner, cluster=cluster)

    koth.params[1:1] = [_contest_option(option) for option in tournament.options]
    return koth


def run_koth(contest: Contest, tournament: Tournament[Any, Any], entries: tuple[Path, ...], options: Any, *, jobs: int,
             output_format: str, logs: Path | None, quiet: bool, html: Path | None, runner: Any,
             cluster: str | None) -> None:
    from verify.entries import find_entries
    from verify.executors import open_executor
    from verify.files import make_output_folder
    from verify.grading import Grader
    from verify.pipeline.tournament import default_log_dir, load_contestants, play_tournament
    from verify.reports.formats import render

    folders = list(entries) or find_entries(Path("submissions"), contest.name)
    if not folders:
        raise VerifyError(f"no {contest.name} entries (give entry folders, or run from the project's root)")
    contestants = load_contestants(contest, folders)
    cache = settings_of(click.get_current_context()).cache
    log_dir = make_output_folder(logs or default_log_dir(cache, contest.name), "match logs")
    # the presenter before the matches: a site it cannot write is said before, not after, they are played
    presenter = (contest.load_presenter() or Presenter()) if html is not None else None
    if html is not None:
        make_output_folder(html, "site")
    with open_executor(cluster, runner) as executor:
        def progress(message: str) -> None:
            if not quiet:
                workers = executor.workers() if executor is not None else None
                where = f"{workers} worker{'' if workers == 1 else 's'} " if workers is not None else ""
                click.echo(f"{where}{message}", err=True)

        standings = play_tournament(Grader(runner, executor), contest, contestants, options, jobs=jobs,
                                    log_dir=log_dir, progress=progress)
        isolation = (runner.isolation if executor is None
                     else executor.isolation(runner.isolation) or "the cluster's workers differ")
    click.echo(render(KOTH, output_format, standings, isolation), nl=False)
    if html is not None and presenter is not None:
        from verify.reports.isolation import differences_of
        from verify.site import write_koth_site
        # a contest without a presenter of its own: the site's index, with no board
        write_koth_site(html, presenter, standings.result, isolation=isolation,
                        differences=differences_of(isolation))
    if not quiet:
        click.echo(f"match logs: {log_dir}", err=True)
