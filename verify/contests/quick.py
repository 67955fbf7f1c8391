"""A built-in contest's quick commands: a command such as ``verify gen echo --size 10`` run
without click, the contests' discovery and the command's full module, where nothing can tell
the difference.

A built-in contest ``name`` may have a module ``verify.contests.<name>.quick`` whose
``COMMANDS`` maps a kind of command (``gen``, ``solve``, ``judge``) to a function of the
arguments after the contest's name (what it needs of the environment it reads through
:mod:`verify.environment`). It runs the command and returns True; or,
when the arguments are not ones it reads exactly as the full command does (a bad value, an
option it does not know, ``--help``), it returns False having written nothing, and the full
command line runs instead, with its own messages.

The name means the built-in contest only when no other contest can have it: no contest folder
is given, and no installed distribution declares contests (no ``entry_points.txt`` on
``sys.path`` names one of the groups, read as :mod:`importlib.metadata` finds them, and no
finder other than the path-based ones lists distributions). Otherwise :func:`find` says None and the full command line's
discovery decides, with its error for two contests of one name.
"""
from __future__ import annotations

import _frozen_importlib_external  # (importlib.machinery's finders, loaded with the interpreter: no import)
import os
import sys

from verify.contests import ENTRY_POINT_GROUP, OTHER_ENTRY_POINT_GROUP

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing: this runs at every quick start)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from os import PathLike

    QuickCommand = Callable[[Sequence[str]], bool]
MODULE = "quick"
_PACKAGES = os.path.dirname(os.path.abspath(__file__))


def find(kind: str, name: str, contest_path: Sequence[str | PathLike[str]]) -> QuickCommand | None:
    """The quick command of this kind of the built-in contest ``name``, or None (the full
    command line then)."""
    if contest_path or not (name.isascii() and name.isidentifier()):
        return None
    if not os.path.isfile(os.path.join(_PACKAGES, name, f"{MODULE}.py")):
        return None
    if installed_contests_may_exist():
        return None
    module = __import__(f"{__package__}.{name}.{MODULE}", fromlist=["COMMANDS"])    # (importlib imports warnings)
    commands: dict[str, QuickCommand] = module.COMMANDS
    return commands.get(kind)


def installed_contests_may_exist() -> bool:
    """Whether an installed distribution may declare a contest: one on ``sys.path`` whose
    ``entry_points.txt`` names a contests' group, an archive or egg on ``sys.path`` (not looked
    into), or a finder beside the path finder that lists distributions."""
    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and not _lists_sys_path(finder):
            return True
    for entry in sys.path:
        folder = entry or "."
        if folder.endswith(".egg"):
            return True
        try:
            children = os.listdir(folder)
        except OSError:
            if os.path.exists(folder):          # a zip archive: its distributions are not listed here
                return True
            continue
        for child in children:
            if child.lower().endswith((".dist-info", ".egg-info")) and _declares_contests(os.path.join(folder, child)):
                return True
    return False


def _lists_sys_path(finder: object) -> bool:
    """Whether a finder lists only the distributions found on ``sys.path``, as the loop below
    reads them: the standard path finder, or the backport's (``importlib_metadata``, which a
    dependency such as Dask may import, puts its ``MetadataPathFinder`` on ``sys.meta_path``)."""
    if finder is _frozen_importlib_external.PathFinder:
        return True
    kind = finder if isinstance(finder, type) else type(finder)
    module = kind.__module__
    return kind.__name__ == "MetadataPathFinder" and (module == "importlib_metadata"
                                                      or module.endswith(".importlib_metadata"))


def _declares_contests(metadata: str) -> bool:
    try:
        with open(os.path.join(metadata, "entry_points.txt"), "rb") as points:    # (bytes: no decoder to set up)
            data = points.read()
    except OSError:
        return False
    return ENTRY_POINT_GROUP.encode() in data or OTHER_ENTRY_POINT_GROUP.encode() in data
