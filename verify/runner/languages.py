"""The language table (languages.toml) and turning a language + source into argv."""
from __future__ import annotations

import os
import re
import shutil
import string
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from verify.errors import VerifyError
from verify.settings import from_process

TABLE_PATH = Path(__file__).with_name("languages.toml")
CODEPAGES_PATH = Path(__file__).with_name("codepages.toml")
_KNOWN_FIELDS = {"name", "extensions", "interpreter", "compiler", "compile", "source_name", "run",
                 "version", "version_stdin", "memory", "memory_extra", "extra_binds", "runtime", "env", "selftest",
                 "selftest_input", "selftest_output", "requires", "install", "bytes", "codepage", "error_line"}
BYTE_COUNTS = ("utf-8", "codepage", "chars")
SELFTEST_INPUT = "hello\n"
# what a compile, run or version argv may name (each command's values, see build.py)
ARGV_PLACEHOLDERS = {"interpreter", "compiler", "source", "build", "class", "flags", "args", "memory_mb", "flagword"}
QUOTED_ERROR = 200              # characters of an error line quoted at most
# every language's environment unless it says otherwise: an empty home of the run's own (its
# temporary folder), never the entry's folder, whose dotfiles would configure the interpreter
DEFAULT_ENV = {"HOME": "{tmp}"}


class MissingInterpreter(VerifyError):
    """The interpreter or compiler a language needs is not installed."""


@dataclass(frozen=True)
class Language:
    key: str
    name: str
    extensions: tuple[str, ...]
    run: tuple[str, ...]
    version: tuple[str, ...]
    selftest: str
    interpreter: tuple[str, ...] = ()
    compiler: tuple[str, ...] = ()
    compile: tuple[str, ...] = ()
    source_name: str = "{name}"
    version_stdin: str = ""
    memory: str = "data"
    memory_extra: int = 0
    extra_binds: tuple[str, ...] = ()
    runtime: tuple[str, ...] = ()           # the runtime's own files, read into verify's page cache (resident.py)
    env: Mapping[str, str] = field(default_factory=dict)
    selftest_input: str = SELFTEST_INPUT
    selftest_output: str | None = None      # None: the input, echoed
    requires: tuple[str, ...] = ()          # files that must exist (a runtime outside PATH)
    install: str = ""                       # how to install it, said when it is missing
    bytes: str = "utf-8"                    # how a source's bytes are counted (BYTE_COUNTS)
    codepage: str = ""                      # bytes = "codepage": the name of its page in codepages.toml
    error_line: str = "last"                # which stderr line a runtime error quotes: "first", "last", a regex

    @property
    def compiled(self) -> bool:
        return bool(self.compile)

    def tool(self, kind: str) -> str:
        """Absolute path of the interpreter or compiler, or MissingInterpreter (one line)."""
        candidates = self.interpreter if kind == "interpreter" else self.compiler
        found = find_program(candidates)
        if found is None:
            raise MissingInterpreter(
                f"{self.key}: {kind} not found (looked for {', '.join(candidates)} on PATH){self._hint()}")
        return found

    def _hint(self) -> str:
        return f"; install: {self.install}" if self.install else ""

    def check_requires(self) -> None:
        """MissingInterpreter (one line) unless every file the language requires exists."""
        for required in self.requires:
            if not Path(os.path.expanduser(required)).exists():
                raise MissingInterpreter(f"{self.key}: {required} not found{self._hint()}")

    def tools(self) -> dict[str, str]:
        """The placeholders {interpreter}/{compiler} this language needs, resolved."""
        self.check_requires()
        found = {}
        if self.interpreter:
            found["interpreter"] = self.tool("interpreter")
        if self.compiler:
            found["compiler"] = self.tool("compiler")
        return found

    def extra_bind_paths(self) -> list[Path]:
        return [p for p in (Path(os.path.expanduser(b)) for b in self.extra_binds) if p.exists()]

    def find_error_line(self, head: str, tail: str) -> str:
        """The line of a failed run's stderr that says what went wrong, as `error_line` says
        where it is ("" when stderr is blank). `head` and `tail` are stderr's first and last
        bytes kept (the same text when it is short)."""
        return error_line_of(self.error_line, head, tail)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def error_line_of(rule: str, head: str, tail: str) -> str:
    """The error line under `rule` ("first", "last" or a regular expression, see
    languages.toml), cut to QUOTED_ERROR characters."""
    if rule == "first":
        found = next(iter(_lines(head) or _lines(tail)), "")
    elif rule == "last":
        found = next(reversed(_lines(tail) or _lines(head)), "")
    else:
        pattern = re.compile(rule, re.MULTILINE)
        matches = list(pattern.finditer(tail)) or list(pattern.finditer(head))
        if matches:
            match = matches[-1]
            found = " ".join((match.group(1) if pattern.groups and match.group(1) else match.group(0)).split())
        else:
            found = error_line_of("last", head, tail)
    return found[:QUOTED_ERROR]


