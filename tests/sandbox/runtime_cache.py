"""A language runtime's files evicted from the page cache, as on a machine where it never ran."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from verify.runner import resident
from verify.runner.languages import Language


def runtime_paths(language: Language) -> list[Path]:
    tools = language.tools()
    return resident.runtime_files([tools["interpreter"]], language.runtime)


def evict(path: Path) -> None:
    """Drop the file's clean pages from the page cache (`POSIX_FADV_DONTNEED`)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(fd) if os.access(path, os.W_OK) else None
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def evict_runtime(language: Language, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Evict the runtime's files, and have verify check them again at its next run (instead
    of trusting a check made less than `RECHECK` seconds ago): their paths."""
    paths = runtime_paths(language)
    for path in paths:
        evict(path)
    monkeypatch.setattr(resident, "RECHECK", 0.0)
    return paths
