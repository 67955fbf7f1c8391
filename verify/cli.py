"""The `verify` command line: thin click commands over the library.

Every bad input ends in one line on stderr and exit code 2; a rejected entry
exits 1; success exits 0. Contest-specific commands live in each contest's
``cli`` module (``register(main)``, adding to the groups
judge/solve/gen/koth or to ``main``) and are attached here by ``_attach_challenge_commands``.
"""
from __future__ import annotations

import importlib
import sys

import click

from verify import challenges
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
        if __import__("os").environ.get("VERIFY_DEBUG"):
            raise
        sys.exit(3)
