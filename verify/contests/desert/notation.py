"""How an entry writes its turns: notations as DATA, and the tokenizer that reads them.

A notation is a table, so that a compiled replayer can turn it into byte tables:

- ``directions``: one character per direction (``{"U": "U", ...}``);
- ``actions``: what follows the direction letter -> a water action, written
  ``"+n"`` / ``"-n"`` (pick up / drop the number that follows), ``"+2"`` / ``"-1"``
  (a fixed amount) or ``"fill"`` (fill up); the key ``""`` is the action of a bare letter;
- ``separators``: characters allowed between turns (and ignored there);
- ``prefix``: text allowed once at the start of each attempt's moves;
- ``pattern`` (optional, custom notations only): a token regex for the ``regex``
  module (run with a timeout) with named groups ``dir``, ``act`` and, when a
  ``+n``/``-n`` action exists, ``n``. Without it, the token pattern is derived
  from the tables (which is what the standard and named notations do).

Rules a notation must follow (checked on load): single ASCII directions that are
neither map characters (``SE1-9.#``: a line starting with one is a map row) nor
separators; modifiers hold no separator character; at most 9 digits per number.
"""
from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.contests.desert.engine import Turn
from verify.contests.desert.rules import DIRECTIONS, DROP, FILL, PICK
from verify.errors import InputError
from verify.files import read_entry_file, read_input

MAP_ROW_CHARACTERS = b"SE123456789.#"
MAX_DIGITS = 9
MAX_TOKEN = 64            # bytes: a longer token is not a token
PATTERN_TIMEOUT = 1.0     # seconds for a custom token pattern on one stretch of output
_CACHE_LIMIT = 4096
MAX_NOTATION_BYTES = 64 << 10   # a notation .toml file


class NotationDefinitionError(ValueError):
    """A notation table that cannot work; ``field`` names the key at fault."""

    def __init__(self, field: str, problem: str):
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


class TokenError(Exception):
    """Text that is not a turn in the notation: ``offset`` into the text given, what was found and expected."""

    def __init__(self, offset: int, found: str, expected: str):
        self.offset, self.found, self.expected = offset, found, expected
        super().__init__(f"expected {expected}, found {found}")


@dataclass(frozen=True)
class ActionSpec:
    """A water action as a notation writes it: ``amount`` None means the number follows."""

    kind: str
    amount: int | None = None

    @classmethod
    def parse(cls, text: str, where: str) -> ActionSpec:
        if text == "fill":
            return cls(FILL, 0)
        match = re.fullmatch(r"([+-])(n|\d)", text)
        if not match:
            raise NotationDefinitionError(where, f"{text!r} is not an action (expected \"+n\", \"-n\", "
                                          "\"+<digit>\", \"-<digit>\" or \"fill\")")
        kind = PICK if match[1] == "+" else DROP
        return cls(kind, None if match[2] == "n" else int(match[2]))

    def __str__(self) -> str:
        if self.kind == FILL:
            return "fill"
        return f"{'+' if self.kind == PICK else '-'}{'n' if self.amount is None else self.amount}"