def _system_path() -> list[str]:
    return from_process().search_path.split(os.pathsep)


_found_programs: dict[tuple[tuple[str, ...], str], str | None] = {}


def find_program(candidates: Sequence[str]) -> str | None:
    """First candidate found in the system folders of PATH, else anywhere on PATH.
    Version-manager shims (pyenv...) come last: a shim is a script that cannot work
    inside the sandbox.

    Remembered per (candidates, PATH): every run resolves its interpreter, and walking
    PATH with realpath costs more than the rest of preparing a run. A remembered path
    that has stopped being executable is looked up again."""
    key = (tuple(candidates), from_process().search_path)
    if key in _found_programs:
        known = _found_programs[key]
        if known is not None and os.access(known, os.X_OK):
            return known
    found = _search_program(candidates)
    _found_programs[key] = found
    return found


def _search_program(candidates: Sequence[str]) -> str | None:
    path = _system_path()
    real_dirs = [d for d in path if d and "shims" not in Path(d).parts]
    # System folders first: the same interpreter whoever runs verify (and with whatever
    # version manager), and one that an unprivileged sandbox uid can always execute.
    system_dirs = [d for d in real_dirs if d in ("/usr/local/bin", "/usr/bin", "/bin")]
    for dirs in (system_dirs, real_dirs, path):
        for name in candidates:
            found = shutil.which(name, path=os.pathsep.join(dirs))
            if found:
                return os.path.realpath(found) if not _is_multicall(found) else os.path.abspath(found)
    return None


def _is_multicall(path: str) -> bool:
    """rustup proxies (and busybox-like tools) dispatch on argv[0]: keep their own name."""
    real = os.path.realpath(path)
    return os.path.basename(real) != os.path.basename(path) and (
        "rustup" in os.path.basename(real) or "busybox" in os.path.basename(real))


