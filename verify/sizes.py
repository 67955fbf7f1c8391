"""Sizes as people write and read them: byte counts in every message and report (``64 MiB``,
``1.5 KiB``, ``12 bytes``), and lists of whole numbers on a command line (``15,20..30:5``)."""
from __future__ import annotations

MAX_VALUES = 10_000
"""The most values a list may name (``1..1000000000`` is a typo, not a tournament)."""


def size(count: int) -> str:
    """Whole units without a decimal (``1 GiB``), others with one (``1.5 MiB``); under 1 KiB in bytes."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            value = count / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count} bytes"


class NumbersError(ValueError):
    """A list of numbers that does not parse: one line naming the option (a command turns it
    into its usage error; this module is below verify's errors)."""


def _quoted(text: str, width: int = 40) -> str:
    shown = repr(text)
    return shown if len(shown) <= width else shown[:width - 4] + "..." + shown[-1:]


def int_list(option: str, text: str) -> list[int]:
    """The numbers ``text`` names, comma-separated, each a number (``15``), a range with both ends
    (``15..50``) or a range with a step (``15..50:5``: 15, 20, ..., 50), in the order given.
    NumbersError for anything else, a number given twice, an empty list or more than
    :data:`MAX_VALUES` numbers."""
    values: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        values += _part(option, part, MAX_VALUES - len(values))
    if not values:
        raise NumbersError(f"{option}: expected comma-separated integers or ranges such as 15,20..30:5, "
                           f"not {_quoted(text)}")
    seen: set[int] = set()
    for value in values:
        if value in seen:
            raise NumbersError(f"{option}: {value} is given twice in {_quoted(text)}")
        seen.add(value)
    return values


def _part(option: str, part: str, room: int) -> list[int]:
    low, dots, rest = part.partition("..")
    high, colon, step = rest.partition(":")
    try:
        if not dots:
            return [int(part)]
        first, last, every = int(low), int(high), int(step) if colon else 1
    except ValueError:
        raise NumbersError(f"{option}: expected comma-separated integers or ranges (LOW..HIGH, "
                           f"LOW..HIGH:STEP), not {_quoted(part)}") from None
    if last < first:
        raise NumbersError(f"{option}: {_quoted(part)} ends below its start")
    if every < 1:
        raise NumbersError(f"{option}: {_quoted(part)} has a step below 1")
    numbers = range(first, last + 1, every)
    if len(numbers) > room:
        raise NumbersError(f"{option}: {_quoted(part)} names more than {MAX_VALUES} numbers")
    return list(numbers)
