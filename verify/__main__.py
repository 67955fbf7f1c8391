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
    from verify.contests import quick
    from verify.environment import contest_folders
    command = quick.find(kind, name, contest_folders())
    if command is None:
        return False
    _signals_to_the_reaper()
    try:
        return command(arguments)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as error:          # a bug of ours, as the full command line says it
        from verify.cli import internal_error
        from verify.settings import from_process
        internal_error(error, from_process())


SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")    # the reaper's (a test checks they agree)


def _signals_to_the_reaper() -> None:
    """A signal ends a quick command as it ends the full command line (the reaper's handlers:
    its message, exit 128 + N), without importing the reaper unless a signal comes: the first
    one installs the reaper's handlers and is raised again for them. A signal ignored when
    verify starts stays ignored, as the reaper leaves it. (``_signal``: the functions of
    :mod:`signal` without the enums it wraps their numbers in, and without importing enum.)"""
    import _signal  # type: ignore[import-not-found]  # (no stubs: signal's own functions)

    def hand_over(number: int, frame: object) -> None:
        from verify.runner import reaper
        reaper.install_signal_handlers()
        _signal.raise_signal(number)

    for name in SIGNALS:
        number = getattr(_signal, name, None)
        if number is not None and _signal.getsignal(number) != _signal.SIG_IGN:
            _signal.signal(number, hand_over)


if __name__ == "__main__":
    run()