@dataclass(frozen=True)
class Notation:
    """A notation, as data (see the module docstring)."""

    name: str
    directions: Mapping[str, str]
    actions: Mapping[str, ActionSpec]
    separators: str = " \t\r\n"
    prefix: str = ""
    pattern: str | None = None
    description: str = ""
    _compiled: Tokenizer | None = field(default=None, compare=False, repr=False)

    def __hash__(self) -> int:  # the tables are dicts: hash what they hold (options may be cached by value)
        return hash((self.name, tuple(self.directions.items()), tuple(self.actions.items()),
                     self.separators, self.prefix, self.pattern))

    # ---------------------------------------------------------- what a compiled replayer needs

    @property
    def direction_bytes(self) -> dict[int, str]:
        """Byte of each direction letter -> ``U``/``D``/``L``/``R``."""
        return {ord(letter): direction for letter, direction in self.directions.items()}

    @property
    def modifier_actions(self) -> dict[bytes, tuple[str, int | None]]:
        """Modifier bytes (``b""`` for a bare letter) -> (action kind, fixed amount or None if a number follows)."""
        return {modifier.encode("ascii"): (spec.kind, spec.amount) for modifier, spec in self.actions.items()}

    @property
    def numbers_follow(self) -> bool:
        return any(spec.amount is None for spec in self.actions.values())

    @property
    def separator_bytes(self) -> bytes:
        return self.separators.encode("ascii")

    @property
    def prefix_bytes(self) -> bytes:
        return self.prefix.encode("ascii")

    @property
    def table_driven(self) -> bool:
        """True when tokens are fully described by the tables (no custom regex): compilable to byte tables."""
        return self.pattern is None

    def expected(self) -> str:
        """What a turn looks like, for error messages."""
        letters = ", ".join(self.directions)
        modifiers = [("a bare letter" if not m else f"{m!r}") + (" and a number" if s.amount is None else "")
                     for m, s in self.actions.items()]
        return f"a turn in notation {self.name!r} (a direction {letters} then {' or '.join(modifiers)})"

    def tokenizer(self) -> Tokenizer:
        compiled = self._compiled
        if compiled is None:
            compiled = Tokenizer(self)
            object.__setattr__(self, "_compiled", compiled)
        return compiled

    def to_table(self) -> dict[str, Any]:
        table: dict[str, Any] = {
            "directions": dict(self.directions),
            "actions": {modifier: str(spec) for modifier, spec in self.actions.items()},
            "separators": self.separators, "prefix": self.prefix,
        }
        if self.pattern is not None:
            table["pattern"] = self.pattern
        if self.description:
            table["description"] = self.description
        return table

    # ---------------------------------------------------------- building one from a table

    @classmethod
    def from_table(cls, name: str, table: Mapping[str, Any]) -> Notation:
        """Build and check a notation from a TOML table (errors name the key at fault)."""
        known = {"directions", "actions", "separators", "prefix", "pattern", "description", "name"}
        for key in table:
            if key not in known:
                raise NotationDefinitionError(key, f"unknown key (expected one of {', '.join(sorted(known))})")
        directions = table.get("directions", "UDLR")
        if isinstance(directions, str):
            directions = {letter: letter for letter in directions}
        if not isinstance(directions, Mapping) or not directions:
            raise NotationDefinitionError("directions", "expected a table letter -> U/D/L/R, or a string like \"UDLR\"")
        directions = {str(k): str(v) for k, v in directions.items()}
        actions_table = table.get("actions")
        if not isinstance(actions_table, Mapping) or not actions_table:
            raise NotationDefinitionError("actions", "expected a table modifier -> \"+n\", \"-n\", \"+2\", \"fill\"...")
        actions = {str(modifier): ActionSpec.parse(str(spec), f"actions.{modifier!r}")
                   for modifier, spec in actions_table.items()}
        separators = table.get("separators", " \t\r\n")
        prefix = table.get("prefix", "")
        pattern = table.get("pattern")
        for key, value in (("separators", separators), ("prefix", prefix)):
            if not isinstance(value, str):
                raise NotationDefinitionError(key, "expected a string")
        if pattern is not None and not isinstance(pattern, str):
            raise NotationDefinitionError("pattern", "expected a string (a regular expression)")
        notation = cls(str(table.get("name", name)), directions, actions, separators, prefix, pattern,
                       str(table.get("description", "")))
        notation.check()
        notation.tokenizer()  # compiles the patterns: a bad regex fails here
        return notation

    def check(self) -> None:
        """NotationDefinitionError for the first part of the definition that is wrong."""
        self._check_directions()
        self._check_separators()
        self._check_actions()
        if self.prefix and (self.prefix[0].encode() in [bytes([b]) for b in MAP_ROW_CHARACTERS]
                            or "\n" in self.prefix or len(self.prefix) > 8):
            raise NotationDefinitionError("prefix",
                                          "at most 8 characters, no newline, not starting with a map character")
        if self.pattern is None and self.numbers_follow:
            for modifier, spec in self.actions.items():
                if spec.amount is None and not modifier:
                    raise NotationDefinitionError(f"actions.{modifier!r}",
                                                  "a number needs a non-empty modifier before it")

    def _check_directions(self) -> None:
        for letter, direction in self.directions.items():
            where = f"directions.{letter!r}"
            if direction not in DIRECTIONS:
                raise NotationDefinitionError(where, f"{direction!r} is not a direction (expected U, D, L or R)")
            if len(letter) != 1 or not (32 < ord(letter) < 127):
                raise NotationDefinitionError(where, "a direction is written as one printable ASCII character")
            if letter.encode() in [bytes([b]) for b in MAP_ROW_CHARACTERS]:
                raise NotationDefinitionError(where, "a direction letter may not be a map character (SE1-9.#)")
            if letter in self.separators:
                raise NotationDefinitionError(where, "a direction letter may not be a separator")

    def _check_separators(self) -> None:
        for separator in self.separators:
            if not separator.isspace() and not (32 <= ord(separator) < 127):
                raise NotationDefinitionError("separators", f"{separator!r} is not printable ASCII or whitespace")
        if "\n" not in self.separators:
            raise NotationDefinitionError("separators", "must include the newline \"\\n\"")

    def _check_actions(self) -> None:
        for modifier in self.actions:
            where = f"actions.{modifier!r}"
            if not all(32 <= ord(char) < 127 for char in modifier) or len(modifier) > 8:
                raise NotationDefinitionError(where, "a modifier is at most 8 printable ASCII characters")
            if any(char in self.separators for char in modifier):
                raise NotationDefinitionError(where, "a modifier may not hold a separator character")


