"""The folder guard: a job run elsewhere (a cluster's worker) runs an entry only from the files
the command loaded. The command takes each entry folder's digest as it loads it; a worker
compares the digest of the folder it finds, once per process and folder."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from verify.errors import VerifyError
from verify.files import folder_digest


class WorkerMismatch(VerifyError):
    """A worker found other files than the ones loaded here: nothing it would report counts."""


def loaded_digest(folder: Path) -> str:
    """The digest of ``folder`` as loaded now; "" when it cannot be read (no worker will then
    find it the same, and the jobs run here from what was loaded)."""
    try:
        return folder_digest(folder)
    except VerifyError:
        return ""


@lru_cache(maxsize=64)
def check_same_files(folder: Path, digest: str, work: str) -> None:
    """Raise WorkerMismatch unless ``folder`` holds the files ``work`` ("the check", "the
    tournament") loaded; once per process, folder and digest."""
    if loaded_digest(folder) != digest:
        raise WorkerMismatch(f"{folder}: the entry's files differ from the ones {work} loaded "
                             f"(a filesystem the workers share, unchanged during {work}, is needed)")
