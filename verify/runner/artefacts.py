"""The compile cache's artefacts: stored by verify, checked against their digests before use.

A build's output is copied (never moved, never linked) out of the build's private folder
into the cache: regular files and folders only, modes normalised (0755 or 0644, no
setuid bit), owned by whoever runs verify, within a size bound. A manifest of SHA-256
digests is written last, and an artefact is used only when every file matches it and
no file was added: a cache changed behind verify's back is rebuilt, not trusted.
Checking is remembered per process for files whose size, times and inode are unchanged.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

MANIFEST = ".manifest.json"
MAX_FILES = 10_000
MAX_BYTES = 1 << 30


class ArtefactError(Exception):
    """What a build made cannot be stored (too big, or not plain files)."""


def _digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


def _plain_files(folder: Path) -> tuple[list[str], list[str]]:
    """(folders, files) below `folder`, relative; ArtefactError for anything else."""
    folders: list[str] = []
    files: list[str] = []
    total = 0
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = os.path.join(root, name)
            info = os.lstat(path)
            relative = os.path.relpath(path, folder)
            if stat.S_ISDIR(info.st_mode):
                folders.append(relative)
            elif stat.S_ISREG(info.st_mode):
                files.append(relative)
                total += info.st_size
            else:
                raise ArtefactError(f"the build made {relative!r}, which is not a plain file")
            if len(files) > MAX_FILES or total > MAX_BYTES:
                raise ArtefactError(f"the build made more than {MAX_FILES} files or {MAX_BYTES >> 20} MiB")
    return sorted(folders), sorted(files)


def store(work: Path, build: Path, label: str) -> None:
    """Copy the build's output `work` into the cache at `build`, with its manifest."""
    folders, files = _plain_files(work)
    build.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(build.parent, 0o755)
    staging = Path(tempfile.mkdtemp(prefix=".store-", dir=build.parent))
    try:
        for relative in folders:
            (staging / relative).mkdir(mode=0o755)
        digests = {}
        for relative in files:
            source, target = work / relative, staging / relative
            with open(source, "rb") as reader, open(target, "xb") as writer:
                shutil.copyfileobj(reader, writer, 1 << 20)
            executable = os.stat(source).st_mode & 0o111
            os.chmod(target, 0o755 if executable else 0o644)
            digests[relative] = _digest(target)
        (staging / MANIFEST).write_text(json.dumps({"label": label, "files": digests}, sort_keys=True))
        os.chmod(staging / MANIFEST, 0o644)
        for relative in folders:
            os.chmod(staging / relative, 0o755)
        os.chmod(staging, 0o755)
        try:
            os.rename(staging, build)
        except OSError:
            if is_intact(build):
                return                         # another verify stored the same build first
            shutil.rmtree(build, ignore_errors=True)
            os.rename(staging, build)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


_verified: dict[str, tuple] = {}
_lock = threading.Lock()


def _fingerprint(build: Path, files: list[str]) -> tuple:
    found = []
    for relative in files:
        info = os.lstat(build / relative)
        found.append((relative, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino))
    return tuple(found)


def is_intact(build: Path) -> bool:
    """Every file of the artefact matches the manifest, and there is no other file."""
    try:
        manifest = json.loads((build / MANIFEST).read_text())
        expected = manifest["files"]
        _, files = _plain_files(build)
        files.remove(MANIFEST)
        if sorted(expected) != files:
            return False
        fingerprint = _fingerprint(build, files)
        with _lock:
            if _verified.get(str(build)) == fingerprint:
                return True
        if any(_digest(build / relative) != digest for relative, digest in expected.items()):
            return False
        if any(_fingerprint(build, files)[i][1] & (stat.S_ISUID | stat.S_ISGID) for i in range(len(files))):
            return False
    except (OSError, ValueError, KeyError, TypeError, ArtefactError):
        return False
    with _lock:
        _verified[str(build)] = fingerprint
    return True


def compile_library(compiler: str, flags: Sequence[str], source: Path, folder: Path, library: str, label: str, *,
                    headers: Mapping[str, str] | None = None, seconds: float = 120) -> Path | None:
    """A shared library of verify's own C ``source`` (a contest's kernel: trusted, never an
    entry's) compiled by ``compiler`` and stored as an artefact in ``folder``, with ``headers``
    (name -> text) beside it on the include path. Its path, or None when it does not compile
    (the caller's pure-Python path then)."""
    import subprocess  # (only to build: loading a built library stays cheap)
    with tempfile.TemporaryDirectory(prefix="verify-kernel-") as scratch:
        for name, text in (headers or {}).items():
            (Path(scratch) / name).write_text(text)
        work = Path(scratch) / "out"
        work.mkdir()
        try:
            built = subprocess.run([compiler, *flags, "-I", scratch, "-o", str(work / library), str(source)],
                                   stdin=subprocess.DEVNULL, capture_output=True, timeout=seconds)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if built.returncode != 0 or not (work / library).is_file():
            return None
        try:
            store(work, folder, label)
        except (OSError, ArtefactError):
            return None
    return folder / library if is_intact(folder) else None
