"""The `verify` command line: thin click commands over the library, loaded lazily.

Every subcommand lives in its own module and is imported only when it runs (or
when a help page lists it), following click's documented LazyGroup pattern, so
``import verify.cli`` stays cheap. Contests add commands through their
``commands`` table (:class:`~verify.contests.contract.Contest`): to the groups
``judge``, ``solve``, ``gen`` and ``koth``, and a group of their own (``verify <contest> ...``).

Every bad input ends in one line on stderr and exit code 2; a rejected entry
exits 1; success exits 0.
"""
from __future__ import annotations

import gc
import importlib
import sys
from typing import TYPE_CHECKING, NoReturn

import click

from verify.errors import VerifyError

if TYPE_CHECKING:
    from verify.settings import Settings

CORE_COMMANDS = {
    "check": "verify.cli.check:check",
    "rank": "verify.cli.rank:rank",
    "langs": "verify.cli.langs:langs",
    "speed": "verify.cli.speed:speed",
    "cache": "verify.cli.cache:cache",
    "results": "verify.cli.results:results",
    "fuzz": "verify.cli.fuzz:fuzz",
}
TOURNAMENT_COMMAND = "verify.cli.koth:koth_command"
CONTEST_GROUPS = {
    "judge": "Judge a saved output offline (no program is run).",
    "solve": "Solve a puzzle with a contest's reference solver.",
    "gen": "Generate test inputs for a contest.",
    "koth": "Run a King-of-the-Hill tournament.",
}


def load_command(path: str) -> click.Command:
    module_name, _, attribute = path.partition(":")
    return _click_command(getattr(importlib.import_module(module_name), attribute), path)


def _click_command(found: object, path: str) -> click.Command:
    if not isinstance(found, click.Command):
        raise VerifyError(f"{path} is not a click command")
    return found


def _contest_commands(kind: str) -> dict[str, str]:
    """contest name -> import path of its command of this kind ("" for its own group)."""
    from verify import contests
    found = {}
    for name in contests.names():
        try:
            path = contests.get(name).commands.get(kind)
        except VerifyError:         # a contest that does not load: listed nowhere; using it says why
            continue
        if path:
            found[name] = path
        elif kind == "koth" and contests.get(name).tournament:
            found[name] = TOURNAMENT_COMMAND
    return found


def _contest_command(contest: str, kind: str) -> click.Command | None:
    """The contest's command of this kind ("" for its own group), or None."""
    from verify import contests
    if contest not in contests.names():
        return None
    path = contests.get(contest).commands.get(kind)
    if not path and kind == "koth" and contests.get(contest).tournament:
        from verify.cli.koth import koth_command  # any contest with a Tournament: the core's driver
        return koth_command(contests.get(contest))
    return _click_command(contests.get(contest).load_part("command", path), path) if path else None


class ContestGroup(click.Group):
    """``verify judge|solve|gen|koth <contest>``: one subcommand per contest that has one."""

    def __init__(self, name: str, **kwargs: object):
        super().__init__(name, help=CONTEST_GROUPS[name], **kwargs)  # type: ignore[arg-type]

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_contest_commands(self.name or ""))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return _contest_command(cmd_name, self.name or "")


class MainGroup(click.Group):
    """The top level: the core commands, the contest groups, and each contest's own group."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        _use_contest_paths(ctx)        # (--help can come before --contest-path is read)
        return sorted({*CORE_COMMANDS, *CONTEST_GROUPS, *_contest_commands("")})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        _use_contest_paths(ctx)
        if cmd_name in CORE_COMMANDS:
            return load_command(CORE_COMMANDS[cmd_name])
        if cmd_name in CONTEST_GROUPS:
            return ContestGroup(cmd_name)
        return _contest_command(cmd_name, "")


def _add_contest_paths(ctx: click.Context, parameter: click.Parameter, value: tuple[str, ...]) -> None:
    from pathlib import Path

    from verify.cli.options import given
    # (click calls this for every command line, with or without the option)
    given(ctx, contest_path=tuple(Path(folder) for folder in value))
    _use_contest_paths(ctx)


def _use_contest_paths(ctx: click.Context) -> None:
    """The settings' contest folders (the options' first, then $VERIFY_CONTEST_PATH's) are looked in."""
    from verify.cli.options import settings_of
    folders = settings_of(ctx).contest_path
    if folders:
        from verify import contests
        for folder in folders:
            contests.add_contest_path(folder)


@click.group(cls=MainGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="verify")
@click.option("--contest-path", multiple=True, metavar="DIR", expose_value=False, is_eager=True,
              callback=_add_contest_paths,
              help="Also load contests from DIR (a contest package, or a folder of them); repeatable. "
                   "Also: $VERIFY_CONTEST_PATH.")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Judge programming-puzzle contest entries: run them safely, replay their
    output against the rules, give exact verdicts, rank them."""
    if ctx.invoked_subcommand is None:      # plain `verify`: the help, and success
        click.echo(ctx.get_help())
        ctx.exit(0)


def run() -> None:
    """Console entry point: no traceback for a bad input, ever. The process ends with it."""
    try:
        _run()
    finally:
        # What is left is freed by the process's end: the interpreter's last collections of
        # every object verify made (two full passes) cost more than the rest of its exit. The
        # exit still runs every atexit and weakref.finalize callback, and frees by reference
        # count what holds no cycle.
        gc.freeze()


def _run() -> None:
    from verify.runner import reaper
    from verify.settings import from_process
    # SIGINT, SIGTERM, SIGHUP, SIGQUIT: kill every run in flight, remove its folder, exit 128+N
    reaper.install_signal_handlers()
    settings = from_process()       # the one read of the environment; passed down from here
    try:
        main(standalone_mode=False, obj=settings)
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
        internal_error(error, settings)


def internal_error(error: Exception, settings: Settings) -> NoReturn:
    """A bug of ours: one line saying so, exit 3 (with VERIFY_DEBUG, the traceback); called
    from an ``except`` block."""
    click.echo(f"verify: internal error: {type(error).__name__}: {error} "
               "(please report it; rerun with VERIFY_DEBUG=1 for the traceback)", err=True)
    if settings.debug:
        raise error
    sys.exit(3)
