"""Contest entries: a folder with entry.toml and a source file (see docs/entries.md).

``load_entry(path)`` reads and validates entry.toml; every problem is one line
naming the field (EntryError). Everything in the folder is hostile: files are read
through :mod:`verify.files` (bounded, confined to the folder). The contest's own
table (``[<contest>]``) is handed to the contest's ``parse_options``.

An entry's own program (the one run on the cases, scored by its source alone) runs on
its source alone: a copy of it in a folder of its own, in the compile cache, so that no
other file of the entry's folder (a helper it could run, entry.toml's text) is there to
read or run. A contest's role programs run in the entry's folder, all of it theirs.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic

from verify import contests
from verify.contests.contract import Contest, Options, Payload
from verify.errors import EntryError, VerifyError, quoted
from verify.files import MAX_ENTRY_TOML_BYTES, MAX_SOURCE_BYTES, FileRefused, read_entry_file, scan_entry_folder
from verify.programs import entry_program
from verify.runner import Program, artefacts
from verify.runner.paths import cache_root

ENTRY_FILE = "entry.toml"
SOURCES = "sources"          # the compile cache's folder of sources alone (one folder per source)
RUN_FOLDER = "run"           # in one: the folder a run sees, holding the source only
INPUT_MODES = ("stdin", "args")
CONTEST_KEYS = ("contest", "challenge")   # the field naming an entry's contest, and its other name
_FIELDS: dict[str, type] = {
    "name": str, "contest": str, "language": str, "source": str, "flags": list,
    "input": str, "author": str, "description": str,
}


@dataclass
class Entry(Generic[Options, Payload]):
    """An entry of ``contest``, its contest table parsed by it (``options``)."""

    name: str
    folder: Path
    contest: Contest[Options, Payload]
    program: Program | None           # run on the cases (code golf), on its source alone; None: the roles
    options: Options
    input: str = "stdin"
    author: str = ""
    description: str = ""
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    source_file: Path | None = None   # the program's source in the entry's folder (what is scored)

    @property
    def label(self) -> str:
        """How reports name the entry: contest/folder."""
        return f"{self.contest.name}/{self.folder.name}"

    @property
    def language(self) -> str | None:
        return self.program.language if self.program else None

    @property
    def source(self) -> Path | None:
        return self.source_file

    @property
    def flags(self) -> tuple[str, ...]:
        return self.program.flags if self.program else ()

    def programs(self) -> list[Program]:
        """Every program it runs: its own, or those of its contest's roles (built before anything runs)."""
        return [self.program] if self.program is not None else list(self.contest.programs(self.options))


def entry_label(path: Path) -> str:
    path = Path(path)
    folder = path.parent if path.name == ENTRY_FILE else path
    return f"{folder.parent.name}/{folder.name}" if folder.parent.name else folder.name


def load_entry(path: Path | str) -> Entry[Any, Any]:
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

    contest_name = _contest_name(label, data)
    contest = contests.get(contest_name)
    _check_fields(label, data, contest_name)

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
    program = declared = None
    if language is not None:
        declared = entry_program(label, "", language, source, data.get("flags", []), folder)
        program = source_alone(label, declared, folder)
    elif contest.needs_program():
        raise EntryError(label, "language", "missing (a code-golf entry needs language and source)")

    options = _contest_options(label, contest, data.get(contest_name, {}), folder)
    return Entry(name=name, folder=folder, contest=contest, program=program, input=input_mode,
                 author=data.get("author", ""), description=data.get("description", ""), options=options, raw=data,
                 source_file=declared.source if declared else None)


def _contest_name(label: str, data: dict[str, Any]) -> str:
    """The entry's contest field, a contest verify knows. ``contest`` names it; ``challenge`` is another
    name for the key (the bundled entries use it; both given: they must agree)."""
    given = [key for key in CONTEST_KEYS if key in data]
    if not given:
        raise EntryError(label, "contest", f"missing (one of: {', '.join(contests.names())})")
    if len(given) == 2 and data["contest"] != data["challenge"]:
        raise EntryError(label, None, "contest and challenge name different contests (give one of them)")
    key = given[0]
    contest_name = data[key]
    if not isinstance(contest_name, str):
        raise EntryError(label, key, f"expected a string, not {_type_name(contest_name)}")
    if contest_name not in contests.names():
        raise EntryError(label, key,
                         f"unknown contest {quoted(contest_name)} (known: {', '.join(contests.names())})")
    return contest_name


