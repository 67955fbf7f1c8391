"""The solver's propagation (``kernel.c``) and the generator and search over it (``generate.c``,
which includes it) compiled once into verify's cache with the system C compiler: as a library
(loaded with ctypes, :mod:`.library`) and as the generator's program (``generate_main.c``, which
the quick ``verify gen arrows`` starts).

Each is kept in ``$VERIFY_CACHE/arrows-kernel/<digest>/``, the digest taken over its C sources,
the flags and the machine: a changed source is a new folder. It is stored as the
compile cache stores an artefact (:mod:`verify.runner.artefacts`: copied in with a manifest
of digests, checked before it is used), so a build changed behind verify's back is
rebuilt, never used. Nothing is written inside the installed package. This is verify's
own trusted source, built by verify, never by an entry.

Checked once, then by its files' stat. The first use after a build checks the folder against
its manifest (:func:`~verify.runner.artefacts.is_intact`: every file's digest) and writes
beside it, in ``<digest>.checked``, what each file was when checked: its mode, size, inode,
modification and change times (the fingerprint the artefacts module keeps for a folder within
one process). A later use that lists the folder and finds every file exactly so takes the
build without reading it: changing a file's content, or putting another file in its place,
changes its change time or inode, which only the kernel sets. So ``verify gen arrows`` pays the
sources' digest, one listing and a stat a file, not the build's digests and their modules. The
compiler is looked up, and the modules that check and build imported, only when needed.
"""
from __future__ import annotations

import os

from verify.contests.arrows import KERNEL_FOLDER
from verify.contests.arrows.generation import sha512
from verify.environment import cache_folder

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing: the quick command imports this)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(_HERE, "generate.c")       # it includes kernel.c: one library
SOURCES = (SOURCE, os.path.join(_HERE, "kernel.c"))
LIBRARY = "libarrows_propagate.so"
FLAGS = ("-O2", "-shared", "-fPIC")
PROGRAM_SOURCE = os.path.join(_HERE, "generate_main.c")     # it includes generate.c
PROGRAM = "arrows-generate"
# static first (it starts about a millisecond sooner: no dynamic linking), else where the C
# library has no static archive
PROGRAM_FLAGS = (("-O2", "-static"), ("-O2",))
COMPILERS = ("cc", "gcc", "clang")
FOLDER = KERNEL_FOLDER
COMPILE_SECONDS = 120
CHECKED = ".checked"        # the suffix of the record of a folder checked intact


def _read(path: str) -> bytes:
    with open(path, "rb") as source:
        return source.read()


def _folders(sources: Sequence[str], flag_sets: Sequence[Sequence[str]]) -> list[str]:
    """Where the builds of these sources with each of these flags live: each named by a digest
    of the sources, its flags and the machine."""
    of_sources = sha512()
    for source in sources:
        part = _read(source)
        of_sources.update(len(part).to_bytes(8, "little") + part)
    folders = []
    for flags in flag_sets:
        digest = of_sources.copy()          # (the sources hashed once for every set of flags)
        for part in (" ".join(flags).encode(), os.uname().machine.encode()):
            digest.update(len(part).to_bytes(8, "little") + part)
        folders.append(os.path.join(cache_folder(), FOLDER, digest.hexdigest()[:16]))
    return folders


def library_folder() -> str:
    """Where the library built from today's source lives."""
    return _folders(SOURCES, [FLAGS])[0]


def program_folders() -> list[str]:
    """Where the generator's program built from today's source lives, for each of its flags."""
    return _folders((PROGRAM_SOURCE, *SOURCES), PROGRAM_FLAGS)


def library_path() -> str | None:
    """The compiled library's path: found intact in the cache, or built (once) into it.
    None without a C compiler, or when it does not compile (the pure-Python propagation then).
    Found as checked before, it costs no import beyond :mod:`os`."""
    folder = library_folder()
    if checked_before(folder):
        return os.path.join(folder, LIBRARY)
    return _check_or_build(folder, LIBRARY, SOURCE, FLAGS, "arrows propagation kernel")


def program_path() -> str | None:
    """The generator's program (``generate_main.c``) as :func:`library_path` finds or builds the
    library: the first of its builds (:data:`PROGRAM_FLAGS`) checked before, else the first that
    is intact or compiles."""
    folders = program_folders()
    for folder in folders:
        if checked_before(folder):
            return os.path.join(folder, PROGRAM)
    for folder, flags in zip(folders, PROGRAM_FLAGS, strict=True):
        built = _check_or_build(folder, PROGRAM, PROGRAM_SOURCE, flags, "arrows generator program")
        if built is not None:
            return built
    return None


def build_library() -> Path | None:
    """:func:`library_path` as a path."""
    from pathlib import Path
    found = library_path()
    return None if found is None else Path(found)


def _check_or_build(folder: str, name: str, source: str, flags: Sequence[str], label: str) -> str | None:
    """The build in ``folder`` checked against its manifest (and recorded so), or built there."""
    from pathlib import Path

    from verify.runner import artefacts
    if artefacts.is_intact(Path(folder)):
        record_checked(folder)
        return os.path.join(folder, name)
    from verify.runner.languages import find_program
    compiler = find_program(list(COMPILERS))
    if compiler is None:
        return None
    built = artefacts.compile_library(compiler, flags, Path(source), Path(folder), name, label,
                                      seconds=COMPILE_SECONDS)
    if built is None:
        return None
    record_checked(folder)
    return str(built)


def fingerprint(folder: str | Path) -> str | None:
    """What the folder's files are: one line a file, by name (None when it cannot be listed,
    or holds anything but plain files)."""
    lines = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.is_file(follow_symlinks=False):
                    return None
                info = entry.stat(follow_symlinks=False)
                lines.append(f"{entry.name} {info.st_mode} {info.st_size} {info.st_ino} {info.st_mtime_ns} "
                             f"{info.st_ctime_ns}\n")
    except OSError:
        return None
    return "".join(sorted(lines)) if lines else None


def checked_before(folder: str | Path) -> bool:
    """The folder's files are exactly as they were when last found intact."""
    found = fingerprint(folder)
    try:
        with open(f"{folder}{CHECKED}", encoding="utf-8") as record:     # (ASCII; the codec Python has loaded)
            return found is not None and record.read() == found
    except (OSError, ValueError):
        return False


def record_checked(folder: str | Path) -> None:
    """Record the folder, just found intact, as it is now (nothing when it cannot be written:
    the next load checks it again)."""
    found = fingerprint(folder)
    if found is None:
        return
    scratch = f"{folder}{CHECKED}.{os.getpid()}"
    try:
        with open(scratch, "w", encoding="utf-8") as record:
            record.write(found)
        os.replace(scratch, f"{folder}{CHECKED}")
    except OSError:
        try:
            os.unlink(scratch)
        except OSError:
            pass
