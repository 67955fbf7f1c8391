"""A table of text cells, left-aligned, in tabulate's "simple" and "github" layouts, and text
wrapped to a terminal's columns (the check report's compact view lays out its own columns with
`padded` and `wrap`).

The check report is written by this module rather than by tabulate: importing tabulate (with
the importlib.metadata and wcwidth it loads) costs a `verify check` several times what the
table's layout does, on the critical path or on a core the runs need. The other reports,
which align numbers, still use tabulate.

Cells are text already escaped for the terminal or for Markdown (verify/report_escape.py):
one line each, no control character but the colours' own SGR sequences
(verify/reports/colour.py), which take no width. Each cell is shown stripped (the headers as
they are), as tabulate does. A character's width is what a terminal gives it: 2 for East
Asian wide and fullwidth ones, 0 for combining marks, else 1.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

MIN_PADDING = 2                      # a header's room beyond its text, as tabulate leaves it
_SGR = re.compile(r"\x1b\[[0-9;]*m")  # a colour: no width


def width(text: str) -> int:
    """The columns `text` takes on a terminal."""
    plain = _SGR.sub("", text)
    if plain.isascii():
        return len(plain)
    return sum(0 if unicodedata.combining(character) else
               2 if unicodedata.east_asian_width(character) in "WF" else 1 for character in plain)


def padded(text: str, columns: int) -> str:
    """`text` followed by the spaces that make it `columns` wide."""
    return text + " " * (columns - width(text))


def wrap(text: str, columns: int) -> list[str]:
    """`text`'s words in lines at most `columns` wide (a longer word broken where it must be),
    as textwrap does by characters, here by the columns a terminal gives them."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        while width(word) > columns:
            room = columns - width(line) - (1 if line else 0)
            if line and width(word[:1]) > room:     # (not even its first character fits after the line)
                lines.append(line)
                line, room = "", columns
            cut = _fitting(word, room)
            lines.append(f"{line} {word[:cut]}" if line else word[:cut])
            line, word = "", word[cut:]
        if line and width(line) + 1 + width(word) > columns:
            lines.append(line)
            line = ""
        line = f"{line} {word}" if line else word
    if line or not lines:
        lines.append(line)
    return lines


def _fitting(word: str, columns: int) -> int:
    """How many of `word`'s first characters fit in `columns` (at least one)."""
    for count in range(1, len(word) + 1):
        if width(word[:count]) > columns:
            return max(1, count - 1)
    return len(word)


def table(rows: Sequence[Sequence[str]], headers: Sequence[str], layout: str = "simple") -> str:
    """`rows` under `headers`: "simple" (columns two spaces apart, the headers underlined, each
    line without trailing spaces) or "github" (a Markdown pipe table)."""
    if layout not in ("simple", "github"):
        raise ValueError(f"unknown table layout {layout!r}")
    rows = [[cell.strip() for cell in row] for row in rows]     # as tabulate shows them
    columns = [max([width(header) + MIN_PADDING, *(width(row[index]) for row in rows)])
               for index, header in enumerate(headers)]
    if layout == "simple":
        lines = ["  ".join(padded(cell, size) for cell, size in zip(line, columns, strict=True)).rstrip()
                 for line in [headers, ["-" * size for size in columns], *rows]]
    else:
        lines = ["| " + " | ".join(padded(cell, size) for cell, size in zip(line, columns, strict=True)) + " |"
                 for line in [headers, *rows]]
        lines.insert(1, "|" + "|".join("-" * (size + 2) for size in columns) + "|")
    return "\n".join(lines)
