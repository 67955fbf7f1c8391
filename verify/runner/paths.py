"""Where verify keeps what it builds: $VERIFY_CACHE, else $XDG_CACHE_HOME/verify, else ~/.cache/verify."""
from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    if os.environ.get("VERIFY_CACHE"):
        return Path(os.environ["VERIFY_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "verify"
