"""Compile once per source digest, cached; turn a Program into the argv that runs it.

The cache lives in $VERIFY_CACHE, else $XDG_CACHE_HOME/verify, else ~/.cache/verify.
An artefact is keyed by the digest of (language table entry, compiler path, flags,
source bytes, the files the flags name). Flags are checked against the language's
allow-list (flags.toml) first; the files and folders inside the entry's folder that they
name (`-Iinc`, `-include golf.h`, `-sourcepath lib`) are copied into the build's folder
at the same relative paths, and removed from it before the artefact is stored.
The compiler runs in a sandbox like any run, in a private build folder; what it made
is then copied into the cache by verify itself (artefacts.py), with a manifest of
digests checked each time a program is prepared.

`prepare` is two steps: `recipe` reads and checks what the program is built from (its
`key`), then `Recipe.prepare` checks the artefact (or builds it). A runner that keeps
what it prepared (grading's LocalRunner) reads the recipe again for each job and
prepares once per key. A `Prepared` program knows how to start a run of itself: in a
sandbox of its own (`Prepared.sandbox`), through `process.spawn` (`Prepared.start`).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from verify.errors import VerifyError
from verify.files import (
    MAX_SOURCE_BYTES,
    EntryFile,
    FileRefused,
    TreeDigest,
    read_entry_file,
    scan_entry_folder,
    shown_name,
)
from verify.runner import artefacts, reaper, resident
from verify.runner.backends import is_system_path
from verify.runner.flags import flag_paths
from verify.runner.isolation import Isolation
from verify.runner.languages import Language, expand, get_language, java_main_class
from verify.runner.limits import Limits
from verify.runner.paths import cache_root
from verify.runner.process import RunResult, Started, run_command, spawn
from verify.runner.program import Program
from verify.runner.sandbox import Sandbox

COMPILE_LIMITS = Limits(wall_time=60.0, cpu_time=60.0, memory=2 << 30, output=1 << 20, processes=256)
LOG_TAIL = 4000


class CompileError(VerifyError):
    """The compiler rejected the source; ``log`` holds (the tail of) what it said."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


def _as_is(path: Path) -> Path:
    return path


@dataclass(frozen=True)
class Prepared:
    """A program ready to run: its language resolved, its artefact built."""

    program: Program
    language: Language
    tools: dict[str, str]
    build: Path | None                     # the cached artefact folder (compiled languages)
    main_class: str = "Main"
    readonly: tuple[Path, ...] = field(default=())

    def argv(self, args: Sequence[str], limits: Limits, path: Callable[[Path], Path] = _as_is) -> list[str]:
        """The command line, with paths as the sandbox shows them (`path`: as they are)."""
        values = {**self.tools, "source": str(path(self.program.source)),
                  "build": str(path(self.build)) if self.build else "",
                  "class": self.main_class, "memory_mb": str(limits.memory_mb)}
        return expand(self.language.run, values, {"flags": self.program.flags, "args": list(args)})

    def sandbox(self, isolation: Isolation, *, wait_for_go: bool = False) -> Sandbox:
        """A sandbox for one run of it (to be entered): its folder copied, its artefact
        and tools visible. wait_for_go: built ahead, the program waits for Sandbox.go()."""
        return Sandbox(self.program.folder, readonly=list(self.readonly),
                       artefacts=(self.build,) if self.build is not None else (),
                       wait_for_go=wait_for_go, isolation=isolation)

    def start(self, sandbox: Sandbox, args: Sequence[str], limits: Limits) -> Started:
        """Start a run of it with `args` in `sandbox` (entered, from `Prepared.sandbox`)."""
        if sandbox.isolation.cgroups is not None:
            resident.read_runtime({kind: path for kind, path in self.tools.items() if kind == "interpreter"},
                                  self.language.runtime)
        return spawn(sandbox, self.argv(args, limits, sandbox.path), limits, memory_kind=self.language.memory,
                     memory_extra=self.language.memory_extra, env=self.language.env)


def _digest(language: Language, tools: dict[str, str], program: Program, source: bytes, build_key: str,
            inputs: Inputs) -> str:
    fields = [language.key, list(language.compile), tools, list(program.flags)] + ([build_key] if build_key else [])
    key = json.dumps(fields).encode()
    if inputs:
        digest = TreeDigest("verify build inputs")
        for name, data in inputs:
            digest.file(name, 0, data)
        key += b"\0" + digest.hexdigest().encode()
    return hashlib.sha256(key + b"\0" + source).hexdigest()[:32]


