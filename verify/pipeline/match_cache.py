"""A tournament's job results kept between runs, each under the digest of everything it depends on.

A job's key covers: the job itself (what the contest scheduled, as plain data: for a walk, the
board, its size and seed, the limits and the protocol; for a duel, both players, the seed, the
rounds and the limits), for each program the job runs its folder's digest
and its language's tools (path, size, modification time), and the context the command gives:
verify's own source, an external contest's source, the isolation, the Python running verify.
A job holding a value the key cannot name exactly (not plain data: :func:`canonical`) is never
kept: it is played every time.

One file per key (``<key>.match``): a JSON line (the key, the result, and the log's length and
digest) followed by the job's log as it was written, compressed (zlib: a walk's JSON lines of
steps take about a tenth). It is written whole or not at all
(:func:`verify.files.write_atomically`: a temporary file renamed), so runs at once never see half
a file, and the last one written wins. A file that does not parse, names another key, or whose
log does not match its digest is no result: the job is played again and its file rewritten.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verify.files import TreeDigest, write_atomically
from verify.runner import Program

FOLDER = "matches"
"""The cache's folder of kept results (``verify cache`` lists, prunes and clears it)."""
FORMAT = "verify match 1"
MAX_RESULT_BYTES = 16 << 20
MAX_LOG_BYTES = 64 << 20           # a walk of 125,000 steps logs about 30 MiB


class Uncacheable(Exception):
    """A job holding a value that is not plain data: its key would not name it exactly."""


def canonical(value: object) -> object:
    """``value`` as JSON data that names it exactly, whatever the process: each dataclass with its
    type and fields, tuples, sets and dicts in a stable order (a set's order is not stable across
    processes), paths and enums tagged. Anything else raises Uncacheable."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, enum.Enum):
        return {"enum": _type_name(value), "value": canonical(value.value)}
    if isinstance(value, Path):
        return {"path": str(value)}
    if isinstance(value, range):
        return {"range": [value.start, value.stop, value.step]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"type": _type_name(value),
                "fields": [[f.name, canonical(getattr(value, f.name))] for f in dataclasses.fields(value)]}
    if isinstance(value, (tuple, list)):
        return {type(value).__name__: [canonical(item) for item in value]}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((canonical(item) for item in value), key=_sort_key)}
    if isinstance(value, dict):
        return {"dict": sorted(([canonical(k), canonical(v)] for k, v in value.items()), key=_sort_key)}
    raise Uncacheable(type(value).__name__)


def _type_name(value: object) -> str:
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _sort_key(item: object) -> str:
    return json.dumps(item, sort_keys=True)


@dataclass(frozen=True)
class Kept:
    """A result kept from an earlier run, and the log that run wrote (None: it wrote none)."""

    result: Any
    log: bytes | None


class MatchCache:
    """The kept results under ``folder``. ``context``: what every key covers besides the job
    (verify's source, the isolation...); ``toolchain(language)``: what identifies a language's
    tools here. ``fresh``: nothing kept is used, and every result played is kept anew.
    It counts what it gave back and what was played, for the command's summary."""

    def __init__(self, folder: Path, context: Sequence[object], toolchain: Callable[[str], object], *,
                 fresh: bool = False) -> None:
        self.folder = folder
        self.fresh = fresh
        self._context = json.dumps(list(context), sort_keys=True, default=str)
        self._toolchain = toolchain
        self._tools: dict[str, str] = {}
        self.reused = 0
        self.played = 0
        self.unkept: str | None = None      # why a result could not be kept (the first reason)

    def key(self, job: object, programs: Sequence[tuple[Program, str]]) -> str | None:
        """The key of ``job``, which runs ``programs`` (each with its folder's digest as loaded);
        None: it is not kept (not plain data, or a folder that could not be read)."""
        try:
            named = canonical(job)
        except Uncacheable:
            return None
        if any(not digest for _, digest in programs):
            return None
        digest = TreeDigest("verify tournament job")
        digest.item(b"context", self._context.encode())
        digest.item(b"job", json.dumps(named, sort_keys=True).encode())
        for program, folder_digest in programs:
            digest.item(b"program", json.dumps(canonical(program)).encode(), folder_digest.encode(),
                        self._tools_of(program.language).encode())
        return digest.hexdigest()[:40]

    def _tools_of(self, language: str) -> str:
        if language not in self._tools:
            self._tools[language] = json.dumps(self._toolchain(language), default=str)
        return self._tools[language]

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.match"

    def load(self, key: str) -> Kept | None:
        """What was kept under ``key``; None when nothing whole was (or the cache is to be fresh)."""
        if self.fresh:
            return None
        path = self.path(key)
        try:
            if path.is_symlink() or path.stat().st_size > MAX_RESULT_BYTES + MAX_LOG_BYTES:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        kept = _parse(data, key)
        if kept is not None:
            try:    # read now (atime): `verify cache prune` removes the least recently used first
                os.utime(path, ns=(time.time_ns(), os.stat(path).st_mtime_ns))
            except OSError:
                pass
        return kept

    def store(self, key: str, result: Any, log: Path | None) -> None:
        """Keep ``result`` (with the log at ``log``, when it wrote one) under ``key``. A result that is
        not JSON data, or a log too big or unreadable, is not kept; a cache that cannot be written
        neither: the reason is kept for the summary, and the tournament goes on."""
        try:
            text = json.dumps(result, allow_nan=False)
            if json.loads(text) != result or len(text) > MAX_RESULT_BYTES:
                return
        except (TypeError, ValueError):
            return
        logged = _read_log(log)
        if log is not None and logged is None:
            return
        header = {"format": FORMAT, "key": key, "result": result,
                  "log": None if logged is None else {"bytes": len(logged),
                                                      "sha256": hashlib.sha256(logged).hexdigest()}}
        packed = b"" if logged is None else zlib.compress(logged, 6)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path(key), json.dumps(header, allow_nan=False).encode() + b"\n" + packed)
        except OSError as error:
            if self.unkept is None:
                self.unkept = f"cannot write in {str(self.folder)!r}: {error.strerror or error}"


def _read_log(log: Path | None) -> bytes | None:
    if log is None:
        return None
    try:
        if log.is_symlink() or log.stat().st_size > MAX_LOG_BYTES:
            return None
        return log.read_bytes()
    except OSError:
        return None


def _parse(data: bytes, key: str) -> Kept | None:
    head, newline, log = data.partition(b"\n")
    try:
        header = json.loads(head)
    except (UnicodeDecodeError, ValueError):
        return None
    if not newline or not isinstance(header, dict) or header.get("format") != FORMAT or header.get("key") != key \
            or "result" not in header:
        return None
    about = header.get("log")
    if about is None:
        return Kept(header["result"], None) if not log else None
    unpacking = zlib.decompressobj()
    try:
        unpacked = unpacking.decompress(log, MAX_LOG_BYTES + 1)
    except zlib.error:
        return None
    whole = unpacking.eof and not unpacking.unused_data
    if not whole or not isinstance(about, dict) or about.get("bytes") != len(unpacked) \
            or about.get("sha256") != hashlib.sha256(unpacked).hexdigest():
        return None
    return Kept(header["result"], unpacked)
