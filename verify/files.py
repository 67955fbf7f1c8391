"""Reading the files the judge is given: bounded in size, and confined to the entry's folder.

Two kinds of files reach the judge (the bounds are listed in docs/security.md):

- **Files an entry names** (entry.toml, its source, the files its contest's table names:
  a demo case, a notation...). They are written by strangers: :func:`read_entry_file` reads one only when
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
    """One item of an entry folder: a regular file (``size``), a symbolic link (``target``:
    where it leads, relative to the folder; ``link``: its text as written), or, when asked
    for, a folder (``folder``). ``mode``: the permission bits (a copy keeps them)."""

    relative: str
    size: int = 0
    target: str | None = None
    link: str | None = None
    folder: bool = False
    mode: int = 0


def scan_entry_folder(folder: Path, folders: bool = False) -> list[EntryFile]:
    """Every regular file and symbolic link of the entry folder (and every folder in it, with
    ``folders``), sorted by path.

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
                found.append(EntryFile(relative, target=_link_target(root, relative, child.path),
                                       link=_link_text(relative, child.path)))
            elif stat.S_ISDIR(mode):
                if depth + 1 > MAX_ENTRY_FOLDER_DEPTH:
                    raise FileRefused(f"{shown_name(relative)} is more than {MAX_ENTRY_FOLDER_DEPTH} "
                                      "folders deep")
                pending.append((child.path, relative + "/", depth + 1))
                if folders:
                    found.append(EntryFile(relative, folder=True, mode=stat.S_IMODE(mode)))
            elif stat.S_ISREG(mode):
                size = info.st_size
                total += size
                if total > MAX_ENTRY_FOLDER_BYTES:
                    raise FileRefused(f"the entry folder holds more than {size_text(MAX_ENTRY_FOLDER_BYTES)}")
                found.append(EntryFile(relative, size=size, mode=stat.S_IMODE(mode)))
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


def _link_text(relative: str, path: str) -> str:
    try:
        return os.readlink(path)
    except OSError as error:        # replaced since it was listed
        raise FileRefused(f"{shown_name(relative)}: cannot read the link: {error.strerror}") from None


def entry_folder_contents(folder: Path) -> Iterator[tuple[EntryFile, bytes]]:
    """Each item of :func:`scan_entry_folder` (folders included) with its bytes (a link or a
    folder: none), read as :func:`read_entry_file` reads: for digests of the whole folder."""
    for item in scan_entry_folder(folder, folders=True):
        if item.target is not None or item.folder:
            yield item, b""
        else:
            yield item, read_entry_file(folder, item.relative, MAX_ENTRY_FOLDER_BYTES)


# ---------------------------------------------------------------- digests of trees

def _name(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


class TreeDigest:
    """SHA-256 of a sequence of typed items (a file, a link, a folder...), each field prefixed
    by its length and each item by its kind and number of fields: the encoding can be read
    back, so two different sequences never give one digest (no byte moves from a name to a
    content, from one file to the next, or from a link to a file)."""

    FILE, LINK, FOLDER = b"file", b"link", b"folder"

    def __init__(self, purpose: str):
        self._hash = hashlib.sha256()
        self._field(_name(purpose))

    def _field(self, data: bytes) -> None:
        self._hash.update(len(data).to_bytes(8, "big"))
        self._hash.update(data)

    def item(self, kind: bytes, *fields: bytes) -> None:
        self._field(kind)
        self._hash.update(len(fields).to_bytes(8, "big"))
        for value in fields:
            self._field(value)

    def file(self, name: str, mode: int, data: bytes) -> None:
        self.item(self.FILE, _name(name), b"%o" % mode, data)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def add_entry_folder(digest: TreeDigest, folder: Path) -> None:
    """Every item of an entry folder into ``digest``, read as :func:`entry_folder_contents`
    reads: a file's path, permission bits and bytes; a link's path and text; a folder's path
    and permission bits (an empty folder too)."""
    for item, data in entry_folder_contents(folder):
        if item.folder:
            digest.item(TreeDigest.FOLDER, _name(item.relative), b"%o" % item.mode)
        elif item.link is not None:
            digest.item(TreeDigest.LINK, _name(item.relative), _name(item.link))
        else:
            digest.file(item.relative, item.mode, data)


def folder_digest(folder: Path) -> str:
    """The digest of an entry folder (:func:`add_entry_folder`): what a worker elsewhere
    checks it sees the same."""
    digest = TreeDigest("verify entry folder")
    add_entry_folder(digest, folder)
    return digest.hexdigest()


SOURCE_SUFFIXES = (".py", ".toml", ".c", ".txt")


def source_tree_digest(root: Path) -> str:
    """The digest of a package's source (verify's own, or a contest's): its Python files and
    the data files it ships, by relative path. Trusted code, read as it is on disk now."""
    digest = TreeDigest("verify source tree")
    for path in sorted(root.rglob("*")):
        if path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts and path.is_file():
            digest.file(str(path.relative_to(root)), 0, path.read_bytes())
    return digest.hexdigest()


def add_trusted_folder(digest: TreeDigest, root: Path) -> None:
    """Every item below ``root`` (a test-case folder: the organiser's files, not an entry's)
    into ``digest``: files with their bytes, links as their text (never followed), folders,
    and anything else by its name and kind (never opened). One that cannot be read is an
    :class:`InputError`."""
    def refuse(error: OSError) -> None:
        raise InputError(f"{error.filename}: cannot list it: {error.strerror}")

    for directory, folders, files in os.walk(root, onerror=refuse):
        folders.sort()
        relative = os.path.relpath(directory, root)
        digest.item(TreeDigest.FOLDER, _name(relative), b"")
        links = [name for name in folders if os.path.islink(os.path.join(directory, name))]
        for name in sorted(files + links):      # (a link to a folder is listed among the folders)
            path = os.path.join(directory, name)
            shown = os.path.join(relative, name)
            try:
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    digest.item(TreeDigest.LINK, _name(shown), _name(os.readlink(path)))
                elif stat.S_ISREG(info.st_mode):
                    digest.file(shown, stat.S_IMODE(info.st_mode), _read_regular(path))
                else:
                    digest.item(b"other", _name(shown), _name(kind_of(info.st_mode)))
            except OSError as error:
                raise InputError(f"{path}: cannot read it: {error.strerror}") from None


def _read_regular(path: str) -> bytes:
    """The bytes of a regular file, opened without following a link or waiting on a FIFO
    (either swapped in since it was listed is refused)."""
    fd = os.open(path, _OPEN_FILE)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file any more")
        return b"".join(iter(lambda: os.read(fd, READ_CHUNK), b""))
    finally:
        os.close(fd)


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


def write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` whole, or is left as it was: the bytes go to a new file beside it,
    are flushed to the disk, then renamed over it (a rename is atomic). A process killed at
    any point, or a full disk, leaves no half-written file under ``path``; on an OSError the
    new file is removed and the error raised."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """The rename itself on the disk (best effort: some filesystems refuse to sync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_output(path: Path, text: str, what: str) -> None:
    """Write a file the user asked for (``--output``, ``--write``), whole or not at all
    (:func:`write_atomically`); a failure is one InputError line."""
    target = Path(os.path.realpath(path))       # a link's target is written, the link kept
    try:
        if target.exists() and not target.is_file():    # /dev/stdout, a FIFO: written as they are
            target.write_text(text)
        else:
            write_atomically(target, text.encode())
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