Inputs = list[tuple[str, bytes]]


def _flag_inputs(folder: Path, named: Sequence[str]) -> Inputs:
    """The regular files the flags name (a file, or every file below a folder; "." the
    whole folder), by path relative to the entry's folder, sorted, each read as an entry's
    file is (inside the folder, links to files followed, bounded: else FileRefused). A
    name not in the folder (`-include stdio.h`, found on the include path) brings nothing."""
    if not named:
        return []
    items = {item.relative: item for item in scan_entry_folder(folder, folders=True)}

    def is_folder(item: EntryFile) -> bool:
        target = items.get(item.target) if item.target is not None else None
        return item.folder or (target is not None and target.folder)

    wanted: set[str] = set()
    for name in named:
        item = items.get(name)
        if item is not None and not is_folder(item):
            wanted.add(name)
            continue
        if item is None and name != ".":
            continue
        if item is not None and item.target is not None:
            raise FileRefused(f"{shown_name(name)}, named by a flag, is a link to a folder: name the folder itself")
        prefix = "" if name == "." else name + "/"
        for relative, below in items.items():
            if relative.startswith(prefix) and not below.folder:
                if is_folder(below):
                    raise FileRefused(f"{shown_name(relative)} is a link to a folder, below a folder a flag "
                                      "names (a build copies the files below it, not links to folders)")
                wanted.add(relative)
    return [(name, read_entry_file(folder, name, MAX_SOURCE_BYTES)) for name in sorted(wanted)]


@dataclass(frozen=True, eq=False)
class Recipe:
    """What a program's `Prepared` is made from, read and checked but not built: its
    language and tools resolved, its flags checked, its source and the files its flags
    name read (bounded, inside its folder), and where its artefact is cached. `key` names
    the `Prepared` it makes (for a compiled language: the build cache's artefact, whose
    digest covers all of that), so that a runner can keep what it prepared and give it
    again for the same key; a changed file is a new key."""

    program: Program
    language: Language
    tools: dict[str, str]
    source: bytes
    inputs: Inputs
    main_class: str
    readonly: tuple[Path, ...]
    build: Path | None                     # the cached artefact folder (compiled languages)

    @property
    def key(self) -> Hashable:
        return (self.program, self.build, tuple(sorted(self.tools.items())), self.main_class, self.readonly)

    def prepare(self, *, isolation: Isolation) -> Prepared:
        """The program ready to run: its artefact checked against its manifest's digests, and
        built when missing or changed (the compiler in a sandbox of `isolation`). Raises CompileError."""
        if self.build is None:
            return Prepared(self.program, self.language, self.tools, None, self.main_class, self.readonly)
        if not artefacts.is_intact(self.build):
            _compile(self.program, self.language, self.tools, self.source, self.inputs, self.main_class,
                     self.build, isolation)
        return Prepared(self.program, self.language, self.tools, self.build, self.main_class,
                        self.readonly + (self.build,))


def recipe(program: Program, *, build_key: str = "", cache: Path | None = None) -> Recipe:
    """Read and check what `program` is built from (its artefact cached in `cache`, None:
    cache_root()); nothing is built. `build_key`: more that the cached artefact is keyed by
    (the self-test's: its isolation, so that a build made under one isolation never stands
    for one under another). Raises MissingInterpreter, FlagError, or VerifyError (unknown
    language, unreadable source)."""
    language = get_language(program.language)
    named = flag_paths(language.key, program.flags, program.folder)
    tools = language.tools()
    source = _read_source(program.source)
    main_class = java_main_class(source) if "{class}" in " ".join(language.run + (language.source_name,)) else "Main"
    readonly = tuple(language.extra_bind_paths()) + tuple(_tool_prefixes(tools))
    if not language.compiled:
        return Recipe(program, language, tools, source, [], main_class, readonly, None)
    inputs = _flag_inputs(program.folder, named)
    root = cache if cache is not None else cache_root()
    build = root / language.key / _digest(language, tools, program, source, build_key, inputs)
    return Recipe(program, language, tools, source, inputs, main_class, readonly, build)


