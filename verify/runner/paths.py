"""Where verify keeps what it builds, and where runs get their private folders.

The run folders' place is part of an isolation (resolved from the settings' `temp_root`);
the compile cache's place is the settings' `cache`, read from the environment when asked.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from verify.settings import from_process


def cache_root() -> Path:
    """$VERIFY_CACHE, else $XDG_CACHE_HOME/verify, else ~/.cache/verify (settings.py)."""
    return from_process().cache


def default_temp_root(chosen: Path | None = None) -> Path:
    """Where runs get their private folder: `chosen` ($VERIFY_TMPDIR), else /dev/shm (a tmpfs:
    creating and removing a folder per run there costs a fraction of what it costs on a disk),
    else the system's temporary folder."""
    if chosen is not None:
        return chosen
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK):
        return Path("/dev/shm")
    return Path(tempfile.gettempdir())
