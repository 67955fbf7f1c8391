"""A runtime's own files brought into the page cache by verify, before a run is charged for them.

A memory cgroup charges a file's cached pages to the group of the process that first reads
them. When a JVM's or Node's files are not yet cached as a run starts, the run reads them into
its own group; a program that then grows to its memory limit makes the kernel reclaim those
pages instead of killing it, the runtime reads them again, and the run ends at its time limit.
Read here first, the pages belong to verify's own group, which has no such limit: each run is
charged for its own memory only, cold cache or warm.

What is read: each tool's executable (its real path), the loader and shared libraries it
names, and the language's declared `runtime` files and folders: all of them before the first
run, then those of which the kernel has since evicted a page (pressure on the whole machine),
checked at most every RECHECK seconds. A page evicted and read again by a run within that
interval is charged to that run.
"""
from __future__ import annotations

import ctypes
import mmap
import os
import struct
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

MAX_FILES = 4096          # a declared folder is walked no further than this
READ_SIZE = 1 << 20
RECHECK = 1.0            # seconds between two checks that a runtime's pages are still cached
LIST_TIMEOUT = 10.0      # the loader listing a tool's libraries

_files: dict[tuple[str, ...], list[Path]] = {}
_checked: dict[tuple[str, ...], float] = {}
_lock = threading.Lock()


def read_runtime(tools: Mapping[str, str], runtime: Sequence[str]) -> None:
    """Bring the files of `tools` (resolved executables) and `runtime` (paths relative to the
    first tool's installation, the folder above the one holding its real path, or absolute)
    into the page cache: all of them the first time, then, at most every RECHECK seconds,
    those of which some page has since been evicted."""
    key = (*tools.values(), "\0", *runtime)
    with _lock:     # held while reading: no run of another thread starts ahead of the pages
        now = time.monotonic()
        first = key not in _files
        if not first and now - _checked[key] < RECHECK:
            return
        _checked[key] = now
        if first:
            _files[key] = runtime_files(list(tools.values()), runtime)
        for path in _files[key]:
            if first or not is_resident(path):
                read_into_cache(path)


def runtime_files(executables: Sequence[str], runtime: Sequence[str]) -> list[Path]:
    """The files `read_runtime` reads, each once, in a stable order."""
    found: dict[Path, None] = {}
    homes = []
    for executable in executables:
        real = Path(os.path.realpath(executable))
        homes.append(real.parent.parent)
        found[real] = None
        for library in shared_libraries(real):
            found[library] = None
    for entry in runtime:
        base = homes[0] if homes else Path("/")
        for path in _regular_files(base / os.path.expanduser(entry)):
            found[path] = None
    return list(found)


def read_into_cache(path: Path) -> None:
    """Read the whole file, so that its pages are in the page cache, charged to this process's
    group (a read, not an advice: `POSIX_FADV_WILLNEED` queues part of a file and returns).
    Nothing when it cannot be opened."""
    buffer = bytearray(READ_SIZE)
    try:
        with open(path, "rb", buffering=0, opener=_no_follow) as file:
            while file.readinto(buffer):
                pass
    except OSError:
        return


def is_resident(path: Path) -> bool:
    """Whether every page of the file is in the page cache (`mincore` of a mapping of it);
    False when that cannot be told."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return True
        address = _libc().mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    finally:
        os.close(fd)
    if address is None or address == _MAP_FAILED:
        return False
    try:
        pages = bytearray((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE)
        found = _libc().mincore(address, size, (ctypes.c_char * len(pages)).from_buffer(pages)) == 0
        return found and pages.find(0) < 0    # each page's byte: 1 when it is cached
    finally:
        _libc().munmap(address, size)


_MAP_FAILED = ctypes.c_void_p(-1).value
_libc_handle: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL:
    global _libc_handle
    if _libc_handle is None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_long]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        _libc_handle = libc
    return _libc_handle


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)


def shared_libraries(executable: Path) -> list[Path]:
    """The dynamic loader `executable` names and the libraries it would load, as the loader
    itself lists them (`ld.so --list`, which maps them but runs nothing of the program);
    nothing for a static executable, a script or a file that is not ELF."""
    loader = elf_interpreter(executable)
    if loader is None:
        return []
    try:
        listing = subprocess.run([loader, "--list", str(executable)], capture_output=True, text=True,
                                 timeout=LIST_TIMEOUT, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return []
    if listing.returncode != 0:
        return []
    return [Path(os.path.realpath(loader)), *_listed_paths(listing.stdout)]


def _listed_paths(listing: str) -> Iterator[Path]:
    for line in listing.splitlines():
        words = line.split()
        if "=>" in words:
            words = words[words.index("=>") + 1:]
        if words and words[0].startswith("/"):
            yield Path(os.path.realpath(words[0]))


def elf_interpreter(executable: Path) -> str | None:
    """The PT_INTERP path of a 64-bit little-endian ELF file, None when it has none."""
    try:
        with open(executable, "rb") as file:
            header = file.read(64)
            if len(header) < 64 or header[:6] != b"\x7fELF\x02\x01":
                return None
            phoff, = struct.unpack_from("<Q", header, 0x20)
            phentsize, phnum = struct.unpack_from("<HH", header, 0x36)
            file.seek(phoff)
            table = file.read(phentsize * phnum)
            for index in range(phnum):
                kind, _, offset, _, _, size = struct.unpack_from("<IIQQQQ", table, index * phentsize)
                if kind == 3:   # PT_INTERP
                    file.seek(offset)
                    return file.read(min(size, 4096)).split(b"\0", 1)[0].decode() or None
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None


def _regular_files(path: Path) -> Iterable[Path]:
    if path.is_file():
        return [path]
    files = []
    for folder, _, names in os.walk(path):
        for name in sorted(names):
            candidate = Path(folder) / name
            if candidate.is_file() and not candidate.is_symlink():
                files.append(candidate)
                if len(files) >= MAX_FILES:
                    return files
    return files
