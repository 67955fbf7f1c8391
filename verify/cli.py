"""The `verify` command line: thin click commands over the library.

Every bad input ends in one line on stderr and exit code 2; a rejected entry
exits 1; success exits 0. Contest-specific commands live in each contest's
``cli`` module (``register(main)``, adding to the groups
judge/solve/gen/koth or to ``main``) and are attached here by ``_attach_challenge_commands``.
"""
from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import click

from verify import challenges
from verify.cli_options import sandbox_option
from verify.errors import VerifyError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="verify")
def main() -> None:
    """Judge programming-puzzle contest entries: run them safely, replay their
    output against the rules, give exact verdicts, rank them."""


@main.group()
def judge() -> None:
    """Judge a saved output offline (no program is run)."""


@main.group()
def solve() -> None:
    """Solve a puzzle with a contest's reference solver."""


@main.group()
def gen() -> None:
    """Generate test inputs for a contest."""


@main.group()
def koth() -> None:
    """Run a King-of-the-Hill tournament."""


# -- generic commands: check, rank, langs (the work is in verify.commands) ----------------

def _limit_options(function):
    options = [
        click.option("--time", "wall_time", type=click.FloatRange(min=0.01), default=10.0, show_default=True,
                     help="Wall-time limit per run, seconds."),
        click.option("--cpu", "cpu_time", type=click.FloatRange(min=0.01), default=None,
                     help="CPU-time limit per run, seconds (default: the wall-time limit)."),
        click.option("--memory", "memory_mb", type=click.IntRange(min=1), default=1024, show_default=True,
                     help="Memory limit per run, MiB."),
        click.option("--output", "output_mb", type=click.IntRange(min=1), default=1024, show_default=True,
                     help="Stdout limit per run, MiB."),
        click.option("--processes", type=click.IntRange(min=1), default=64, show_default=True,
                     help="Process limit per run."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@main.command()
@click.argument("entries", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Runs at the same time (default: the number of cores).")
@click.option("--format", "output_format", type=click.Choice(["table", "json", "junit", "markdown"]),
              default="table", show_default=True)
@click.option("--testcases", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of test cases (default: testcases/<challenge>).")
@click.option("--case", "cases", multiple=True, metavar="PATTERN",
              help="Only the cases whose name matches (shell pattern, e.g. 'one-row-*'; repeatable).")
@_limit_options
@sandbox_option
def check(entries, jobs, output_format, testcases, cases, **limits) -> None:
    """Run each ENTRY (an entry folder) on its contest's test cases and its own demo.

    Exit code 0 when every case of every entry is accepted, 1 otherwise."""
    from verify import commands
    sys.exit(commands.check(entries, jobs=jobs, fmt=output_format, testcases=testcases,
                            limits=commands.make_limits(**limits), cases=cases))


@main.command()
@click.argument("challenge", required=False)
@click.option("--submissions", type=click.Path(file_okay=False, path_type=Path),
              default="submissions", show_default=True, help="Folder holding <challenge>/<entry>/.")
@click.option("--testcases", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder of test cases (default: testcases/<challenge>).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None)
@click.option("--format", "output_format", type=click.Choice(["table", "json", "markdown"]),
              default="table", show_default=True)
@click.option("--fresh", is_flag=True, help="Re-run every check (ignore cached results).")
@_limit_options
@sandbox_option
def rank(challenge, submissions, testcases, jobs, output_format, fresh, **limits) -> None:
    """Leaderboard of the code-golf entries under --submissions (of CHALLENGE, or all).

    Score: source bytes plus interpreter-flag penalties (docs/entries.md). Only entries
    passing every case are ranked; the others are listed with the reason."""
    from verify import commands
    commands.rank(challenge, submissions=submissions, testcases=testcases, jobs=jobs, fmt=output_format,
                  fresh=fresh, limits=commands.make_limits(**limits))


@main.command()
@click.argument("languages", nargs=-1)
@click.option("--format", "output_format", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@sandbox_option
def langs(languages, output_format) -> None:
    """List the languages, found or missing, with their versions, after a self-test."""
    from verify import commands
    sys.exit(commands.langs(list(languages), fmt=output_format))


def _attach_challenge_commands() -> None:
    for name in challenges.names():
        try:
            cli_module = importlib.import_module(f"verify.challenges.{name}.cli")
        except ModuleNotFoundError as error:
            if error.name != f"verify.challenges.{name}.cli":
                raise
            continue
        cli_module.register(main)


_attach_challenge_commands()


def run() -> None:
    """Console entry point: no traceback for a bad input, ever."""
    from verify.runner import reaper
    # SIGINT, SIGTERM, SIGHUP, SIGQUIT: kill every run in flight, remove its folder, exit 128+N
    reaper.install_signal_handlers()
    try:
        main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("verify: aborted", err=True)
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except VerifyError as error:
        click.echo(f"verify: error: {error}", err=True)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        click.echo("verify: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as error:  # a bug of ours: still one line, and say so
        click.echo(f"verify: internal error: {type(error).__name__}: {error} "
                   "(please report it; rerun with VERIFY_DEBUG=1 for the traceback)", err=True)
        if os.environ.get("VERIFY_DEBUG"):
            raise
        sys.exit(3)
