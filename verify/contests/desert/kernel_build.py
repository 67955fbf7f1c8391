"""The replay loop (``kernel.c``) compiled once into verify's cache with the system C compiler.

Its constants are written into a header (:func:`constants_header`) from the modules that
define them: :mod:`.rules` (the rules' numbers and moves, as the engine plays them) and
:mod:`.kernel_tables` (the layout shared with :mod:`.kernel`). The library is kept in
``$VERIFY_CACHE/desert-kernel/<digest>/``, the digest taken over the C source, that
header, the compiler's path and its flags: a changed rule or loop is a new folder. It is
stored as the compile cache stores an artefact (:mod:`verify.runner.artefacts`: copied in
with a manifest of digests, checked before it is loaded), so a library changed behind
verify's back is rebuilt, never loaded. Nothing is written inside the installed package.
This is verify's own trusted source, built by verify (as verify-init is), never by an entry.
"""
from __future__ import annotations

import hashlib
import platform
from pathlib import Path

from verify.contests.desert import KERNEL_FOLDER, kernel_tables, rules
from verify.runner import artefacts
from verify.runner.languages import find_program
from verify.runner.paths import cache_root

SOURCE = Path(__file__).with_name("kernel.c")
LIBRARY = "libdesert_replay.so"
FLAGS = ("-O2", "-shared", "-fPIC", "-fno-strict-aliasing")
COMPILERS = ("cc", "gcc", "clang")
FOLDER = KERNEL_FOLDER
COMPILE_SECONDS = 120

# the names kernel.c uses, each taken from the module that defines it
TABLE_NAMES = (
    "T_DIRECTION", "T_SIGN", "T_MODIFIER", "T_MOD_AMOUNT", "T_SKIP",
    "P_DEFAULT_KIND", "P_DEFAULT_AMOUNT", "P_ROUTE_SQUARES", "P_WIDTH", "P_HEIGHT", "P_START", "P_END",
    "S_POSITION", "S_CARRIED", "S_TURNS", "S_DRAWN", "S_STOP", "S_REASON", "S_NEWLINES", "S_LINE_START",
    "R_CHUNK_END", "R_NOT_A_TOKEN", "R_OFF_GRID", "R_ILLEGAL", "R_DEATH", "R_WIN",
    "R_BUDGET", "R_PIPE_END", "R_READ_FAILED",
    "IO_START", "IO_FILLED", "IO_LINES", "IO_COLUMN", "IO_READ", "IO_ERRNO",
    "K_PICK", "K_DROP", "K_FILL", "CODE_DIRECTION", "CODE_KIND", "SHIFT1", "SHIFT2",
)
RULE_NAMES = ("CAPACITY", "TILE_LIMIT")


def constants_header() -> str:
    """kernel_constants.h: every number the loop is compiled with, from the modules that define it."""
    lines = ["/* written by verify/contests/desert/kernel_build.py from rules.py and kernel_tables.py */"]
    for name in TABLE_NAMES:
        lines.append(f"#define {name} {int(getattr(kernel_tables, name))}")
    for name in RULE_NAMES:
        lines.append(f"#define {name} {int(getattr(rules, name))}")
    for name in ("MIX1", "MIX2"):
        lines.append(f"#define {name} 0x{getattr(kernel_tables, name):016x}ULL")
    rows = ", ".join(str(rules.DELTAS[name][0]) for name in rules.DIRECTIONS)
    cols = ", ".join(str(rules.DELTAS[name][1]) for name in rules.DIRECTIONS)
    count = len(rules.DIRECTIONS)
    lines.append(f"static const int64_t DIRECTION_ROWS[{count}] = {{{rows}}};   /* in DIRECTIONS order */")
    lines.append(f"static const int64_t DIRECTION_COLS[{count}] = {{{cols}}};")
    return "\n".join(lines) + "\n"


def library_folder(compiler: str) -> Path:
    """Where the library built by ``compiler`` from today's sources lives."""
    digest = hashlib.sha256()
    for part in (SOURCE.read_bytes(), constants_header().encode(), compiler.encode(),
                 " ".join(FLAGS).encode(), platform.machine().encode()):
        digest.update(len(part).to_bytes(8, "little") + part)
    return cache_root() / FOLDER / digest.hexdigest()[:16]


def compiler_path() -> str | None:
    return find_program(list(COMPILERS))


def build_library() -> Path | None:
    """The compiled library's path: found intact in the cache, or built (once) into it.
    None without a C compiler, or when it does not compile (the exact path judges alone)."""
    compiler = compiler_path()
    if compiler is None:
        return None
    folder = library_folder(compiler)
    library = folder / LIBRARY
    if artefacts.is_intact(folder):
        return library
    return artefacts.compile_library(compiler, FLAGS, SOURCE, folder, LIBRARY, "desert replay kernel",
                                     headers={"kernel_constants.h": constants_header()}, seconds=COMPILE_SECONDS)