def _as_tuple(value: Any, key: str, field_name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise VerifyError(f"{TABLE_PATH.name}: [{key}] {field_name}: expected a list of strings")
    return tuple(value)


def _language(key: str, table: dict[str, Any]) -> Language:
    unknown = set(table) - _KNOWN_FIELDS
    if unknown:
        raise VerifyError(f"{TABLE_PATH.name}: [{key}]: unknown field {sorted(unknown)[0]!r}")
    for required in ("name", "extensions", "run", "version", "selftest"):
        if required not in table:
            raise VerifyError(f"{TABLE_PATH.name}: [{key}]: missing field {required!r}")
    # the fields present, by name (the table's values, of the types the fields declare)
    present: dict[str, Any] = {f: _as_tuple(table[f], key, f) for f in
                               ("extensions", "interpreter", "compiler", "compile", "run", "version", "extra_binds",
                                "runtime")
                               if f in table}
    present.update((f, table[f]) for f in ("name", "source_name", "version_stdin", "memory", "memory_extra",
                                           "selftest", "selftest_input", "selftest_output", "install",
                                           "bytes", "codepage", "error_line") if f in table)
    if "requires" in table:
        present["requires"] = _as_tuple(table["requires"], key, "requires")
    if present.get("memory", "data") not in ("data", "as"):
        raise VerifyError(f"{TABLE_PATH.name}: [{key}] memory: expected \"data\" or \"as\"")
    if present.get("bytes", "utf-8") not in BYTE_COUNTS:
        raise VerifyError(f"{TABLE_PATH.name}: [{key}] bytes: expected one of {', '.join(BYTE_COUNTS)}")
    if (present.get("bytes") == "codepage") != bool(present.get("codepage")):
        raise VerifyError(f"{TABLE_PATH.name}: [{key}] codepage: needed exactly when bytes = \"codepage\"")
    _check_error_line(key, present.get("error_line", "last"))
    for name in ("compile", "run", "version"):
        _check_placeholders(key, name, present.get(name, ()))
    return Language(key=key, env={**DEFAULT_ENV, **table.get("env", {})}, **present)


def _check_error_line(key: str, rule: object) -> None:
    if not isinstance(rule, str) or not rule:
        raise VerifyError(f"{TABLE_PATH.name}: [{key}] error_line: "
                          "expected \"first\", \"last\" or a regular expression")
    if rule not in ("first", "last"):
        try:
            re.compile(rule, re.MULTILINE)
        except re.error as error:
            raise VerifyError(f"{TABLE_PATH.name}: [{key}] error_line: not a regular expression ({error})") from None


def _check_placeholders(key: str, field_name: str, words: Sequence[str]) -> None:
    """Every {placeholder} of an argv is one its command fills (a typo would fail every run)."""
    for word in words:
        try:
            names = {name for _, name, _, _ in string.Formatter().parse(word) if name is not None}
        except ValueError as error:
            raise VerifyError(f"{TABLE_PATH.name}: [{key}] {field_name}: {word!r}: {error}") from None
        unknown = sorted(names - ARGV_PLACEHOLDERS)
        if unknown:
            raise VerifyError(f"{TABLE_PATH.name}: [{key}] {field_name}: unknown placeholder {{{unknown[0]}}} "
                              f"(known: {', '.join(sorted(ARGV_PLACEHOLDERS))})")


@cache
def languages() -> dict[str, Language]:
    with TABLE_PATH.open("rb") as table_file:
        table = tomllib.load(table_file)
    return {key: _language(key, value) for key, value in table.items()}


@cache
def codepage(name: str) -> str:
    """The 256 characters of a single-byte code page (codepages.toml), byte 0 first."""
    with CODEPAGES_PATH.open("rb") as table_file:
        table = tomllib.load(table_file)
    rows = table.get(name)
    if not isinstance(rows, list) or not all(isinstance(row, str) for row in rows):
        raise VerifyError(f"{CODEPAGES_PATH.name}: no code page {name!r}")
    page = "".join(rows)
    if len(page) != 256 or len(set(page)) != 256:
        raise VerifyError(f"{CODEPAGES_PATH.name}: {name}: expected 256 distinct characters, not {len(page)}")
    return page


def get_language(key: str) -> Language:
    table = languages()
    if key not in table:
        raise VerifyError(f"unknown language {key!r} (known: {', '.join(sorted(table))})")
    return table[key]


_JAVA_PUBLIC_CLASS = re.compile(rb"public\s+(?:(?:final|abstract|strictfp)\s+)*class\s+([A-Za-z_$][\w$]*)")
_JAVA_ANY_CLASS = re.compile(rb"\bclass\s+([A-Za-z_$][\w$]*)")


def java_main_class(source_text: bytes) -> str:
    """The class javac will require the file to be named after (the public one), else the first."""
    match = _JAVA_PUBLIC_CLASS.search(source_text) or _JAVA_ANY_CLASS.search(source_text)
    return match.group(1).decode() if match else "Main"


def expand(template: Sequence[str], values: Mapping[str, str], lists: Mapping[str, Sequence[str]]) -> list[str]:
    """Fill a command template: a word that is exactly {flags}/{args} expands to zero or more words;
    {flagword} is the flags joined into one word, always present (Vyxal: `vyxal prog.vy js`)."""
    argv: list[str] = []
    flagword = "".join(lists.get("flags", ()))
    for word in template:
        if word.startswith("{") and word.endswith("}") and word[1:-1] in lists:
            argv.extend(lists[word[1:-1]])
        else:
            argv.append(word.format(**values, flagword=flagword))
    return argv
