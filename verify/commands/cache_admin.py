"""What the cache holds, and keeping it bounded: ``verify cache info|prune|clear``, and the
automatic bound applied after ``verify check`` and ``verify rank`` store their results.

The cache (:func:`verify.runner.cache_root`) has parts, each a folder of items: the builds
of each compiled language (``<language>/<digest>``, content-addressed: a pruned build is
rebuilt when next needed), the check results (``results/<key>.json``), the tournaments' results
(``matches/<key>.match``, each with its log), the seccomp filters,
the sandbox helper's builds, the entries' sources, and the folders the contests own: each
tournament's match logs (``<contest>-logs/<UTC time>``) and what a contest declares in its
``cache_folders`` (a compiled kernel's builds). Anything else in the folder is not verify's:
it is listed, never removed.

Pruning removes whole items, least recently used first (the latest access or modification
of the files in the item, and of its folders' modifications: listing a folder is no use),
until the parts together hold at most the bound. An item used in the last minute is never removed: a run in flight keeps
what it uses. Nothing outside the cache is touched, and no symbolic link is followed: a
link in the cache is an item of its own size, removed as a link.
"""
from __future__ import annotations

import os
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from verify.entries import SOURCES
from verify.errors import VerifyError
from verify.pipeline.match_cache import FOLDER as MATCHES
from verify.runner import cache_root

MIB = 1 << 20
DEFAULT_MAX_MB = 2048
MAX_ENVIRONMENT = "VERIFY_CACHE_MAX_MB"
MIN_AGE = 60.0          # seconds: an item used more recently than this is never pruned

RESULTS = "results"
# folder -> the part's name, besides one "builds: <language>" part per language and the contests' folders
FOLDERS = {RESULTS: "results", MATCHES: "tournament results", "seccomp": "seccomp filters",
           "init": "sandbox helper builds", SOURCES: "entry sources (what a run sees)"}
OTHER_PART = "other (not verify's: left alone)"


@dataclass(frozen=True)
class Item:
    """One removable thing: a build folder, a result file, a run's logs."""

    path: Path
    size: int
    last_used: float


@dataclass
class Part:
    name: str
    path: Path
    items: list[Item] = field(default_factory=list)
    removable: bool = True

    @property
    def size(self) -> int:
        return sum(item.size for item in self.items)

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "path": str(self.path), "items": len(self.items), "bytes": self.size,
                "removable": self.removable}


def _usage(path: Path) -> tuple[int, float]:
    """Bytes held by ``path`` and everything in it, and the latest access or change; no link followed."""
    try:
        info = os.lstat(path)
    except OSError:
        return 0, 0.0
    size = info.st_blocks * 512 or info.st_size
    # a file's access time says it was read (a build's files when it runs, a result when reused);
    # a folder's says only that it was listed, as this very function does: its changes count, not its reads
    latest = max(info.st_atime, info.st_mtime) if stat.S_ISREG(info.st_mode) else info.st_mtime
    if stat.S_ISDIR(info.st_mode):
        try:
            entries = list(os.scandir(path))
        except OSError:
            return size, latest
        for entry in entries:
            inner_size, inner_latest = _usage(Path(entry.path))
            size += inner_size
            latest = max(latest, inner_latest)
    return size, latest


def _items(folder: Path) -> list[Item]:
    try:
        children = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    return [Item(Path(child.path), *_usage(Path(child.path))) for child in children]


def _language_keys() -> set[str]:
    from verify.runner.languages import languages
    try:
        return set(languages())
    except VerifyError:
        return set()


def _contest_folders(root: Path) -> dict[str, str]:
    """folder -> the part's name, for the folders of ``root`` the contests own: each tournament's
    default logs, and each contest's ``cache_folders``. A contest that does not load owns none
    (nor do any when the contests cannot be listed): its folders are left alone."""
    from verify import contests
    from verify.pipeline.tournament import default_log_dir  # (a check's bound on the cache needs no tournament)
    found: dict[str, str] = {}
    try:
        names = contests.names()
    except VerifyError:         # a bad contest folder: the cache is still shown, and nothing is removed
        return found
    for name in names:
        try:
            contest = contests.get(name)
        except VerifyError:
            continue
        if contest.tournament:
            found[default_log_dir(root, name).parent.name] = f"{name} logs"
        found.update(contest.cache_folders)
    return found


