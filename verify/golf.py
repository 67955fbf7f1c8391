"""Code-golf scores and leaderboards (the convention is written in docs/entries.md).

Score = the source's bytes as its language counts them (languages.toml `bytes`: UTF-8
octets exactly as stored by default, a trailing newline counting; one byte per
character of a golfing language's own code page; or characters), plus, under the
classic flag rule, a penalty for each interpreter flag: what the flag adds to the plain
invocation of the language.
- a flag of one dash and letters (``-n``, ``-l``, ``-F,``) joins the plain ``-e``
  (``perl -ne``), so it costs its length minus the dash: ``-n`` costs 1, ``-F,`` 2;
- any other flag (``--harmony``, ``-x y``, ``--stack-size=9``) is a word of its own:
  its length plus the separating space.
Under the current Code Golf Stack Exchange rule (a contest's ``flag_rule = "language"``)
a language with flags is another language: no penalty, a board of its own.
`rank --by chars` ranks by characters (Unicode code points) instead.
Ties: the entry first added to the repository (git) wins; then the name.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from verify.entries import Entry
from verify.errors import EntryError, VerifyError
from verify.files import MAX_SOURCE_BYTES, FileRefused, read_entry_file
from verify.runner.languages import Language, codepage, get_language

_BUNDLED_FLAG = re.compile(r"-[A-Za-z0-9][^\s=]*")


class NotInCodePage(VerifyError):
    """A character of a source is not in its language's code page (one line naming it)."""


def flag_penalty(flag: str) -> int:
    if _BUNDLED_FLAG.fullmatch(flag) and not flag.startswith("--"):
        return len(flag) - 1
    return len(flag) + 1


@dataclass(frozen=True)
class Score:
    source_bytes: int                 # as the language counts them (its code page, for Vyxal)
    penalty: int
    chars: int
    flags: tuple[str, ...] = ()
    flag_rule: str = "penalty"

    @property
    def total(self) -> int:
        return self.source_bytes + self.penalty

    def total_by(self, measure: str) -> int:
        """The score in bytes (the default) or in characters; flags cost the same in both."""
        return self.chars + self.penalty if measure == "chars" else self.total

    def header(self, language_name: str, measure: str = "bytes", text: Callable[[str], str] = str,
               code: Callable[[str], str] = lambda flag: f"`{flag}`") -> str:
        """The leaderboard header of the entry's answer, in Code Golf Stack Exchange's form:
        `# Perl -n, 254 + 1 = 255 bytes` (penalty rule), `# Perl `-n`, 57 bytes` (a language with
        flags is another language), `# Vyxal, 12 bytes`. `text` and `code` escape the language's
        name and flags, and write a flag as code (Markdown: report_escape)."""
        unit = "chars" if measure == "chars" else "bytes"
        size = self.chars if measure == "chars" else self.source_bytes
        if self.flag_rule == "language":
            title = " ".join([text(language_name), *(code(flag) for flag in self.flags)])
            return f"# {title}, {size} {unit}"
        title = " ".join(text(word) for word in (language_name, *self.flags))
        if self.penalty:
            return f"# {title}, {size} + {self.penalty} = {size + self.penalty} {unit}"
        return f"# {title}, {size} {unit}"


def count_chars(source: bytes) -> int:
    """Unicode code points of UTF-8 text; not UTF-8: every byte is a character of its own."""
    try:
        return len(source.decode("utf-8"))
    except UnicodeDecodeError:
        return len(source)


