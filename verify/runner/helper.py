"""verify-init (init_helper.c) and verify's other C tools, compiled once into the cache with the system C compiler.

It is verify's own trusted source, built by verify itself (never by an entry), and
kept in a folder named after the source's digest, so a changed helper is rebuilt. A tool
is linked statically where the C library allows it (else dynamically): a fork copies
less of a static process and its exec maps no shared library, which a fork server's
steps and every run's verify-init pay.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from verify.runner.languages import find_program
from verify.runner.paths import cache_root

HELPER_SOURCE = Path(__file__).with_name("init_helper.c")
LINKINGS: tuple[tuple[str, ...], ...] = (("-static",), ())     # tried in this order

_built: dict[tuple[str, str], str] = {}


def helper_path(cache: Path | None = None) -> str | None:
    """verify-init's path, built in `cache` (None: cache_root()); None without a C compiler."""
    return compiled_tool(HELPER_SOURCE, "init", "verify-init", cache)


def compiled_tool(source: Path, kind: str, name: str, cache: Path | None = None,
                  includes: Sequence[Path] = (), library: Library | None = None) -> str | None:
    """One of verify's own C tools (``source``, which #includes the sources ``includes``),
    compiled once into ``<cache>/<kind>/<digest>/<name>`` (None: cache_root()); None without a
    C compiler. ``library``: the same source is also built as a shared library beside it
    (its file name and the macro defined for that build), when it compiles. Remembered per
    cache location for the life of the process."""
    cache = cache if cache is not None else cache_root()
    where = (str(source), str(cache))
    known = _built.get(where)
    if known is None or (known and not os.path.exists(known)):
        known = _built[where] = _build(source, includes, cache, kind, name, library) or ""
    return known or None


Library = tuple[str, str]        # a shared library's file name, the macro its build defines


def _build(source_path: Path, includes: Sequence[Path], cache: Path, kind: str, name: str,
           library: Library | None = None) -> str | None:
    digest = hashlib.sha256(source_path.read_bytes())
    digest.update(repr(LINKINGS).encode())
    if library is not None:
        digest.update("\0".join(library).encode())
    for included in includes:
        digest.update(included.read_bytes())
    folder = cache / kind / digest.hexdigest()[:16]
    binary = folder / name
    if binary.exists():
        return str(binary)
    compiler = find_program(["cc", "gcc", "clang"])
    if compiler is None:
        return None
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
    try:
        for linking in LINKINGS:
            built = subprocess.run([compiler, "-O2", *linking, "-o", str(staging / name), str(source_path)],
                                   stdin=subprocess.DEVNULL, capture_output=True)
            if built.returncode == 0:
                break
        else:
            return None
        if library is not None:     # (none when it does not compile: what needs it goes without)
            subprocess.run([compiler, "-O2", "-shared", "-fPIC", f"-D{library[1]}", "-o", str(staging / library[0]),
                            str(source_path)], stdin=subprocess.DEVNULL, capture_output=True)
        os.chmod(staging, 0o755)
        try:
            os.rename(staging, folder)
        except OSError:
            if not binary.exists():
                return None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for parent in (folder, folder.parent, folder.parent.parent):
        os.chmod(parent, 0o755)
    return str(binary)
