"""Colour on a terminal: whether to use it (the settings' choice: NO_COLOR, FORCE_COLOR), and the
colour of each verdict.

Plain ANSI codes, no library: reports stay importable without anything heavy, and a report
written with ``colour=False`` holds no escape at all."""
from __future__ import annotations

from typing import Protocol

from verify.verdict import Status

_RESET = "\x1b[0m"
_GREEN, _RED, _YELLOW, _MAGENTA = "\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[35m"
STATUS_COLOURS = {
    Status.ACCEPTED: _GREEN,
    Status.WRONG: _RED, Status.PRESENTATION: _RED,
    Status.TIME_LIMIT: _YELLOW, Status.MEMORY_LIMIT: _YELLOW, Status.OUTPUT_LIMIT: _YELLOW,
    Status.RUNTIME_ERROR: _YELLOW,
    Status.COMPILE_ERROR: _MAGENTA, Status.JUDGE_ERROR: _MAGENTA,
}
ERROR_COLOUR = _MAGENTA          # an entry that could not be checked at all


class _Stream(Protocol):
    def isatty(self) -> bool: ...


def use_colour(stream: _Stream | None, chosen: bool | None) -> bool:
    """Colour for ``stream``? ``chosen`` (the settings' ``colour``: ``NO_COLOR`` says no,
    ``FORCE_COLOR`` yes or no, ``TERM=dumb`` no) when it says; else only on a terminal."""
    if chosen is not None:
        return chosen
    if stream is None:
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):     # a closed or odd stream
        return False


def paint(text: str, code: str | None, colour: bool) -> str:
    """``text`` in ``code``'s colour when ``colour``, else ``text`` itself."""
    return f"{code}{text}{_RESET}" if colour and code and text else text


def paint_status(text: str, status: Status | None, colour: bool) -> str:
    return paint(text, STATUS_COLOURS[status] if status is not None else ERROR_COLOUR, colour)