def cache_parts(root: Path | None = None) -> list[Part]:
    """The parts of the cache at ``root`` (default: :func:`cache_root`), each with its items."""
    root = root if root is not None else cache_root()
    try:
        children = sorted(os.scandir(root), key=lambda entry: entry.name)
    except OSError:
        return []
    languages = _language_keys()
    contests: dict[str, str] | None = None      # the contests are asked only about a folder the core does not know
    parts: list[Part] = []
    other = Part(OTHER_PART, root, removable=False)
    for child in children:
        path = Path(child.path)
        is_folder = child.is_dir(follow_symlinks=False)
        if is_folder and child.name in FOLDERS:
            parts.append(Part(FOLDERS[child.name], path, _items(path)))
        elif is_folder and child.name in languages:
            parts.append(Part(f"builds: {child.name}", path, _items(path)))
        else:
            if is_folder and contests is None:
                contests = _contest_folders(root)
            if is_folder and contests is not None and child.name in contests:
                parts.append(Part(contests[child.name], path, _items(path)))
            else:
                other.items.append(Item(path, *_usage(path)))
    if other.items:
        parts.append(other)
    return parts


def max_bytes(text: str) -> int | None:
    """The automatic bound `text` (the settings' ``cache_max_mb``, $VERIFY_CACHE_MAX_MB) gives:
    that many MiB (0: none, None), else ("") 2 GiB."""
    text = text.strip()
    if not text:
        return DEFAULT_MAX_MB * MIB
    try:
        value = int(text)
    except ValueError:
        raise VerifyError(f"${MAX_ENVIRONMENT}: expected a whole number of MiB (0: no bound), not {text!r}") from None
    if value < 0:
        raise VerifyError(f"${MAX_ENVIRONMENT}: expected a whole number of MiB (0: no bound), not {text!r}")
    return value * MIB if value else None


def _remove(path: Path) -> bool:
    """Remove one item of the cache (a link as a link); False when it could not be."""
    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path)     # the fd-based rmtree: never follows a link out of the folder
        return True
    except OSError:
        return False


def _inside(path: Path, root: Path) -> bool:
    return os.path.abspath(path.parent) == os.path.abspath(root) or \
        os.path.abspath(path.parent.parent) == os.path.abspath(root)


@dataclass
class Pruned:
    removed: int = 0
    freed: int = 0
    size_after: int = 0
    kept_recent: int = 0


def prune(max_bytes: int, root: Path | None = None, min_age: float = MIN_AGE, now: float | None = None) -> Pruned:
    """Remove the least recently used items until the cache holds at most ``max_bytes``
    (items used in the last ``min_age`` seconds stay, even when that leaves it over)."""
    root = root if root is not None else cache_root()
    now = time.time() if now is None else now
    parts = [part for part in cache_parts(root) if part.removable]
    total = sum(part.size for part in parts)
    done = Pruned(size_after=total)
    if total <= max_bytes:
        return done
    items = sorted((item for part in parts for item in part.items), key=lambda item: item.last_used)
    for item in items:
        if done.size_after <= max_bytes:
            break
        if item.last_used > now - min_age:
            done.kept_recent += 1
            continue
        if _inside(item.path, root) and _remove(item.path):
            done.removed += 1
            done.freed += item.size
            done.size_after -= item.size
    return done


def clear(root: Path | None = None) -> Pruned:
    """Remove every item of every part of verify's (what is not verify's stays)."""
    return prune(0, root, min_age=0.0)


def prune_cache(bound: int | None, root: Path | None = None) -> Pruned | None:
    """The automatic bound, after a command stored its results: prune to ``bound`` bytes
    (:func:`max_bytes`); None: no bound, nothing is pruned (None).
    Never fails the command: an item that cannot be removed is left."""
    if bound is None:
        return None
    return prune(bound, root)