def _check_fields(label: str, data: dict[str, Any], contest_name: str) -> None:
    """EntryError for the first field of entry.toml that is unknown or of the wrong type
    (the contest's own table, named after it, is checked by the contest)."""
    for key, value in data.items():
        if key in CONTEST_KEYS:
            continue               # read by _contest_name
        if key == contest_name:
            if not isinstance(value, dict):
                raise EntryError(label, key, f"expected a table [{key}], not {_type_name(value)}")
            continue
        if key not in _FIELDS:
            raise EntryError(label, quoted(key)[1:-1],
                             f"unknown field (known: {', '.join([*_FIELDS, contest_name])})")
        if not isinstance(value, _FIELDS[key]):
            raise EntryError(label, key, f"expected {_FIELDS[key].__name__}, not {_type_name(value)}")


@dataclass(frozen=True)
class SourceAlone(Program):
    """A program running on a copy of its source alone, in this machine's cache. Sent to
    another process (a cluster's worker, whose cache is its own), it is made again there
    from the entry's folder, and must find there the very source copied here."""

    label: str = field(default="", compare=False)
    origin: Path | None = field(default=None, compare=False)    # the entry's folder
    relative: str = field(default="", compare=False)            # the source's path in it
    key: str = field(default="", compare=False)                 # the digest of the source's name and bytes

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_made_again, (self.label, self.language, self.origin, self.relative, self.flags, self.key))


def _made_again(label: str, language: str, folder: Path, relative: str, flags: tuple[str, ...],
                key: str) -> SourceAlone:
    made = source_alone(label, Program(language, folder / relative, flags, folder), folder)
    if made.key != key:
        raise VerifyError(f"{label}: its source {relative!r} differs from the one the check loaded "
                          "(a filesystem the workers share, unchanged during the check, is needed)")
    return made


def source_alone(label: str, program: Program, folder: Path) -> SourceAlone:
    """`program` running on a copy of its source alone: the cache's folder of that source
    (keyed by its name and bytes, checked against its manifest before use, stored again when
    it does not match). Its score counts the source only, so the run sees nothing else."""
    relative = str(program.source.relative_to(folder))
    try:
        source = read_entry_file(folder, relative, MAX_SOURCE_BYTES)
    except FileRefused as error:
        raise EntryError(label, "source", str(error)) from None
    name = program.source.name
    key = hashlib.sha256(name.encode("utf-8", "surrogateescape") + b"\0" + source).hexdigest()[:32]
    stored = cache_root() / SOURCES / key
    if not artefacts.is_intact(stored):
        try:
            _store_source(stored, name, source, label)
        except (OSError, artefacts.ArtefactError) as error:
            raise VerifyError(f"cannot store {label}'s source in the cache {stored.parent}: "
                              f"{getattr(error, 'strerror', None) or error}") from None
    run = stored / RUN_FOLDER
    return SourceAlone(program.language, run / name, program.flags, run, label=label, origin=folder,
                       relative=relative, key=key)


def _store_source(stored: Path, name: str, source: bytes, label: str) -> None:
    stored.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".source-", dir=stored.parent))
    try:
        (work / RUN_FOLDER).mkdir()
        (work / RUN_FOLDER / name).write_bytes(source)
        artefacts.store(work, stored, label)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _contest_options(label: str, contest: Contest[Options, Any], table: dict[str, Any], folder: Path) -> Options:
    """The contest's own table, checked by the contest; a failure of its code on a hostile
    table is still one EntryError line naming the table."""
    try:
        return contest.parse_options(label, table, folder)
    except VerifyError:
        raise
    except RecursionError:
        raise EntryError(label, contest.name, "nests lists or tables too deeply") from None
    except Exception as error:
        raise EntryError(label, contest.name, f"cannot be read ({type(error).__name__})") from None


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


def find_entries(root: Path, contest: str | None = None) -> list[Path]:
    """Entry folders under ``root`` (submissions/), optionally of one contest, sorted."""
    root = Path(root)
    if not root.is_dir():
        raise VerifyError(f"no submissions folder {str(root)!r}")
    pattern = f"{contest}/*/{ENTRY_FILE}" if contest else f"*/*/{ENTRY_FILE}"
    return sorted(p.parent for p in root.glob(pattern))


def _type_name(value: Any) -> str:
    return {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)
