"""``verify rank [CONTEST]``."""
from __future__ import annotations

import difflib
import shlex
import sys
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from verify.cli.options import limit_options, make_limits, report_format_option, runner_option, settings_of
from verify.errors import VerifyError
from verify.files import write_output
from verify.reports.formats import RANK, format_of_file


class RankCommand(click.Command):
    """Keeps the words it was given: the advice to regenerate a stale file repeats them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["verify.rank.words"] = list(args)
        return super().parse_args(ctx, args)


def file_format(ctx: click.Context, given: str, path: Path | None) -> str:
    """--format when given; else the one the file's suffix names (the registry's: .md, .json,
    .txt); else the table."""
    if path is None or ctx.get_parameter_source("output_format") is ParameterSource.COMMANDLINE:
        return given
    return format_of_file(RANK, path) or given


def regenerate_command(ctx: click.Context) -> str:
    """The command that writes the --check file as this run made it: the same words, with
    --output in place of --check (and no --html, no other --output)."""
    words = ctx.meta.get("verify.rank.words", [])
    kept: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        name, equals, value = word.partition("=")
        if word == "--":                    # what follows is an argument, whatever it looks like
            kept += words[index:]
            break
        if name in ("--check", "--output", "--html"):
            if not equals:
                value = words[index + 1] if index + 1 < len(words) else ""
                index += 1
            if name == "--check":
                kept += ["--output", value]
        else:
            kept.append(word)
        index += 1
    return shlex.join(["verify", "rank", *kept])


@click.command(cls=RankCommand)
@click.argument("contest", required=False)
@click.option("--submissions", type=click.Path(file_okay=False, path_type=Path),
              default="submissions", show_default=True, help="Folder holding <contest>/<entry>/.")
@click.option("--testcases", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of test cases (default: testcases/<contest>).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Runs at the same time for the entries not checked yet (default: the number of cores).")
@report_format_option(RANK)
@click.option("--fresh", is_flag=True, help="Re-run every check (ignore cached results).")
@click.option("--results", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="Rank from the checks stored in DIR (verify check --results-dir, verify results merge); "
                   "run nothing.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the leaderboard to FILE instead of printing it, in the format its suffix names "
                   "(.md: markdown, .json, .txt: table) unless --format is given.")
@click.option("--check", "expected", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Compare with FILE (its format from its suffix, as --output): exit 1 and print the difference "
                   "and the command that regenerates it when it is stale.")
@click.option("--html", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Also write a static site to DIR (leaderboards, entry pages, replays); the replays need the "
                   "outputs, so every entry runs again (with --results: pages without replays, nothing runs).")
@click.option("--by", type=click.Choice(["bytes", "chars"]), default="bytes", show_default=True,
              help="Rank by bytes (as each language counts them) or by characters (Unicode code points).")
@click.option("--per-language", is_flag=True, help="Also a board per language (code.golf's way) after the overall one.")
@limit_options
@runner_option
def rank(contest: str | None, submissions: Path, testcases: Path | None, jobs: int | None, output_format: str,
         fresh: bool, results: Path | None, output: Path | None, expected: Path | None, html: Path | None,
         by: str, per_language: bool, runner: Any, **limits: Any) -> None:
    """Leaderboard of the code-golf entries under --submissions (of CONTEST, or all).

    Score: source bytes plus interpreter-flag penalties (docs/entries.md). Only entries
    passing every case are ranked; the others are listed with the reason. Ties go to the
    entry added first (git history). Exit 0 when some entry is ranked, 1 when none is
    (or the --check file is stale)."""
    from verify.commands.history import shallow_notice
    from verify.commands.rank import RankInputs
    from verify.commands.rank import rank as run_rank
    from verify.reports.leaderboard import standings_text

    context = click.get_current_context()
    output_format = file_format(context, output_format, expected if expected is not None else output)

    notice = shallow_notice(submissions)
    if notice:
        click.echo(f"verify: {notice}", err=True)
    if html is not None:        # first: its runs refresh the cache that the leaderboard then reads
        from verify.commands.site import prepare_site, write_rank_site
        prepare_site(html)
        write_rank_site(html, runner, contest, submissions=submissions, testcases=testcases, jobs=jobs,
                        limits=make_limits(**limits), results=results)
        fresh = False
    inputs = RankInputs(submissions=submissions, testcases=testcases, jobs=jobs, fresh=fresh,
                        limits=make_limits(**limits), results=results)
    boards = run_rank(runner, contest, inputs, settings=settings_of(context), fmt=output_format, by=by,
                      languages_too=per_language)
    text = boards.report.rstrip("\n") + "\n"
    if expected is not None:
        try:
            current = expected.read_text()
        except (OSError, UnicodeDecodeError) as error:
            raise VerifyError(f"--check: cannot read {str(expected)!r}: {error}") from None
        if standings_text(current) != standings_text(text):      # the isolation's lines aside
            click.echo("".join(difflib.unified_diff(current.splitlines(keepends=True), text.splitlines(keepends=True),
                                                    str(expected), "leaderboard now")), nl=False)
            click.echo(f"verify: {expected} is stale; regenerate it with: {regenerate_command(context)}", err=True)
            sys.exit(1)
        click.echo(f"{expected} is up to date")
    elif output is not None:
        write_output(output, text, "leaderboard")
        click.echo(f"leaderboard written to {output}", err=True)
    else:
        click.echo(text, nl=False)
    sys.exit(0 if boards.ranked else 1)
