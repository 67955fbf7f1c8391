"""Contest entries: a folder with entry.toml and a source file (see docs/entries.md).

``load_entry(path)`` reads and validates entry.toml; every problem is one line
naming the field (EntryError). Everything in the folder is hostile: files are read
through :mod:`verify.files` (bounded, confined to the folder). The contest's own
table (``[desert]``...) is handed to the contest's ``parse_options``.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify import challenges
from verify.challenges.contract import Contest
from verify.errors import EntryError, VerifyError, quoted
from verify.files import MAX_ENTRY_TOML_BYTES, FileRefused, read_entry_file, scan_entry_folder
from verify.programs import entry_program
from verify.runner import Program

ENTRY_FILE = "entry.toml"
INPUT_MODES = ("stdin", "args")
_FIELDS: dict[str, type] = {
    "name": str, "challenge": str, "language": str, "source": str, "flags": list,
    "input": str, "author": str, "description": str,
}


@dataclass
class Entry:
    name: str
    folder: Path
    challenge: Contest
    program: Program | None           # the program run on the cases (code golf); None: the contest's roles
    input: str = "stdin"
    author: str = ""
    description: str = ""
    options: Any = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        """How reports name the entry: challenge/folder."""
        return f"{self.challenge.name}/{self.folder.name}"

    @property
    def language(self) -> str | None:
        return self.program.language if self.program else None

    @property
    def source(self) -> Path | None:
        return self.program.source if self.program else None

    @property
    def flags(self) -> tuple[str, ...]:
        return self.program.flags if self.program else ()

    def programs(self) -> list[Program]:
        """Every program it runs: its own, or those of its contest's roles (built before anything runs)."""
        return [self.program] if self.program is not None else list(self.challenge.programs(self.options))


def entry_label(path: Path) -> str:
    path = Path(path)
    folder = path.parent if path.name == ENTRY_FILE else path
    return f"{folder.parent.name}/{folder.name}" if folder.parent.name else folder.name


def load_entry(path: Path | str) -> Entry:
    """Load ``path`` (an entry folder, or its entry.toml).

    The folder is checked first (:func:`verify.files.scan_entry_folder`: regular files,
    folders and links inside it only, bounded), then entry.toml (at most
    ``MAX_ENTRY_TOML_BYTES``), then each field; the first problem is one EntryError line."""
    path = Path(path)
    folder = (path.parent if path.name == ENTRY_FILE else path).absolute()
    label = entry_label(folder)
    if not folder.is_dir():
        raise EntryError(label, None, "no such entry folder")
    if not os.path.lexists(folder / ENTRY_FILE):
        raise EntryError(label, None, f"no {ENTRY_FILE} in the folder")
    try:
        scan_entry_folder(folder)
    except FileRefused as error:
        raise EntryError(label, None, str(error)) from None
    data = _read_toml(label, folder)

    challenge_name = data.get("challenge")
    if challenge_name is None:
        raise EntryError(label, "challenge", f"missing (one of: {', '.join(challenges.names())})")
    if not isinstance(challenge_name, str):
        raise EntryError(label, "challenge", f"expected a string, not {_type_name(challenge_name)}")
    if challenge_name not in challenges.names():
        raise EntryError(label, "challenge",
                         f"unknown challenge {quoted(challenge_name)} (known: {', '.join(challenges.names())})")
    challenge = challenges.get(challenge_name)

    for key, value in data.items():
        if key == challenge_name:
            if not isinstance(value, dict):
                raise EntryError(label, key, f"expected a table [{key}], not {_type_name(value)}")
            continue
        if key not in _FIELDS:
            raise EntryError(label, quoted(key)[1:-1],
                             f"unknown field (known: {', '.join([*_FIELDS, challenge_name])})")
        if not isinstance(value, _FIELDS[key]):
            raise EntryError(label, key, f"expected {_FIELDS[key].__name__}, not {_type_name(value)}")

    name = data.get("name", folder.name)
    if not name.strip():
        raise EntryError(label, "name", "empty")
    input_mode = data.get("input", "stdin")
    if input_mode not in INPUT_MODES:
        raise EntryError(label, "input", f"expected \"stdin\" or \"args\", not {quoted(input_mode)}")

    language, source = data.get("language"), data.get("source")
    if (language is None) != (source is None):
        missing = "source" if source is None else "language"
        raise EntryError(label, missing, "missing (language and source go together)")
    program = None
    if language is not None:
        program = entry_program(label, "", language, source, data.get("flags", []), folder)
    elif challenge.needs_program():
        raise EntryError(label, "language", "missing (a code-golf entry needs language and source)")

    options = _contest_options(label, challenge, data.get(challenge_name, {}), folder)
    return Entry(name=name, folder=folder, challenge=challenge, program=program, input=input_mode,
                 author=data.get("author", ""), description=data.get("description", ""), options=options, raw=data)


def _contest_options(label: str, challenge: Contest, table: dict[str, Any], folder: Path) -> Any:
    """The contest's own table, checked by the contest; a failure of its code on a hostile
    table is still one EntryError line naming the table."""
    try:
        return challenge.parse_options(label, table, folder)
    except VerifyError:
        raise
    except RecursionError:
        raise EntryError(label, challenge.name, "nests lists or tables too deeply") from None
    except Exception as error:
        raise EntryError(label, challenge.name, f"cannot be read ({type(error).__name__})") from None


def _read_toml(label: str, folder: Path) -> dict[str, Any]:
    """entry.toml parsed; any failure of the file or the parser is one EntryError line."""
    try:
        text = read_entry_file(folder, ENTRY_FILE, MAX_ENTRY_TOML_BYTES).decode("utf-8")
    except FileRefused as error:
        raise EntryError(label, None, str(error)) from None
    except UnicodeDecodeError:
        raise EntryError(label, None, f"{ENTRY_FILE} is not UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise EntryError(label, None, f"{ENTRY_FILE} is not valid TOML: {error}") from None
    except RecursionError:
        raise EntryError(label, None, f"{ENTRY_FILE} nests lists or tables too deeply") from None
    except Exception as error:  # any other failure of the parser on hostile text: still one line
        raise EntryError(label, None, f"{ENTRY_FILE} cannot be read as TOML ({type(error).__name__})") from None


def find_entries(root: Path, challenge: str | None = None) -> list[Path]:
    """Entry folders under ``root`` (submissions/), optionally of one challenge, sorted."""
    root = Path(root)
    if not root.is_dir():
        raise VerifyError(f"no submissions folder {str(root)!r}")
    pattern = f"{challenge}/*/{ENTRY_FILE}" if challenge else f"*/*/{ENTRY_FILE}"
    return sorted(p.parent for p in root.glob(pattern))


def _type_name(value: Any) -> str:
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)
