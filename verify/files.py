"""Reading the files the judge is given: bounded in size, and confined to the entry's folder.

Two kinds of files reach the judge (the bounds are listed in docs/security.md):

- **Files an entry names** (entry.toml, its source, the desert's demo map and notation
  file...). They are written by strangers: :func:`read_entry_file` reads one only when
  it is a regular file inside the entry's folder once every symbolic link is resolved,
  of at most ``limit`` bytes. It opens the resolved path one component at a time below
  the folder with ``O_NOFOLLOW`` (and ``O_NONBLOCK``, so a FIFO swapped in cannot block)
  and checks the opened descriptor with ``fstat``: replacing a file between the check
  and the read cannot lead it out of the folder or onto a FIFO or a device.
  :func:`scan_entry_folder` refuses a folder holding anything but regular files,
  folders and symbolic links to them inside it, or too much of them.
- **Files given on the command line** (maps, puzzles, outputs, logs; ``-`` is standard
  input). The person running verify chose them, so any path is read, but only a regular
  file or a pipe, and through :func:`read_input` with a cap, or :func:`input_stream`
  chunk by chunk for outputs that may be large.

Every refusal is one line that names the file, never what the file holds.
"""
from __future__ import annotations

import errno
import hashlib
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from verify.errors import InputError
from verify.sizes import size as size_text

MAX_ENTRY_TOML_BYTES = 64 << 10     # entry.toml
MAX_SOURCE_BYTES = 1 << 20          # a program's source file
MAX_ENTRY_FOLDER_BYTES = 16 << 20   # every regular file of an entry folder together
MAX_ENTRY_FOLDER_FILES = 1000       # files, folders and links in an entry folder
MAX_ENTRY_FOLDER_DEPTH = 16         # folders within folders

READ_CHUNK = 1 << 20
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_OPEN_FOLDER = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC


class FileRefused(InputError):
    """A file the judge will not read; the message names the file and why, in one line."""


def shown_name(name: str) -> str:
    """A file name as messages quote it: repr (no raw control characters), at most 60 characters."""
    text = repr(name)
    return text if len(text) <= 60 else text[:56] + "...'"


def kind_of(mode: int) -> str:
    for test, kind in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return kind
    return "a special file"


# ---------------------------------------------------------------- files an entry names