def count_bytes(source: bytes, language: Language | None = None) -> int:
    """The source's size as its language counts it (languages.toml `bytes`): UTF-8 octets
    as stored; one byte per character of its code page (NotInCodePage naming the first
    character outside it); or characters."""
    how = language.bytes if language is not None else "utf-8"
    if how == "chars":
        return count_chars(source)
    if how != "codepage":
        return len(source)
    assert language is not None
    page = set(codepage(language.codepage))
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotInCodePage(f"byte {error.start + 1} is not UTF-8: a {language.name} source is written in "
                            f"characters of its code page, in UTF-8") from None
    for index, char in enumerate(text):
        if char not in page:
            line = text.count("\n", 0, index) + 1
            column = index - (text.rfind("\n", 0, index) + 1) + 1
            raise NotInCodePage(f"{char!r} (U+{ord(char):04X}) at line {line}, column {column} is not in "
                                f"{language.name}'s code page (each character of the page counts one byte)")
    return len(text)


def score_source(source: bytes, flags: tuple[str, ...] = (), language: Language | None = None,
                 flag_rule: str = "penalty") -> Score:
    """The score of `source` in `language` (None: counted in UTF-8 bytes) with `flags`."""
    penalty = 0 if flag_rule == "language" else sum(flag_penalty(f) for f in flags)
    return Score(count_bytes(source, language), penalty, count_chars(source), tuple(flags), flag_rule)


def score_entry(entry: Entry, flag_rule: str = "penalty") -> Score:
    """The entry's score; its source is read as at load time (inside the folder, bounded):
    a source that has changed into something else since, or one with a character outside
    its language's code page, is an EntryError."""
    assert entry.source is not None
    try:
        source = read_entry_file(entry.folder, str(entry.source.relative_to(entry.folder)), MAX_SOURCE_BYTES)
    except FileRefused as error:
        raise EntryError(entry.label, "source", str(error)) from None
    language = get_language(entry.language) if entry.language else None
    try:
        return score_source(source, entry.flags, language, flag_rule)
    except NotInCodePage as error:
        raise EntryError(entry.label, "source", str(error)) from None


@dataclass
class Standing:
    label: str
    name: str
    language: str
    score: Score | None
    passed: bool
    why_not: str = ""
    added: int | None = None
    rank: int | None = None
    cases: int = 0
    entry: Entry | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "entry": self.label, "name": self.name, "language": self.language,
                "bytes": self.score.source_bytes if self.score else None,
                "penalty": self.score.penalty if self.score else None,
                "score": self.score.total if self.score else None,
                "chars": self.score.chars if self.score else None,
                "flags": list(self.score.flags) if self.score else [],
                "passed": self.passed, "why_not": self.why_not, "cases": self.cases}


def rank_standings(standings: list[Standing], by: str = "bytes") -> list[Standing]:
    """Passing entries by (score in bytes or chars, first added, name), ranked 1..n (ties
    share no rank: the earlier entry wins); the others after them, unranked."""
    def order(standing: Standing) -> tuple[int, float, str]:
        assert standing.score is not None
        return (standing.score.total_by(by), standing.added if standing.added is not None else float("inf"),
                standing.name)

    ranked = sorted((s for s in standings if s.passed and s.score), key=order)
    for place, standing in enumerate(ranked, 1):
        standing.rank = place
    others = sorted((s for s in standings if not (s.passed and s.score)), key=lambda s: s.label)
    return ranked + others


BoardKey = tuple[str, tuple[str, ...]]     # (language key, flags): one per-language board


def board_key(standing: Standing) -> BoardKey:
    """Which per-language board an entry belongs to: its language, and its flags too when a
    language with flags is another language."""
    flags = standing.score.flags if standing.score and standing.score.flag_rule == "language" else ()
    return (standing.language, flags)


def per_language(standings: list[Standing], by: str = "bytes") -> list[tuple[BoardKey, list[Standing]]]:
    """code.golf-style boards: the passing entries of each language (with its flags, under the
    "language" rule), each board ranked on its own; boards in order of their language key."""
    boards: dict[BoardKey, list[Standing]] = {}
    for standing in standings:
        if standing.passed and standing.score:
            boards.setdefault(board_key(standing), []).append(replace(standing, rank=None))
    return [(key, rank_standings(boards[key], by)) for key in sorted(boards)]
