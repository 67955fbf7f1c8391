"""Which `flags` an entry may give: a per-language allow-list (flags.toml), checked here.

Entries are written by strangers, and their flags go to the interpreter or, for the
compiled languages, to the compiler, which runs on the judge's machine: `-wrapper`
runs any program during a gcc build, `-C linker=` does the same for rustc, `-J` for
javac. So a flag is refused unless a rule of flags.toml allows it; the table's
`deny` part only gives the reason for flags known to be dangerous (and wins over
the allow rules). Values are checked too: a path must resolve inside the entry's
folder, a `-D` macro name must be a name, a `perl -F` pattern must not hold code.

    check_flags("c", ["-O3", "-include", "golf.h"], folder)     # fine
    check_flags("c", ["-wrapper", "/bin/sh,-c,id"], folder)
    FlagError: flag '-wrapper' is not allowed for c (it can run another program)

The words are parsed the way the tool parses them: for "clusters" languages (perl,
python, bash, awk) `-lane` is the switches -l -a -n -e (and -e is refused), and a
flag whose value is the next word (`-include FILE`, `-o pipefail`) takes it with it.
A word the checker cannot read as an allowed flag is refused, so an unforeseen shape
(`-OZfoo` for rustc, a bare file name that gcc would link) never gets through.
"""
from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from verify.errors import VerifyError

TABLE_PATH = Path(__file__).with_name("flags.toml")
DOCS = "docs/flags.md"
# Include folders an -I (-iquote, -isystem, -idirafter) may name besides the entry's own.
SYSTEM_INCLUDE_DIRS = ("/usr/include", "/usr/local/include")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_FORMS = ("bare", "joined", "eq", "next")
_TAKES = ("none", "optional", "rest", "rest-or-next", "next")
_PATH_KINDS = ("folder", "folder-or-system")
_LANGUAGE_FIELDS = {"style", "base", "signs", "underscores", "options", "letters", "deny"}
_OPTION_FIELDS = {"forms", "value", "path", "path_list", "alias", "dashes", "show", "note"}
_LETTER_FIELDS = {"take", "value", "path", "path_list", "show", "note"}
_SHOWN_MAX = 60


class FlagError(VerifyError):
    """A flag that is not allowed; str() is one line naming the flag and why."""

    def __init__(self, language: str, flag: str, reason: str, *, unlisted: bool = False):
        self.language, self.flag, self.reason = language, flag, reason
        if unlisted:      # matched by no allow rule, and no deny entry says why
            message = f"flag {_shown(flag)} is not in the allow-list for {language} ({reason})"
        else:
            message = f"flag {_shown(flag)} is not allowed for {language} ({reason})"
        super().__init__(message)


class FlagRule(NamedTuple):
    """One line of a listing: how the flag is written, and what it is for (or, for a
    refused flag, why it is refused)."""
    flag: str
    note: str


def check_flags(language_key: str, flags: Sequence[str], folder: Path) -> None:
    """Raise FlagError (one line naming the first refused flag) unless every flag is allowed.

    `folder` is the entry's folder: paths in values (-include, -I, perl -I) are relative
    to it, with no '..', and must resolve inside it (symlinks followed); only the -I
    family may also name a system include folder by its absolute path."""
    flag_paths(language_key, flags, folder)


def flag_paths(language_key: str, flags: Sequence[str], folder: Path) -> list[str]:
    """Check the flags as `check_flags` does; return the paths inside the entry's folder
    that they name, relative to it, in order ("." for the folder itself). A build copies
    them into its folder and keys its artefact by them."""
    flags = list(flags)
    named: list[str] = []
    if not flags:
        return named
    if language_key not in _raw():
        raise FlagError(language_key, str(flags[0]), f"no flag allow-list for {language_key!r} in {TABLE_PATH.name}")
    policy = _policy(language_key)
    folder = Path(folder).resolve()
    index = 0
    while index < len(flags):
        index = _check_at(policy, flags, index, folder, named)
    return named


def allowed_flags(language_key: str) -> list[FlagRule]:
    """What the allow-list takes for this language, as a listing (docs, `verify langs`).
    For the "clusters" languages the one-letter switches may be bundled: -lan."""
    policy = _policy(language_key)
    rules = [*policy.letters.values(), *policy.options.values()]
    return [FlagRule(rule.show, rule.note) for rule in rules if rule.alias is None]


def refused_flags(language_key: str) -> list[FlagRule]:
    """The flags refused with a reason (the deny table): `flag` is a pattern, a final
    * standing for anything."""
    return [FlagRule(pattern, reason) for pattern, reason in _policy(language_key).deny]


