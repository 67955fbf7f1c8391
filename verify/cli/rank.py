"""``verify rank [CHALLENGE]``."""
from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import Any

import click

from verify.cli.options import format_option, limit_options, make_limits, runner_option
from verify.errors import VerifyError
from verify.files import write_output


@click.command()
@click.argument("challenge", required=False)
@click.option("--submissions", type=click.Path(file_okay=False, path_type=Path),
              default="submissions", show_default=True, help="Folder holding <challenge>/<entry>/.")
@click.option("--testcases", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of test cases (default: testcases/<challenge>).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Runs at the same time for the entries not checked yet (default: the number of cores).")
@format_option("table", "json", "markdown")
@click.option("--fresh", is_flag=True, help="Re-run every check (ignore cached results).")
@click.option("--results", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="Rank from the checks stored in DIR (verify check --results-dir, verify results merge); "
                   "run nothing.")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the leaderboard to FILE instead of printing it (e.g. LEADERBOARD.md).")
@click.option("--check", "expected", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Compare with FILE: exit 1 and print the difference when it is stale.")
@click.option("--html", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Also write a static site to DIR (leaderboards, entry pages, replays); the replays need the "
                   "outputs, so every entry runs again (with --results: pages without replays, nothing runs).")
@click.option("--by", type=click.Choice(["bytes", "chars"]), default="bytes", show_default=True,
              help="Rank by bytes (as each language counts them) or by characters (Unicode code points).")
@click.option("--per-language", is_flag=True, help="Also a board per language (code.golf's way) after the overall one.")
@limit_options
@runner_option
def rank(challenge: str | None, submissions: Path, testcases: Path | None, jobs: int | None, output_format: str,
         fresh: bool, results: Path | None, output: Path | None, expected: Path | None, html: Path | None,
         by: str, per_language: bool, runner: Any, **limits: Any) -> None:
    """Leaderboard of the code-golf entries under --submissions (of CHALLENGE, or all).

    Score: source bytes plus interpreter-flag penalties (docs/entries.md). Only entries
    passing every case are ranked; the others are listed with the reason. Ties go to the
    entry added first (git history). Exit 0 when some entry is ranked, 1 when none is
    (or the --check file is stale)."""
    from verify.commands.history import shallow_notice
    from verify.commands.rank import rank as run_rank

    notice = shallow_notice(submissions)
    if notice:
        click.echo(f"verify: {notice}", err=True)
    if html is not None:        # first: its runs refresh the cache that the leaderboard then reads
        from verify.commands.site import prepare_site, write_rank_site
        prepare_site(html)
        write_rank_site(html, runner, challenge, submissions=submissions, testcases=testcases, jobs=jobs,
                        limits=make_limits(**limits), results=results)
        fresh = False
    boards = run_rank(runner, challenge, submissions=submissions, testcases=testcases, jobs=jobs,
                      fmt=output_format, fresh=fresh, limits=make_limits(**limits), results=results, by=by,
                      languages_too=per_language)
    text = boards.report.rstrip("\n") + "\n"
    if expected is not None:
        try:
            current = expected.read_text()
        except (OSError, UnicodeDecodeError) as error:
            raise VerifyError(f"--check: cannot read {str(expected)!r}: {error}") from None
        if current != text:
            click.echo("".join(difflib.unified_diff(current.splitlines(keepends=True), text.splitlines(keepends=True),
                                                    str(expected), "leaderboard now")), nl=False)
            click.echo(f"verify: {expected} is stale (regenerate it with --output {expected})", err=True)
            sys.exit(1)
        click.echo(f"{expected} is up to date")
    elif output is not None:
        write_output(output, text, "leaderboard")
        click.echo(f"leaderboard written to {output}", err=True)
    else:
        click.echo(text, nl=False)
    sys.exit(0 if boards.ranked else 1)
