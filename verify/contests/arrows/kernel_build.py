"""The solver's propagation (``kernel.c``) and the generator and search over it (``generate.c``,
which includes it) compiled once into verify's cache with the system C compiler.

The library is kept in ``$VERIFY_CACHE/arrows-kernel/<digest>/``, the digest taken over the
C sources, the flags and the machine: a changed source is a new folder. It is stored as the
compile cache stores an artefact (:mod:`verify.runner.artefacts`: copied in with a manifest
of digests, checked before it is loaded), so a library changed behind verify's back is
rebuilt, never loaded. Nothing is written inside the installed package. This is verify's
own trusted source, built by verify, never by an entry. The compiler is looked up only
when the library must be built, and the modules that build it imported only then: loading
a built one stays cheap for ``verify gen``.
"""
from __future__ import annotations

import hashlib
import platform
from pathlib import Path

from verify.contests.arrows import KERNEL_FOLDER
from verify.runner import artefacts
from verify.runner.paths import cache_root

SOURCE = Path(__file__).with_name("generate.c")       # it includes kernel.c: one library
SOURCES = (SOURCE, Path(__file__).with_name("kernel.c"))
LIBRARY = "libarrows_propagate.so"
FLAGS = ("-O2", "-shared", "-fPIC")
COMPILERS = ("cc", "gcc", "clang")
FOLDER = KERNEL_FOLDER
COMPILE_SECONDS = 120


def library_folder() -> Path:
    """Where the library built from today's source lives."""
    digest = hashlib.sha256()
    for part in (*(source.read_bytes() for source in SOURCES), " ".join(FLAGS).encode(), platform.machine().encode()):
        digest.update(len(part).to_bytes(8, "little") + part)
    return cache_root() / FOLDER / digest.hexdigest()[:16]


def build_library() -> Path | None:
    """The compiled library's path: found intact in the cache, or built (once) into it.
    None without a C compiler, or when it does not compile (the pure-Python propagation then)."""
    folder = library_folder()
    library = folder / LIBRARY
    if artefacts.is_intact(folder):
        return library
    from verify.runner.languages import find_program
    compiler = find_program(list(COMPILERS))
    if compiler is None:
        return None
    return artefacts.compile_library(compiler, FLAGS, SOURCE, folder, LIBRARY, "arrows propagation kernel",
                                     seconds=COMPILE_SECONDS)
