"""The installed contests: the entry points of the group ``verify.challenges``, remembered between runs.

Asking importlib.metadata reads every installed distribution (and imports the email
package to do it): a tenth of what a one-case ``verify check`` costs. The answer
depends only on what is installed, so it is kept in ``<cache>/installed-contests.json``
under the state of the import path: each ``sys.path`` entry with its modification
time, which changes whenever a distribution is installed or removed in that folder
(the test importlib.metadata's own lookup cache uses). A state younger than
``SETTLE_SECONDS`` is not remembered (a folder changed in the same clock tick as the
scan would keep its time: git's "racily clean" case). A cache that cannot be read or
written is only a slower start.

Limits: the distributions a custom ``sys.meta_path`` finder provides (beyond
``sys.path``) change no folder's time; an ``entry_points.txt`` edited by hand in place
is not seen until something is installed or removed beside it.
"""
from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GROUP = "verify.challenges"
CACHE_NAME = "installed-contests.json"
SETTLE_SECONDS = 2.0


def path_state() -> list[list[Any]]:
    """Each ``sys.path`` entry with its modification time (None where there is nothing)."""
    state: list[list[Any]] = []
    for entry in sys.path:
        try:
            state.append([entry, os.stat(entry or ".").st_mtime_ns])
        except (OSError, ValueError):
            state.append([entry, None])
    return state


def _cache_file() -> Path:
    from verify.runner.paths import cache_root  # the runner package only once contests are looked up
    return cache_root() / CACHE_NAME


def _remembered(state: list[list[Any]]) -> list[tuple[str, str]] | None:
    try:
        kept = json.loads(_cache_file().read_text(encoding="utf-8"))
        if kept["state"] != state:
            return None
        return [(str(name), str(value)) for name, value in kept["contests"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _remember(state: list[list[Any]], contests: list[tuple[str, str]]) -> None:
    newest = max((mtime for _, mtime in state if mtime is not None), default=0)
    if time.time_ns() - newest < SETTLE_SECONDS * 1e9:
        return
    path = _cache_file()
    temporary = path.with_name(f".{CACHE_NAME}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps({"state": state, "contests": contests}), encoding="utf-8")
        temporary.replace(path)         # atomic: a reader sees the old answer or the new one
    except OSError:
        try:
            temporary.unlink()
        except OSError:
            pass


def entry_points() -> list[tuple[str, str]]:
    """(name, "module:attribute") of every installed contest, in importlib.metadata's order."""
    state = path_state()
    remembered = _remembered(state)
    if remembered is not None:
        return remembered
    from importlib.metadata import entry_points as scan
    contests = [(point.name, point.value) for point in scan(group=GROUP)]
    _remember(state, contests)
    return contests


def loader(name: str, value: str) -> Callable[[], Any]:
    """What imports the installed contest ``name`` (its ``CHALLENGE``), when called."""
    def load() -> Any:
        from importlib.metadata import EntryPoint
        return EntryPoint(name, value, GROUP).load()
    return load
