"""How text an entry controls is shown: on a terminal, in Markdown, in XML. One way each.

Entries control much of what reports show: their stderr and output (quoted in verdicts),
their folder names, the strings of their entry.toml. Every output path passes such text
through one of these functions:

- :func:`visible` for a terminal (tables, plain text): control characters (C0, DEL, C1),
  lone surrogates (an undecodable byte read with ``surrogateescape`` shows as the byte),
  line and paragraph separators, bidirectional overrides and other invisible format
  characters are shown as escapes (``\\x1b``, ``\\t``, ``\\u202e``); ``lines=True`` keeps
  the newline (and the tab) where a multi-line detail is meant to be shown;
- :func:`markdown` for a Markdown table cell or inline text: :func:`visible`, then every
  character Markdown or HTML give a meaning (`` \\ ` * _ [ ] < > | # ! ~ & $ ``) is
  backslash-escaped and line breaks become ``<br>``, so a row stays one row;
- :func:`xml_text` for XML text and attribute values: :func:`visible` with lines kept,
  which leaves only characters XML 1.0 allows (ElementTree escapes ``& < > "``).

A backslash of the text itself is left alone in :func:`visible` (``\\x1b`` typed by an entry
looks like an escaped ESC; it is harmless, and paths stay readable).
"""
from __future__ import annotations

import re

# Besides the C0 controls: DEL and the C1 controls, surrogates, line/paragraph separators,
# bidirectional marks, embeddings, overrides and isolates, zero-width characters, the BOM,
# interlinear annotations, and the two non-characters XML forbids.
_OTHER_UNSAFE = ("\x7f-\x9f\ud800-\udfff\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069"
                 "\ufeff\ufff9-\ufffb\ufffe\uffff")
_UNSAFE_CHARACTER = re.compile(f"[\x00-\x1f{_OTHER_UNSAFE}]")
_UNSAFE_IN_LINES = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHER_UNSAFE}]")    # keeps tab and newline
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>|#!~&$]")


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    code = ord(character)
    if character in _NAMED:
        return _NAMED[character]
    if code < 0x100:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:          # a byte that was not UTF-8, read with surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def visible(text: str, lines: bool = False) -> str:
    """``text`` with every character a terminal would act on, or would not show, escaped;
    ``lines``: keep newlines and tabs (a multi-line detail)."""
    pattern = _UNSAFE_IN_LINES if lines else _UNSAFE_CHARACTER
    return pattern.sub(_escape, str(text))


def one_line(text: str) -> str:
    """:func:`visible` on one line: runs of whitespace (newlines too) become one space."""
    return visible(" ".join(str(text).split()))


def markdown(text: str) -> str:
    """``text`` as one Markdown table cell (or inline text): escaped, on one line."""
    parts = str(text).replace("\r\n", "\n").split("\n")
    return "<br>".join(_MARKDOWN_SPECIAL.sub(r"\\\g<0>", visible(part)) for part in parts)


def xml_text(text: str) -> str:
    """``text`` for XML 1.0 (text or attribute value): only characters XML allows remain."""
    return visible(text, lines=True)