def _action_turn(direction: str, spec: ActionSpec, number: bytes | None) -> Turn:
    if spec.amount is not None:
        return Turn(direction, spec.kind, spec.amount)
    if number is None:
        raise ValueError(f"the action {spec} takes the number written after it")
    return Turn(direction, spec.kind, int(number))


class _TurnCache(dict):
    """Token bytes -> Turn, filled on demand (tokens repeat a lot: lookups stay in C)."""

    def __init__(self, parse):
        super().__init__()
        self._parse = parse

    def __missing__(self, token: bytes) -> Turn:
        turn = self._parse(token)
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[token] = turn
        return turn


class Tokenizer:
    """Reads turns out of a stretch of output text in one notation."""

    def __init__(self, notation: Notation):
        self.notation = notation
        seps = notation.separator_bytes
        self.separators = seps
        self._separator_list = [bytes([b]) for b in seps]
        sep_class = b"[" + b"".join(re.escape(bytes([b])) for b in seps) + b"]"
        letters = b"[" + b"".join(re.escape(bytes([b])) for b in notation.direction_bytes) + b"]"
        self._by_modifier = {m.encode("ascii"): spec for m, spec in notation.actions.items()}
        if notation.pattern is None:
            alternatives = []
            for modifier in sorted(self._by_modifier, key=len, reverse=True):
                spec = self._by_modifier[modifier]
                number = rb"[0-9]{1,%d}" % MAX_DIGITS if spec.amount is None else b""
                alternatives.append(re.escape(modifier) + number)
            token = letters + b"(?:" + b"|".join(alternatives) + b")"
            # ``re`` patterns here; ``regex`` ones (an untyped module, run with a timeout) for a custom pattern
            self.token_re: Any = re.compile(token)
            self.cover_re: Any = re.compile(b"(?:" + sep_class + b"*" + token + b")*" + sep_class + b"*")
            self._timeout: float | None = None
            self._groups: Any = None
        else:
            import regex  # only for a custom pattern: the named notations start without it
            try:
                user = regex.compile(notation.pattern.encode("ascii"))
            except (regex.error, UnicodeEncodeError) as error:
                raise NotationDefinitionError("pattern", f"not a valid regular expression: {error}") from None
            for group in ("dir", "act") + (("n",) if notation.numbers_follow else ()):
                if group not in user.groupindex:
                    raise NotationDefinitionError("pattern", f"needs a named group (?P<{group}>...)")
            token = b"(?:" + notation.pattern.encode("ascii") + b")"
            self._groups = user
            self.token_re = regex.compile(b"(" + token + b")")   # group 1: the whole token
            self.cover_re = regex.compile(b"(?:" + sep_class + b"*" + token + b")*" + sep_class + b"*")
            self._timeout = PATTERN_TIMEOUT
        self._turns = _TurnCache(self._parse_token)

    # a token the patterns matched -> its Turn
    def _parse_token(self, token: bytes) -> Turn:
        notation = self.notation
        if self._groups is None:
            direction = notation.direction_bytes[token[0]]
            rest = token[1:]
            spec = self._by_modifier.get(rest)
            if spec is not None and spec.amount is not None:
                return Turn(direction, spec.kind, spec.amount)
            for written, action in self._by_modifier.items():
                if action.amount is None and rest.startswith(written) and rest[len(written):].isdigit():
                    return Turn(direction, action.kind, int(rest[len(written):]))
            raise TokenError(0, _show(token), notation.expected())  # pragma: no cover - the pattern prevents it
        match = self._groups.fullmatch(token, timeout=self._timeout)
        letter = (match["dir"] or b"").decode("ascii", "replace") if match else ""
        if not match or letter not in notation.directions:
            raise TokenError(0, _show(token), f"a direction among {', '.join(notation.directions)} "
                             "(the pattern matched a token the direction table does not know)")
        modifier = (match["act"] or b"").decode("ascii", "replace")
        spec = notation.actions.get(modifier)
        if spec is None:
            raise TokenError(0, _show(token), "a modifier of the action table "
                             f"({', '.join(repr(m) for m in notation.actions)})")
        number = match["n"] if spec.amount is None else None
        if spec.amount is None and (not number or not number.isdigit() or len(number) > MAX_DIGITS):
            raise TokenError(0, _show(token), f"a number after the modifier {modifier!r}")
        return _action_turn(notation.directions[letter], spec, number)

    def _match(self, compiled, text, pos, endpos=None):
        endpos = len(text) if endpos is None else endpos
        if self._timeout is None:
            return compiled.match(text, pos, endpos)
        return compiled.match(text, pos, endpos, timeout=self._timeout)

    def _findall(self, text, pos, endpos):
        if self._timeout is None:
            return self.token_re.findall(text, pos, endpos)
        return self.token_re.findall(text, pos, endpos, timeout=self._timeout)

    def skip_separators(self, text: bytes, pos: int, end: int | None = None) -> int:
        end = len(text) if end is None else end
        seps = self.separators
        while pos < end and text[pos] in seps:
            pos += 1
        return pos

    def tokenize(self, text: bytes, pos: int, final: bool) -> tuple[list[Turn], int]:
        """Turns in ``text[pos:]`` and where reading stopped.

        ``final`` says the text is complete (a whole line or more): otherwise the last
        token is kept back (more bytes may extend it). Raises :class:`TokenError` with
        the offset of the first byte that starts no turn. A custom pattern that runs
        out of time raises ``TimeoutError``.
        """
        end = len(text)
        tokens = self._findall(text, pos, end)
        if self._groups is not None and tokens:
            tokens = [found[0] for found in tokens]
        # Tokens hold no separator byte (checked on load), so when token bytes plus separator
        # bytes add up to the whole text, the tokens cover it: no need to match the cover pattern.
        covered = end
        if sum(map(len, tokens)) + sum(text.count(sep, pos) for sep in self._separator_list) != end - pos:
            covered = self._match(self.cover_re, text, pos).end()
            if covered < end and (final or end - covered >= MAX_TOKEN):
                raise self._error_at(text, covered)
            tokens = self._findall(text, pos, covered)
            if self._groups is not None and tokens:
                tokens = [found[0] for found in tokens]
        if not final and tokens:
            # keep the last token back: its end may be the chunk's, not the token's
            body_end = pos + len(text[pos:covered].rstrip(self.separators))
            covered = body_end - len(tokens[-1])
            tokens.pop()
        try:
            turns = list(map(self._turns.__getitem__, tokens))
        except TokenError:
            # find which token, to say where
            offset = pos
            for token in tokens:
                offset = self.token_re.search(text, offset).start()
                try:
                    self._turns[token]
                except TokenError as error:
                    error.offset = offset
                    raise
                offset += len(token)
            raise
        return turns, covered

    def token_offsets(self, text: bytes, pos: int, count: int) -> list[int]:
        """Offsets of the first ``count`` tokens from ``pos`` (slow path: to say where a refused turn was written)."""
        offsets: list[int] = []
        finder = (self.token_re.finditer(text, pos) if self._timeout is None
                  else self.token_re.finditer(text, pos, timeout=self._timeout))
        for match in finder:
            if len(offsets) >= count:
                break
            offsets.append(match.start())
        return offsets

    def _error_at(self, text: bytes, offset: int) -> TokenError:
        # the cover may stop after a separator run or a token; point at the first byte no turn starts with
        offset = self.skip_separators(text, offset)
        found = text[offset:offset + 12].split(b"\n")[0]
        return TokenError(offset, _show(found) if found else "the end of the line", self.notation.expected())