def read_entry_file(folder: Path, name: str, limit: int) -> bytes:
    """The bytes of ``name`` (relative to the entry ``folder``): a regular file inside the
    folder (symbolic links resolved) of at most ``limit`` bytes; else :class:`FileRefused`."""
    fd = _open_inside(folder, name)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{shown_name(name)} is {kind_of(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise FileRefused(f"{shown_name(name)} is larger than {size_text(limit)} (the most allowed)")
        data = _read_at_most(fd, limit + 1)
    except OSError as error:
        raise FileRefused(f"{shown_name(name)}: cannot read it: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FileRefused(f"{shown_name(name)} is larger than {size_text(limit)} (the most allowed)")
    return data


def check_entry_file(folder: Path, name: str, limit: int) -> Path:
    """Check ``name`` as :func:`read_entry_file` reads it; return its path in the folder."""
    read_entry_file(folder, name, limit)
    return (Path(folder) / name).absolute()


def _inside(root: str, target: str) -> bool:
    return target != root and target.startswith(root.rstrip("/") + "/")


def _relative_inside(folder: Path, name: str) -> PurePosixPath:
    """``name`` resolved (symbolic links followed), relative to the resolved folder."""
    if not name or "\0" in name:
        raise FileRefused(f"{shown_name(name)} is not a file name")
    root = os.path.realpath(folder)
    target = os.path.realpath(os.path.join(root, name))
    if not _inside(root, target):
        raise FileRefused(f"{shown_name(name)} is outside the entry folder")
    return PurePosixPath(target[len(root.rstrip("/")) + 1:])


def _open_inside(folder: Path, name: str) -> int:
    """A descriptor of ``name`` opened below the folder, component by component, following
    no symbolic link (the resolved path has none left: one that appears is a swap)."""
    relative = _relative_inside(folder, name)
    try:
        current = os.open(os.path.realpath(folder), _OPEN_FOLDER)
    except OSError as error:
        raise FileRefused(f"cannot open the entry folder: {error.strerror}") from None
    try:
        for part in relative.parts[:-1]:
            below = os.open(part, _OPEN_FOLDER, dir_fd=current)
            os.close(current)
            current = below
        last = relative.parts[-1]
        mode = os.stat(last, dir_fd=current, follow_symlinks=False).st_mode
        if not stat.S_ISREG(mode):          # refused before it is opened: opening a device may act
            raise FileRefused(f"{shown_name(name)} is {kind_of(mode)}, not a regular file")
        return os.open(last, _OPEN_FILE, dir_fd=current)
    except (FileNotFoundError, NotADirectoryError):
        raise FileRefused(f"no such file {shown_name(name)}") from None
    except OSError as error:
        if error.errno == errno.ELOOP:      # a link where the check saw none: swapped in since
            raise FileRefused(f"{shown_name(name)} changed while it was opened") from None
        raise FileRefused(f"{shown_name(name)}: cannot open it: {error.strerror}") from None
    finally:
        os.close(current)


@dataclass(frozen=True)
class EntryFile:
    """One item of an entry folder: a regular file (``size``) or a symbolic link (``target``,
    relative to the folder). Folders are walked, not listed."""

    relative: str
    size: int = 0
    target: str | None = None


def scan_entry_folder(folder: Path) -> list[EntryFile]:
    """Every regular file and symbolic link of the entry folder, sorted by path.

    Raises :class:`FileRefused` for a FIFO, socket or device, a symbolic link leading out
    of the folder (or to nothing, or to a special file), and a folder with more than
    ``MAX_ENTRY_FOLDER_FILES`` items, ``MAX_ENTRY_FOLDER_BYTES`` bytes or
    ``MAX_ENTRY_FOLDER_DEPTH`` levels."""
    root = os.path.realpath(folder)
    found: list[EntryFile] = []
    pending = [(root, "", 0)]
    items = total = 0
    while pending:
        directory, prefix, depth = pending.pop()
        try:
            with os.scandir(directory) as listing:
                children = sorted(listing, key=lambda child: child.name)
        except OSError as error:
            raise FileRefused(f"cannot list {shown_name(prefix or '.')}: {error.strerror}") from None
        for child in children:
            items += 1
            if items > MAX_ENTRY_FOLDER_FILES:
                raise FileRefused(f"the entry folder holds more than {MAX_ENTRY_FOLDER_FILES} files")
            relative = prefix + child.name
            try:
                info = child.stat(follow_symlinks=False)
            except OSError as error:        # gone since it was listed, or unreadable
                raise FileRefused(f"{shown_name(relative)}: cannot read it: {error.strerror}") from None
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                found.append(EntryFile(relative, target=_link_target(root, relative, child.path)))
            elif stat.S_ISDIR(mode):
                if depth + 1 > MAX_ENTRY_FOLDER_DEPTH:
                    raise FileRefused(f"{shown_name(relative)} is more than {MAX_ENTRY_FOLDER_DEPTH} "
                                      "folders deep")
                pending.append((child.path, relative + "/", depth + 1))
            elif stat.S_ISREG(mode):
                size = info.st_size
                total += size
                if total > MAX_ENTRY_FOLDER_BYTES:
                    raise FileRefused(f"the entry folder holds more than {size_text(MAX_ENTRY_FOLDER_BYTES)}")
                found.append(EntryFile(relative, size=size))
            else:
                raise FileRefused(f"{shown_name(relative)} is {kind_of(mode)} (an entry folder may hold "
                                  "only regular files, folders and symbolic links to them inside it)")
    return sorted(found, key=lambda item: item.relative)


def _link_target(root: str, relative: str, path: str) -> str:
    """Where a symbolic link of the folder leads, relative to the folder; refused when that is
    outside it, nowhere, or a special file."""
    target = os.path.realpath(path)
    if not _inside(root, target):
        raise FileRefused(f"{shown_name(relative)} is a symbolic link out of the entry folder")
    try:
        mode = os.stat(target).st_mode
    except OSError:
        raise FileRefused(f"{shown_name(relative)} is a symbolic link to nothing") from None
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise FileRefused(f"{shown_name(relative)} is a symbolic link to {kind_of(mode)}")
    return target[len(root.rstrip("/")) + 1:]


def entry_folder_contents(folder: Path) -> Iterator[tuple[EntryFile, bytes]]:
    """Each item of :func:`scan_entry_folder` with its bytes (a link: no bytes), read as
    :func:`read_entry_file` reads: for digests of the whole folder."""
    for item in scan_entry_folder(folder):
        if item.target is not None:
            yield item, b""
        else:
            yield item, read_entry_file(folder, item.relative, MAX_ENTRY_FOLDER_BYTES)


SOURCE_SUFFIXES = (".py", ".toml", ".c", ".txt")


def source_tree_digest(root: Path) -> str:
    """The digest of a package's source (verify's own, or a contest's): its Python files and
    the data files it ships, by relative path. Trusted code, read as it is on disk now."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def folder_digest(folder: Path) -> str:
    """The digest of every file of an entry folder (a link: where it leads), read as
    :func:`entry_folder_contents` reads: what a worker elsewhere checks it sees the same."""
    digest = hashlib.sha256()
    for item, data in entry_folder_contents(folder):
        name = item.relative.encode("utf-8", "surrogateescape")
        target = b"->" + item.target.encode("utf-8", "surrogateescape") if item.target is not None else b""
        digest.update(name + b"\0" + target + data + b"\0")
    return digest.hexdigest()


# ---------------------------------------------------------------- files given on the command line

@contextmanager
def input_stream(path: str, what: str) -> Iterator[BinaryIO]:
    """``path`` opened for reading (``-``: standard input, left open): a regular file or a pipe.

    A FIFO is opened without waiting for a writer (one that never comes reads as empty);
    a device, a socket or a folder is an :class:`InputError` naming ``what`` it should be."""
    if path == "-":
        yield sys.stdin.buffer
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        raise InputError(f"{path}: cannot read the {what}: {error.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            raise InputError(f"{path}: the {what} is {kind_of(mode)}, not a regular file or a pipe")
        os.set_blocking(fd, True)
        stream = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with stream:
        yield stream


def read_input(path: str, limit: int, what: str) -> bytes:
    """The bytes of ``path`` (``-``: standard input), at most ``limit`` of them; more is an
    :class:`InputError` (``{path}: the map is larger than 1 MiB ...``)."""
    with input_stream(path, what) as stream:
        data = read_chunks(stream, path, what, limit + 1)
    if len(data) > limit:
        raise InputError(f"{path}: the {what} is larger than {size_text(limit)} (the most a {what} may hold)")
    return data


def read_chunks(stream: BinaryIO, path: str, what: str, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``stream`` (fewer at its end); a read error is an InputError."""
    parts: list[bytes] = []
    size = 0
    try:
        while size < limit:
            chunk = stream.read(min(READ_CHUNK, limit - size))
            if not chunk:
                break
            parts.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise InputError(f"{path}: cannot read the {what}: {error.strerror}") from None
    return b"".join(parts)


def iter_chunks(stream: BinaryIO, path: str, what: str, chunk: int = READ_CHUNK) -> Iterator[bytes]:
    """``stream`` chunk by chunk to its end (memory: one chunk); a read error is an InputError."""
    while True:
        try:
            data = stream.read(chunk)
        except OSError as error:
            raise InputError(f"{path}: cannot read the {what}: {error.strerror}") from None
        if not data:
            return
        yield data


def _read_at_most(fd: int, count: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while size < count:
        chunk = os.read(fd, min(READ_CHUNK, count - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def write_output(path: Path, text: str, what: str) -> None:
    """Write a file the user asked for (``--output``, ``--write``); a failure is one InputError line."""
    try:
        Path(path).write_text(text)
    except OSError as error:
        raise InputError(f"cannot write the {what} to {str(path)!r}: {error.strerror or error}") from None


def make_output_folder(path: Path, what: str) -> Path:
    """Create (if needed) a folder the user named for output (``--logs``, ``--results-dir``,
    ``--into``), before any work is done; a failure is one InputError line."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot make the {what} folder {str(path)!r}: {error.strerror or error}") from None
    return Path(path)
