"""The solver's propagation (``kernel.c``) and the generator and search over it (``generate.c``,
which includes it) compiled once into verify's cache with the system C compiler.

The library is kept in ``$VERIFY_CACHE/arrows-kernel/<digest>/``, the digest taken over the
C sources, the flags and the machine: a changed source is a new folder. It is stored as the
compile cache stores an artefact (:mod:`verify.runner.artefacts`: copied in with a manifest
of digests, checked before it is loaded), so a library changed behind verify's back is
rebuilt, never loaded. Nothing is written inside the installed package. This is verify's
own trusted source, built by verify, never by an entry.

Checked once, then by its files' stat. The first load after a build checks the folder against
its manifest (:func:`~verify.runner.artefacts.is_intact`: every file's digest) and writes
beside it, in ``<digest>.checked``, what each file was when checked: its mode, size, inode,
modification and change times (the fingerprint the artefacts module keeps for a folder within
one process). A later load that lists the folder and finds every file exactly so loads the
library without reading it: changing a file's content, or putting another file in its place,
changes its change time or inode, which only the kernel sets. So ``verify gen arrows`` pays
one listing and a stat a file, not the digests and their modules. The compiler is looked up,
and the modules that check and build imported, only when needed.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

from verify.contests.arrows import KERNEL_FOLDER
from verify.settings import from_process

SOURCE = Path(__file__).with_name("generate.c")       # it includes kernel.c: one library
SOURCES = (SOURCE, Path(__file__).with_name("kernel.c"))
LIBRARY = "libarrows_propagate.so"
FLAGS = ("-O2", "-shared", "-fPIC")
COMPILERS = ("cc", "gcc", "clang")
FOLDER = KERNEL_FOLDER
COMPILE_SECONDS = 120
CHECKED = ".checked"        # the suffix of the record of a folder checked intact


def _sha256() -> Any:
    """A SHA-256 hash: CPython's built-in one where it has it (hashlib's OpenSSL costs
    milliseconds to start), else hashlib's; the same digests."""
    for module in ("_sha2", "_sha256"):     # CPython 3.12 on; 3.11
        try:
            return importlib.import_module(module).sha256()
        except (ImportError, AttributeError):
            continue
    import hashlib
    return hashlib.sha256()


def library_folder() -> Path:
    """Where the library built from today's source lives."""
    digest = _sha256()
    for part in (*(source.read_bytes() for source in SOURCES), " ".join(FLAGS).encode(), os.uname().machine.encode()):
        digest.update(len(part).to_bytes(8, "little") + part)
    return from_process().cache / FOLDER / digest.hexdigest()[:16]


def build_library() -> Path | None:
    """The compiled library's path: found intact in the cache, or built (once) into it.
    None without a C compiler, or when it does not compile (the pure-Python propagation then)."""
    folder = library_folder()
    library = folder / LIBRARY
    if checked_before(folder):
        return library
    from verify.runner import artefacts
    if artefacts.is_intact(folder):
        record_checked(folder)
        return library
    from verify.runner.languages import find_program
    compiler = find_program(list(COMPILERS))
    if compiler is None:
        return None
    built = artefacts.compile_library(compiler, FLAGS, SOURCE, folder, LIBRARY, "arrows propagation kernel",
                                      seconds=COMPILE_SECONDS)
    if built is not None:
        record_checked(folder)
    return built


def fingerprint(folder: Path) -> str | None:
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


def checked_before(folder: Path) -> bool:
    """The folder's files are exactly as they were when last found intact."""
    found = fingerprint(folder)
    try:
        with open(f"{folder}{CHECKED}", encoding="ascii") as record:
            return found is not None and record.read() == found
    except (OSError, ValueError):
        return False


def record_checked(folder: Path) -> None:
    """Record the folder, just found intact, as it is now (nothing when it cannot be written:
    the next load checks it again)."""
    found = fingerprint(folder)
    if found is None:
        return
    scratch = f"{folder}{CHECKED}.{os.getpid()}"
    try:
        with open(scratch, "w", encoding="ascii") as record:
            record.write(found)
        os.replace(scratch, f"{folder}{CHECKED}")
    except OSError:
        try:
            os.unlink(scratch)
        except OSError:
            pass
