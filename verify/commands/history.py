"""When an entry entered the repository (git): the code-golf tie-break."""
from __future__ import annotations

import subprocess
from pathlib import Path

from verify.commands.changes import is_shallow


def first_added(folder: Path) -> int | None:
    """Unix time of the commit that first added the entry (None outside git).

    git runs in the folder's parent, naming the folder as a literal path: a ``.git`` inside
    the entry (its own repository, its own config) is never the one asked."""
    folder = Path(folder)
    try:
        out = subprocess.run(["git", "--literal-pathspecs", "log", "--diff-filter=A", "--format=%ct", "--",
                              folder.name], cwd=folder.parent, capture_output=True, text=True, timeout=10,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    stamps = [int(line) for line in out.stdout.split() if line.isdigit()]
    return min(stamps) if out.returncode == 0 and stamps else None


def shallow_notice(folder: Path) -> str | None:
    """One line when ``folder`` is in a shallow git clone: ties cannot go to the earlier entry."""
    if not is_shallow(folder):
        return None
    return ("the clone is shallow: ties cannot go to the entry added first, they go by name "
            "(fetch the whole history, e.g. actions/checkout with fetch-depth: 0)")
