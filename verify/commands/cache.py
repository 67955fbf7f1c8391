"""Checks kept between runs, under the digest of everything their outcome depends on.

The key covers: the entry's files (read as at load time; each file, link and folder with
its kind, path, mode and bytes or text), every file of the contest's test-case folder,
what each task runs (name, input, arguments, limits), the source of the whole ``verify``
package and of the contest's own package when it lives outside it, the compilers and
interpreters the entry's programs use (their resolved paths, sizes and modification
times: an upgrade changes them), the isolation, and the limits. Any change to any of
them is a miss.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
import time
from functools import cache
from pathlib import Path

from verify.commands.jobs import Blocked, EntryCheck, default_testcases_root
from verify.contests.contract import BatchTask
from verify.errors import VerifyError
from verify.files import (
    MAX_SOURCE_BYTES,
    TreeDigest,
    add_entry_folder,
    add_trusted_folder,
    read_entry_file,
    source_tree_digest,
    write_atomically,
)
from verify.results import CheckResult, ResultsFormatError, read_stored_check, stored_check
from verify.runner import Limits, cache_root, get_language

PACKAGE = Path(__file__).resolve().parent.parent


@cache
def package_digest() -> str:
    """The whole verify package's source (read once per process)."""
    return source_tree_digest(PACKAGE)


@cache
def contest_digest(module_name: str) -> str:
    """The source of a contest that lives outside the verify package ("" for a built-in one)."""
    location = getattr(sys.modules.get(module_name), "__file__", None)
    if location is None:
        return ""
    path = Path(location).resolve()
    if path.is_relative_to(PACKAGE):
        return ""
    if path.name != "__init__.py":          # a contest module of its own: only its file
        return hashlib.sha256(path.read_bytes()).hexdigest()
    return source_tree_digest(path.parent)


def toolchain(language_key: str) -> list[object]:
    """What identifies the tools of a language here: each one's path, size and modification time."""
    tools = get_language(language_key).tools()
    found: list[object] = []
    for name, path in sorted(tools.items()):
        try:
            info = os.stat(path)
            found.append([name, os.path.realpath(path), info.st_size, info.st_mtime_ns])
        except OSError:
            found.append([name, path])
    return found


def check_key(check: EntryCheck, limits: Limits, isolation: str, testcases: Path | None = None) -> str | None:
    """The cache key of a whole check, or None when it must not be cached. ``testcases``: the
    check's --testcases folder (None: the contest's default one); every file in it counts,
    since a judge may read more than each case's input (an expected output beside it).

    Every field is typed and length-prefixed (:class:`verify.files.TreeDigest`): two checks
    that differ in anything hashed never share a key."""
    entry = check.entry
    if check.error is not None or entry is None:
        return None
    digest = TreeDigest("verify check key")
    try:
        add_entry_folder(digest, entry.folder)
        for program in entry.programs():   # what its runs read: an entry's own program runs on a copy of its source
            digest.item(b"source", read_entry_file(program.folder, str(program.source.relative_to(program.folder)),
                                                   MAX_SOURCE_BYTES))
        cases = default_testcases_root(entry, testcases) if entry.program is not None else None
        if cases is not None:
            digest.item(b"cases")
            add_trusted_folder(digest, cases)
        tools = [[p.language, toolchain(p.language)] for p in entry.programs()]
    except VerifyError:             # the folder changed since it was loaded, a tool vanished: nothing cached
        return None
    for task in check.tasks:
        name = task.name.encode("utf-8", "surrogateescape")
        if isinstance(task, Blocked):
            digest.item(b"blocked", name, json.dumps(task.verdict.to_dict()).encode())
        elif isinstance(task, BatchTask):
            digest.item(b"batch", name, task.stdin, json.dumps(task.args).encode(), repr(task.limits).encode(),
                        b"strict" if task.strict_exit else b"lenient")
        else:
            digest.item(b"match", name, repr((task.persistent, task.limits, task.step_timeout)).encode())
    digest.item(b"context", json.dumps([package_digest(), contest_digest(type(entry.contest).__module__),
                                        tools, isolation, repr(limits), sys.version]).encode())
    return digest.hexdigest()[:32]


MAX_STORED_BYTES = 64 << 20


class CacheWriteError(VerifyError):
    """A check result that cannot be kept (a full disk, a folder that cannot be written)."""


class ResultCache:
    """Check results on disk, one file per key (:func:`verify.results.stored_check`). Each is
    written whole or not at all (:func:`verify.files.write_atomically`), and read back only
    when it names its own key and matches its digest: a file torn by a crash, truncated,
    edited or renamed is a miss, and the check runs again."""

    def __init__(self, folder: Path):
        self.folder = folder

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self, key: str) -> CheckResult | None:
        path = self.path(key)
        try:
            if path.is_symlink() or path.stat().st_size > MAX_STORED_BYTES:
                return None
            result = read_stored_check(path.read_bytes(), key)
        except (OSError, ResultsFormatError):
            return None
        try:    # read now (atime; mtime kept): `verify cache prune` removes the least recently used first
            os.utime(path, ns=(time.time_ns(), os.stat(path).st_mtime_ns))
        except OSError:
            pass
        return result

    def store(self, key: str, result: CheckResult) -> None:
        """Keep ``result`` under ``key``; a CacheWriteError (one line, exit 2) when it cannot be,
        with nothing half-written left."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path(key), stored_check(key, result))
        except OSError as error:
            full = ""
            if error.errno in (errno.ENOSPC, errno.EDQUOT):
                elsewhere = ", or set $VERIFY_CACHE to a folder elsewhere" \
                    if self.folder.resolve().is_relative_to(cache_root().resolve()) else ""
                full = f" (the disk is full: free some space{elsewhere})"
            raise CacheWriteError(f"cannot keep the check of {result.label} in {str(self.folder)!r}: "
                                  f"{error.strerror or error}{full}") from None