def prepare(program: Program, *, isolation: Isolation, build_key: str = "", cache: Path | None = None) -> Prepared:
    """Resolve the language's tools and build the artefact (cached in `cache`, None:
    cache_root()); a compiler runs in a sandbox of `isolation`. `build_key`: as `recipe`'s.
    Raises CompileError, MissingInterpreter, FlagError, or VerifyError (unknown language,
    unreadable source)."""
    return recipe(program, build_key=build_key, cache=cache).prepare(isolation=isolation)


def _read_source(path: Path) -> bytes:
    """The source's bytes: a regular file (not a FIFO, a device, or a link out of its
    folder) of at most MAX_SOURCE_BYTES; else one line (FileRefused)."""
    try:
        return read_entry_file(path.parent, path.name, MAX_SOURCE_BYTES)
    except FileRefused as error:
        raise FileRefused(f"source in {path.parent}: {error}") from None


def _tool_prefixes(tools: dict[str, str]) -> list[Path]:
    """A tool outside the system folders needs its installation folder visible (…/bin/..)."""
    return [Path(t).parent.parent for t in tools.values() if not is_system_path(Path(t))]


def _compile(program: Program, language: Language, tools: dict[str, str], source: bytes, inputs: Inputs,
             main_class: str, build: Path, isolation: Isolation) -> None:
    """Build in a private folder, as the sandbox of a run (fresh uid, no capabilities, only
    that folder writable, no network, limits); then copy what it made into the cache,
    which no build or run can write."""
    staging = Path(tempfile.mkdtemp(prefix=reaper.build_folder_prefix(), dir=isolation.temp_root))
    try:
        os.chmod(staging, 0o755)
        work = staging / "build"
        work.mkdir(mode=0o777)
        os.chmod(work, 0o777)               # the build's own uid writes here (and only here)
        source_name = language.source_name.format(name=program.source.name, **{"class": main_class})
        for name, data in inputs:                   # what the flags name, where they name it
            (work / name).parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            (work / name).write_bytes(data)
        (work / source_name).write_bytes(source)
        values = {**tools, "source": str(work / source_name), "build": str(work),
                  "class": main_class, "memory_mb": str(COMPILE_LIMITS.memory_mb)}
        argv = expand(language.compile, values, {"flags": program.flags, "args": []})
        if isolation.cgroups is not None:
            resident.read_runtime(tools, language.runtime)
        result = run_command(argv, workdir=work, readonly=language.extra_bind_paths() + _tool_prefixes(tools),
                             limits=COMPILE_LIMITS, isolation=isolation,
                             env={**language.env, "HOME": os.path.expanduser("~")}, copy_workdir=False)
        if result.exit_code != 0 or result.limit is not None:
            raise _compile_error(program, source_name, work, result)
        (work / source_name).unlink(missing_ok=True)
        _remove_inputs(work, inputs)
        artefacts.store(work, build, label=program.source.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _remove_inputs(work: Path, inputs: Inputs) -> None:
    """Take the copied files (and the folders made for them, once empty) out of the build's
    folder: the artefact is what the compiler made."""
    folders: set[Path] = set()
    for name, _ in inputs:
        (work / name).unlink(missing_ok=True)
        folders.update(parent for parent in (work / name).parents if parent.is_relative_to(work) and parent != work)
    for folder in sorted(folders, key=lambda path: -len(path.parts)):
        try:
            folder.rmdir()
        except OSError:
            pass                                    # the compiler put something there: kept


def _compile_error(program: Program, source_name: str, work: Path, result: RunResult) -> CompileError:
    if result.limit == "time":
        return CompileError(f"{program.source.name}: the compiler ran out of time "
                            f"(limit {COMPILE_LIMITS.wall_time:g} s)", result.stderr_tail)
    if result.limit is not None:
        return CompileError(f"{program.source.name}: the compiler hit the {result.limit} limit",
                            result.stderr_tail)
    log = (result.stdout or b"").decode("utf-8", "replace") + result.stderr_tail
    log = log.replace(f"{work}/", "")     # the build folder's name means nothing to anyone
    why = f"exit code {result.exit_code}" if result.exit_code is not None else \
        f"killed (signal {result.signal})"
    first = next((line for line in log.splitlines() if "error" in line.lower()),
                 log.strip().splitlines()[0] if log.strip() else why)
    first = first.strip()[:300]
    if not first.startswith(source_name):
        first = f"{program.source.name}: {first}"
    return CompileError(first, log[-LOG_TAIL:])
