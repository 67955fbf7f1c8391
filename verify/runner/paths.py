"""Where verify keeps what it builds, and where runs get their private folders.

Both are read from the environment when asked: the compile cache when a program is
prepared, the run folders' place when an isolation is resolved (it is part of it).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_root() -> Path:
    """$VERIFY_CACHE, else $XDG_CACHE_HOME/verify, else ~/.cache/verify."""
    if os.environ.get("VERIFY_CACHE"):
        return Path(os.environ["VERIFY_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "verify"


def maze_logs_root() -> Path:
    """Where ``verify koth maze`` keeps its match logs when not given ``--logs``: one folder per run."""
    return cache_root() / "maze-logs"


def default_temp_root() -> Path:
    """Where runs get their private folder: $VERIFY_TMPDIR, else /dev/shm (a tmpfs: creating
    and removing a folder per run there costs a fraction of what it costs on a disk),
    else the system's temporary folder."""
    chosen = os.environ.get("VERIFY_TMPDIR")
    if chosen:
        return Path(chosen)
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK | os.X_OK):
        return Path("/dev/shm")
    return Path(tempfile.gettempdir())
