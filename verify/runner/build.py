"""Compile once per source digest, cached; turn a Program into the argv that runs it.

The cache lives in $VERIFY_CACHE, else $XDG_CACHE_HOME/verify, else ~/.cache/verify.
An artefact is keyed by the digest of (language table entry, compiler path, flags,
source bytes). It is built in a temporary folder next to its final place and renamed
into place, so concurrent builds of the same source never see half an artefact: the
loser of the race simply discards its own copy.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from verify.errors import VerifyError
from verify.runner.languages import Language, expand, get_language, java_main_class
from verify.runner.limits import Limits

COMPILE_LIMITS = Limits(wall_time=60.0, cpu_time=60.0, memory=2 << 30, output=1 << 20, processes=256)
LOG_TAIL = 4000


class CompileError(VerifyError):
    """The compiler rejected the source; ``log`` holds (the tail of) what it said."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class Program:
    language: str                 # key of languages.toml
    source: Path                  # absolute path of the source file
    flags: tuple[str, ...] = ()   # interpreter (or compiler) flags, scored as penalties
    workdir: Path | None = None   # visible and writable in the sandbox (default: the source's folder)

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", Path(self.source).absolute())
        object.__setattr__(self, "flags", tuple(self.flags))
        if self.workdir is not None:
            object.__setattr__(self, "workdir", Path(self.workdir).absolute())

    @property
    def folder(self) -> Path:
        return self.workdir or self.source.parent


@dataclass(frozen=True)
class Prepared:
    """A program ready to run: its language resolved, its artefact built."""

    program: Program
    language: Language
    tools: dict[str, str]
    build: Path | None                     # the cached artefact folder (compiled languages)
    main_class: str = "Main"
    readonly: tuple[Path, ...] = field(default=())

    def argv(self, args: Sequence[str], limits: Limits, path=lambda p: p) -> list[str]:
        """The command line, with paths as the sandbox shows them (`path`)."""
        values = {**self.tools, "source": str(path(self.program.source)),
                  "build": str(path(self.build)) if self.build else "",
                  "class": self.main_class, "memory_mb": str(max(16, limits.memory_mb * 3 // 4))}
        return expand(self.language.run, values, {"flags": self.program.flags, "args": list(args)})


def cache_root() -> Path:
    if os.environ.get("VERIFY_CACHE"):
        return Path(os.environ["VERIFY_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "verify"


def _digest(language: Language, tools: dict[str, str], program: Program, source: bytes) -> str:
    key = json.dumps([language.key, list(language.compile), tools, list(program.flags)]).encode()
    return hashlib.sha256(key + b"\0" + source).hexdigest()[:32]


def prepare(program: Program) -> Prepared:
    """Resolve the language's tools and build the artefact (cached). Raises CompileError,
    MissingInterpreter, or VerifyError (unknown language, unreadable source)."""
    language = get_language(program.language)
    tools = language.tools()
    try:
        source = program.source.read_bytes()
    except OSError as error:
        raise VerifyError(f"cannot read source {program.source}: {error.strerror}") from None
    main_class = java_main_class(source) if "{class}" in " ".join(language.run + (language.source_name,)) else "Main"
    readonly = tuple(language.extra_bind_paths()) + tuple(_tool_prefixes(tools))
    if not language.compiled:
        return Prepared(program, language, tools, None, main_class, readonly)
    build = cache_root() / language.key / _digest(language, tools, program, source)
    if not (build / ".complete").exists():
        _compile(program, language, tools, source, main_class, build)
    return Prepared(program, language, tools, build, main_class, readonly + (build,))


def _tool_prefixes(tools: dict[str, str]) -> list[Path]:
    """A tool outside the system folders needs its installation folder visible (…/bin/..)."""
    from verify.runner.sandbox import _is_system_path
    return [Path(t).parent.parent for t in tools.values() if not _is_system_path(Path(t))]


def _compile(program: Program, language: Language, tools: dict[str, str], source: bytes,
             main_class: str, build: Path) -> None:
    from verify.runner.run import execute  # run imports build: import here to stay acyclic

    build.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(build.parent, 0o755)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=build.parent))
    try:
        source_name = language.source_name.format(name=program.source.name, **{"class": main_class})
        (staging / source_name).write_bytes(source)
        values = {**tools, "source": str(staging / source_name), "build": str(staging),
                  "class": main_class, "memory_mb": "1024"}
        argv = expand(language.compile, values, {"flags": program.flags, "args": []})
        result = execute(argv, workdir=staging, readonly=language.extra_bind_paths() + _tool_prefixes(tools),
                         limits=COMPILE_LIMITS, memory_kind="data",
                         env={**language.env, "HOME": os.path.expanduser("~")},
                         copy_workdir=False, own_uid=False)
        if result.exit_code != 0:
            log = (result.stdout or b"").decode("utf-8", "replace") + result.stderr_tail
            log = log.replace(f"{staging}/", "")     # the build folder's name means nothing to anyone
            why = f"exit code {result.exit_code}" if result.exit_code is not None else \
                f"killed ({result.limit or 'signal ' + str(result.signal)})"
            first = next((line for line in log.splitlines() if "error" in line.lower()),
                         log.strip().splitlines()[0] if log.strip() else why)
            first = first.strip()[:300]
            if not first.startswith(source_name):
                first = f"{program.source.name}: {first}"
            raise CompileError(first, log[-LOG_TAIL:])
        (staging / ".complete").write_text(program.source.name + "\n")
        for root, dirs, files in os.walk(staging):
            os.chmod(root, 0o755)
        try:
            os.rename(staging, build)
        except OSError:
            if not (build / ".complete").exists():
                raise
            # another process finished the same build first: ours is the spare copy
    finally:
        shutil.rmtree(staging, ignore_errors=True)
