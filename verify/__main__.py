"""``verify``'s console entry point (and ``python -m verify``): a built-in contest's quick
command where one takes the arguments as given (:mod:`verify.contests.quick`), else the full
command line (:func:`verify.cli.run`), with the same output either way.

The quick way imports neither click nor the contests' discovery, so that a command such as
``verify gen echo --size 10`` costs little more than the interpreter's start.
"""
from __future__ import annotations

import sys


def run() -> None:
    """Console entry point: no traceback for a bad input, ever."""
    arguments = sys.argv[1:]
    if len(arguments) >= 2 and not arguments[0].startswith("-") and _quick(arguments[0], arguments[1], arguments[2:]):
        return
    from verify.cli import run as full
    full()


def _quick(kind: str, name: str, arguments: list[str]) -> bool:
    """Whether the contest's quick command of this kind ran (False: nothing was done)."""
    from verify.settings import from_process
    settings = from_process()
    from verify.contests import quick
    command = quick.find(kind, name, settings.contest_path)
    if command is None:
        return False
    from verify.runner.reaper import install_signal_handlers
    install_signal_handlers()           # as the full command line: a signal ends verify with 128 + N
    try:
        return command(arguments, settings)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as error:          # a bug of ours, as the full command line says it
        from verify.cli import internal_error
        internal_error(error, settings)


if __name__ == "__main__":
    run()