def _show(data: bytes) -> str:
    if len(data) > 10:
        data = data[:10]
        return repr(data.decode("latin-1")) + "..."
    return repr(data.decode("latin-1"))


# ---------------------------------------------------------------- the named notations

STANDARD = Notation.from_table("standard", {
    "directions": "UDLR",
    "actions": {"+": "+n", "-": "-n"},
    "separators": " \t\r\n",
    "description": "the spec's notation: one turn per line such as D+0, U-1, L+5 (whitespace around turns is ignored)",
})

LRUD_XY = Notation.from_table("lrud-xy", {
    "directions": "LRUD",
    "actions": {"": "+1", "X": "-2", "Y": "-1", " ": "fill"},
    "separators": "\r\n",
    "prefix": " ",
    "description": "the spec's custom example: a letter L R U D, then nothing (pick up 1), X (drop 2), "
                   "Y (drop 1) or a space (fill up); the moves may begin with a lone space",
})

NOTATIONS: dict[str, Notation] = {n.name: n for n in (STANDARD, LRUD_XY)}


def resolve(spec: str | Mapping[str, Any], base: Path | None = None,
            read: Callable[[str], bytes] | None = None) -> Notation:
    """A notation from a name, a ``.toml`` file or an inline table.

    The file is read by ``read(name)``; by default it is a file of the folder ``base`` (an
    entry's folder: regular, inside it, at most ``MAX_NOTATION_BYTES``, see
    :func:`verify.files.read_entry_file`). Raises :class:`NotationDefinitionError` (a
    ValueError) naming the key at fault.
    """
    if isinstance(spec, Mapping):
        return Notation.from_table("custom", spec)
    if not isinstance(spec, str):
        raise NotationDefinitionError("notation", "expected a name, a .toml file or a table")
    if spec in NOTATIONS:
        return NOTATIONS[spec]
    if spec.endswith(".toml"):
        folder = Path.cwd() if base is None else Path(base)
        reader = read or (lambda name: read_entry_file(folder, name, MAX_NOTATION_BYTES))
        return _from_file(spec, reader)
    shown = repr(spec) if len(spec) <= 40 else repr(spec[:36]) + "..."
    raise NotationDefinitionError("notation", f"unknown notation {shown} (known: {', '.join(NOTATIONS)}; "
                                  "or a .toml file, or an inline table)")