# --- the table -------------------------------------------------------------------------

@dataclass(frozen=True)
class _Rule:
    name: str                         # "-include", or the letter for a clusters switch
    forms: tuple[str, ...] = ("bare",)
    take: str = "none"
    values: tuple[re.Pattern[str], ...] = ()
    path: str | None = None
    path_list: bool = False
    alias: str | None = None
    dashes: bool = False
    show: str = ""
    note: str = ""

    @property
    def glued(self) -> str:
        """How name and value join in the understood form matched against `deny`."""
        return "" if "joined" in self.forms else "=" if "eq" in self.forms else " "


@dataclass(frozen=True)
class _Policy:
    key: str
    style: str
    signs: tuple[str, ...]
    underscores: bool
    options: dict[str, _Rule]
    letters: dict[str, _Rule]
    deny: tuple[tuple[str, str], ...]


def _bad(key: str, where: str, problem: str) -> VerifyError:
    return VerifyError(f"{TABLE_PATH.name}: [{key}] {where}: {problem}")


@cache
def _raw() -> dict[str, Any]:
    with TABLE_PATH.open("rb") as table_file:
        return tomllib.load(table_file)


def _merged(key: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    raw = _raw()
    if key in seen:
        raise _bad(key, "base", f"a loop through {', '.join(seen)}")
    table = dict(raw[key])
    unknown = set(table) - _LANGUAGE_FIELDS
    if unknown:
        raise _bad(key, sorted(unknown)[0], "unknown field")
    base = table.pop("base", None)
    if base is None:
        return table
    if base not in raw:
        raise _bad(key, "base", f"no table [{base}]")
    parent = _merged(base, seen + (key,))
    merged = {**parent, **table}
    for part in ("options", "letters", "deny"):
        merged[part] = {**parent.get(part, {}), **table.get(part, {})}
    return merged


def _patterns(key: str, where: str, value: Any) -> tuple[re.Pattern[str], ...]:
    texts = [value] if isinstance(value, str) else value
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise _bad(key, where, "value: expected a regex or a list of regexes")
    try:
        return tuple(re.compile(text) for text in texts)
    except re.error as error:
        raise _bad(key, where, f"value: bad regex ({error})") from None


def _rule(key: str, name: str, spec: Any, letter: bool) -> _Rule:
    where = f"{'letters' if letter else 'options'}.{name}"
    if not isinstance(spec, dict):
        raise _bad(key, where, "expected a table")
    unknown = set(spec) - (_LETTER_FIELDS if letter else _OPTION_FIELDS)
    if unknown:
        raise _bad(key, where, f"unknown field {sorted(unknown)[0]!r}")
    values = _patterns(key, where, spec["value"]) if "value" in spec else ()
    path = spec.get("path")
    if path is not None and path not in _PATH_KINDS:
        raise _bad(key, where, f"path: expected one of {', '.join(_PATH_KINDS)}")
    path_list = bool(spec.get("path_list", False))
    note = str(spec.get("note", ""))
    if letter:
        if len(name) != 1:
            raise _bad(key, where, "a letter is one character")
        take = spec.get("take", "none")
        if take not in _TAKES:
            raise _bad(key, where, f"take: expected one of {', '.join(_TAKES)}")
        if take == "optional" and not values:
            raise _bad(key, where, "take = \"optional\" needs a value regex")
        if take != "none" and not values and not path:
            raise _bad(key, where, "a letter taking a value needs `value` or `path`")
        return _Rule(name, take=take, show=str(spec.get("show", f"-{name}")),
                     values=values, path=path, path_list=path_list, note=note)
    forms = tuple(spec.get("forms", ["bare"]))
    if not forms or any(form not in _FORMS for form in forms):
        raise _bad(key, where, f"forms: expected some of {', '.join(_FORMS)}")
    if "bare" in forms and "next" in forms:
        raise _bad(key, where, "forms: \"bare\" and \"next\" cannot both be (is the next word its value?)")
    if forms != ("bare",) and not values and not path and "alias" not in spec:
        raise _bad(key, where, "a flag taking a value needs `value` or `path`")
    return _Rule(name, forms=forms, alias=spec.get("alias"), dashes=bool(spec.get("dashes", False)),
                 show=str(spec.get("show", name)), values=values, path=path, path_list=path_list, note=note)


@cache
def _policy(language_key: str) -> _Policy:
    if language_key not in _raw():
        raise VerifyError(f"no flag allow-list for language {language_key!r} in {TABLE_PATH.name}")
    table = _merged(language_key)
    style = table.get("style", "words")
    if style not in ("words", "clusters"):
        raise _bad(language_key, "style", "expected \"words\" or \"clusters\"")
    options = {name: _rule(language_key, name, spec, False) for name, spec in table.get("options", {}).items()}
    for name, rule in options.items():
        if rule.alias is not None and (rule.alias not in options or options[rule.alias].alias is not None):
            raise _bad(language_key, f"options.{name}", f"alias: no option {rule.alias!r} to stand for")
    letters = {name: _rule(language_key, name, spec, True) for name, spec in table.get("letters", {}).items()}
    if letters and style != "clusters":
        raise _bad(language_key, "letters", "only for style = \"clusters\"")
    deny = table.get("deny", {})
    if not all(isinstance(reason, str) and reason for reason in deny.values()):
        raise _bad(language_key, "deny", "every pattern needs its reason (a string)")
    signs = tuple(table.get("signs", ["-"]))
    return _Policy(language_key, style, signs, bool(table.get("underscores", False)),
                   options, letters, tuple(deny.items()))


# --- checking ----------------------------------------------------------------------------

def _shown(flag: str) -> str:
    if len(flag) > _SHOWN_MAX:
        flag = flag[:_SHOWN_MAX] + "…"
    return repr(flag)            # repr: quotes, and any control character escaped: one line


def _denied(policy: _Policy, text: str) -> str | None:
    """The reason of the most specific deny pattern matching `text`, if any."""
    best: tuple[int, str] | None = None
    for pattern, reason in policy.deny:
        hit = text.startswith(pattern[:-1]) if pattern.endswith("*") else text == pattern
        if hit and (best is None or len(pattern) > best[0]):
            best = (len(pattern), reason)
    return best[1] if best else None


def _normal(policy: _Policy, word: str) -> str:
    """node spells option names with _ or -: compare them with -."""
    if policy.underscores and word.startswith("--"):
        name, eq, value = word.partition("=")
        return name.replace("_", "-") + eq + value
    return word


def _check_at(policy: _Policy, flags: list[str], index: int, folder: Path, named: list[str]) -> int:
    """Check the flag at `index` (with the value words it takes); return the next index."""
    word = flags[index]
    if not isinstance(word, str):
        raise FlagError(policy.key, repr(word), "a flag is a string")
    _no_control(policy, word, word)
    text = _normal(policy, word)
    reason = _denied(policy, text)
    if reason:
        raise FlagError(policy.key, word, reason)
    if (policy.style == "clusters" and len(word) > 1 and word[0] in policy.signs
            and not word.startswith("--")):
        return _check_cluster(policy, flags, index, folder, named)
    return _check_word(policy, flags, index, text, folder, named)


def _no_control(policy: _Policy, flag: str, text: str) -> None:
    if _CONTROL.search(text):
        raise FlagError(policy.key, flag, "it holds a control character (NUL, newline, ...)")


def _next_value(policy: _Policy, flags: list[str], at: int, shown: str) -> str:
    """The word at `at`, taken as the value of the flag before it."""
    if at >= len(flags):
        raise FlagError(policy.key, shown, "it needs a value after it")
    value = flags[at]
    if not isinstance(value, str):
        raise FlagError(policy.key, shown, "a flag is a string")
    _no_control(policy, f"{shown} {value}", value)
    if value.startswith("-"):
        raise FlagError(policy.key, f"{shown} {value}",
                        f"its value {_shown(value)} looks like a flag (give it joined to the flag, if it can be)")
    return value


def _form_value(policy: _Policy, flags: list[str], index: int, text: str, name: str,
                form: str) -> tuple[int, str, str] | None:
    """How many words the flag `name` takes in `form` ("joined", "eq", "next") at `index`,
    how it is shown, and its value; None when the word is not in that form."""
    word = flags[index]
    if form == "joined" and len(text) > len(name):
        return 1, word, text[len(name):]
    if form == "eq" and text.startswith(name + "="):
        return 1, word, text[len(name) + 1:]
    if form == "next" and text == name:
        value = _next_value(policy, flags, index + 1, word)
        return 2, f"{word} {value}", value
    return None


def _check_word(policy: _Policy, flags: list[str], index: int, text: str, folder: Path,
                named: list[str]) -> int:
    word = flags[index]
    candidates = sorted((rule for name, rule in policy.options.items() if text.startswith(name)),
                        key=lambda rule: -len(rule.name))
    problem: FlagError | None = None
    for rule in candidates:
        target = policy.options[rule.alias] if rule.alias else rule
        for form in rule.forms:
            if form == "bare":
                if text != rule.name:
                    continue
                return index + 1
            taken = _form_value(policy, flags, index, text, rule.name, form)
            if taken is None:
                continue
            consumed, shown, value = taken
            if target.dashes:
                head, eq, tail = value.partition("=")
                value = head.replace("_", "-") + eq + tail
            reason = _denied(policy, f"{target.name}{target.glued}{value}")
            if reason:
                raise FlagError(policy.key, shown, reason)
            failure = _value_problem(target, value, folder, named)
            if failure is None:
                return index + consumed
            if problem is None:
                problem = FlagError(policy.key, shown, f"{failure}; allowed: {target.show}; see {DOCS}")
    if problem is not None:
        raise problem
    if not word.startswith("-") and word[:1] not in policy.signs:
        raise FlagError(policy.key, word, "not a flag: the tool would take it as a file name or as the program")
    raise FlagError(policy.key, word, f"see {DOCS}", unlisted=True)


def _check_cluster(policy: _Policy, flags: list[str], index: int, folder: Path, named: list[str]) -> int:
    word = flags[index]
    sign, position, consumed = word[0], 1, 1
    while position < len(word):
        letter, rest = word[position], word[position + 1:]
        rule = policy.letters.get(letter)
        if rule is None:
            reason = _denied(policy, sign + letter + rest) or _denied(policy, sign + letter)
            if reason:
                raise FlagError(policy.key, word, f"{sign}{letter}: {reason}")
            if letter in "-+" or not letter.isprintable() or letter.isspace():
                raise FlagError(policy.key, word, f"{letter!r} inside a bundle of switches; see {DOCS}",
                                unlisted=True)
            raise FlagError(policy.key, word, f"its {sign}{letter} is not; see {DOCS}", unlisted=True)
        shown, value = word, None
        if rule.take == "none":
            position += 1
        elif rule.take == "optional":
            value = max((m.group() for m in (p.match(word, position + 1) for p in rule.values) if m),
                        key=len, default="")
            position += 1 + len(value)
        elif rule.take == "rest":
            value, position = rest, len(word)
        elif rule.take == "rest-or-next" and rest:
            value, position = rest, len(word)
        else:                      # rest-or-next with nothing glued, or next: the next word
            value = _next_value(policy, flags, index + consumed, word)
            shown = " ".join(flags[index:index + consumed + 1])
            consumed += 1
            position = len(word) if rule.take == "rest-or-next" else position + 1
        if value is None:
            continue
        reason = _denied(policy, sign + letter + value)
        if reason:
            raise FlagError(policy.key, shown, f"{sign}{letter}: {reason}")
        failure = _value_problem(rule, value, folder, named)
        if failure is not None:
            raise FlagError(policy.key, shown, f"{sign}{letter}: {failure}; allowed: {rule.show}; see {DOCS}")
    return index + consumed


def _value_problem(rule: _Rule, value: str, folder: Path, named: list[str]) -> str | None:
    """Why `value` is not a value this rule takes, or None (then the paths inside the
    entry's folder it names are added to `named`)."""
    if rule.values and not any(pattern.fullmatch(value) for pattern in rule.values):
        return f"the value {_shown(value)} is not one it takes" if value else "it needs a value"
    if rule.path:
        inside = []
        for part in (value.split(":") if rule.path_list else [value]):
            failure = _path_problem(part, folder, rule.path == "folder-or-system")
            if failure:
                return failure
            if not Path(part).is_absolute():          # (an absolute one is a system include folder)
                inside.append(str(Path(part)))
        named.extend(inside)
    return None


def _path_problem(value: str, folder: Path, system: bool) -> str | None:
    """Why the path `value` is not a path relative to `folder` and inside it (symlinks
    followed), nor, with `system`, the absolute path of a system include folder; or None."""
    if not value:
        return "an empty path"
    if value == "-":
        return "'-' (standard input) is not a file here"
    path = Path(value)
    if ".." in path.parts:
        return f"'..' in the path {_shown(value)}"
    if path.is_absolute():
        if system and _system_include(path):
            return None
        return (f"the path {_shown(value)} is absolute: name it relative to the entry's folder"
                + (" (or name a system include folder)" if system else ""))
    try:
        resolved = (folder / path).resolve()
    except (OSError, RuntimeError):
        return f"the path {_shown(value)} cannot be resolved"
    if resolved.is_relative_to(folder):
        return None
    return f"the path {_shown(value)} leads outside the entry's folder"


def _system_include(path: Path) -> bool:
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return False
    return any(resolved.is_relative_to(Path(d).resolve()) for d in SYSTEM_INCLUDE_DIRS)
