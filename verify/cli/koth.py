"""``verify koth <contest>``: the tournament of any contest that has one (its
:class:`~verify.contests.contract.Tournament`), played by the core's driver
(:mod:`verify.pipeline.tournament`). The options every tournament has are here; a
contest adds its own (``Tournament.options``), given to it as text, and its presets
(``Tournament.presets``: ``--preset NAME``). Results are kept in the cache's ``matches``
folder and reused (``--fresh``: none reused); stderr ends with how many were."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from verify.cli.options import cluster_option, report_format_option, runner_option, settings_of
from verify.contests.contract import Contest, Presenter, Tournament, TournamentOption
from verify.errors import VerifyError
from verify.reports.formats import KOTH

if TYPE_CHECKING:
    from verify.pipeline.match_cache import MatchCache


def _key(option: TournamentOption) -> str:
    return option.name.lstrip("-").replace("-", "_")


def _contest_option(option: TournamentOption) -> click.Option:
    return click.Option([option.name, _key(option)], default=option.default, show_default=option.default is not None,
                        help=option.help)


def _with_preset(context: click.Context, tournament: Tournament[Any, Any], preset: str | None,
                 own: dict[str, str | None]) -> dict[str, str | None]:
    """The contest's options with the preset's values for those not given on the command line."""
    if preset is None:
        return own
    (chosen,) = [p for p in tournament.presets if p.name == preset]
    given = {key for key in own if context.get_parameter_source(key) is ParameterSource.COMMANDLINE}
    return {**own, **{key: value for key, value in chosen.values.items() if key not in given}}


def _preset_option(tournament: Tournament[Any, Any]) -> click.Option:
    names = [preset.name for preset in tournament.presets]
    about = "; ".join(f"{preset.name}: {preset.help}" for preset in tournament.presets)
    return click.Option(["--preset"], type=click.Choice(names), default=None,
                        help=f"A named set of this tournament's options (the ones given win). {about}")


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
    @click.option("--fresh", is_flag=True,
                  help="Play every match again, reusing none kept in the cache (the new results are kept).")
    @click.option("--html", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
                  help="Also write a static site to DIR: the boards, and the contest's pages of its matches.")
    @runner_option
    @cluster_option
    def koth(entries: tuple[Path, ...], jobs: int, output_format: str, logs: Path | None, quiet: bool, fresh: bool,
             html: Path | None, runner: Any, cluster: str | None, preset: str | None = None,
             **own: str | None) -> None:
        options = tournament.parse_options(_with_preset(click.get_current_context(), tournament, preset, own))
        run_koth(contest, tournament, entries, options, jobs=jobs, output_format=output_format,
                 logs=logs, quiet=quiet, fresh=fresh, html=html, runner=runner, cluster=cluster)

    koth.params[1:1] = [_contest_option(option) for option in tournament.options] + \
        ([_preset_option(tournament)] if tournament.presets else [])
    return koth


def _match_cache(cache: Path, contest: Contest, tournament: Tournament[Any, Any], isolation: str | None,
                 fresh: bool) -> MatchCache | None:
    """The cache of the tournament's results; None when the workers' isolations differ (a result
    would be kept under one isolation's name)."""
    import sys

    from verify.commands.cache import contest_digest, package_digest, toolchain
    from verify.pipeline.match_cache import FOLDER, MatchCache

    if isolation is None:
        return None
    context = [package_digest(), contest_digest(type(contest).__module__),
               contest_digest(type(tournament).__module__), contest.name, isolation, sys.version]
    return MatchCache(cache / FOLDER, context, toolchain, fresh=fresh)


def _summary(cache: MatchCache) -> str:
    total = cache.reused + cache.played
    unkept = f"; not kept: {cache.unkept}" if cache.unkept else ""
    return f"matches: {cache.reused} of {total} reused from the cache, {cache.played} played{unkept}"


def run_koth(contest: Contest, tournament: Tournament[Any, Any], entries: tuple[Path, ...], options: Any, *, jobs: int,
             output_format: str, logs: Path | None, quiet: bool, fresh: bool, html: Path | None, runner: Any,
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

        ran_under = runner.isolation if executor is None else executor.isolation(runner.isolation)
        kept = _match_cache(cache, contest, tournament, ran_under, fresh)
        standings = play_tournament(Grader(runner, executor), contest, contestants, options, jobs=jobs,
                                    log_dir=log_dir, progress=progress, cache=kept)
        isolation = ran_under or "the cluster's workers differ"
    click.echo(render(KOTH, output_format, standings, isolation), nl=False)
    if html is not None and presenter is not None:
        from verify.reports.isolation import differences_of
        from verify.site import write_koth_site
        # a contest without a presenter of its own: the site's index, with no board
        write_koth_site(html, presenter, standings.result, isolation=isolation,
                        differences=differences_of(isolation))
    if not quiet:
        if kept is not None:
            click.echo(_summary(kept), err=True)
        click.echo(f"match logs: {log_dir}", err=True)