def _from_file(name: str, read: Callable[[str], bytes]) -> Notation:
    try:
        text = read(name).decode("utf-8")
    except InputError as error:
        raise NotationDefinitionError("notation", str(error)) from None
    except UnicodeDecodeError:
        raise NotationDefinitionError("notation", f"{name} is not UTF-8") from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise NotationDefinitionError("notation", f"{name} is not valid TOML: {error}") from None
    except RecursionError:
        raise NotationDefinitionError("notation", f"{name} nests lists or tables too deeply") from None
    except Exception as error:  # any other failure of the parser on hostile text
        raise NotationDefinitionError("notation", f"{name} cannot be read as TOML ({type(error).__name__})") from None
    table = table.get("notation", table)
    if not isinstance(table, Mapping):
        raise NotationDefinitionError("notation", f"{name}: [notation] is not a table")
    return Notation.from_table(Path(name).stem, table)


def load_for_cli(spec: str) -> Notation:
    """``--notation NAME|FILE.toml``: a file given on the command line (any path, at most
    ``MAX_NOTATION_BYTES``)."""
    try:
        return resolve(spec, read=lambda name: read_input(name, MAX_NOTATION_BYTES, "notation file"))
    except NotationDefinitionError as error:
        where = "notation" if error.field == "notation" else f"notation: {error.field}"
        raise InputError(f"{where}: {error.problem}") from None
