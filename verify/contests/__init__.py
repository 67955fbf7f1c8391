"""The contests, found in three places (see docs/contests.md):

- built in: each subpackage of this package exposes ``CONTEST``;
- installed: a package declares ``<name> = "package.module:CONTEST"`` in the
  entry-point group ``verify.contests`` (the group ``verify.challenges`` is read
  too);
- a folder: ``--contest-path DIR`` or ``$VERIFY_CONTEST_PATH`` (folders separated
  by ``:``; the command line adds them, :func:`add_contest_path`), where DIR is a contest
  package (``__init__.py`` exposing ``CONTEST``, or ``CHALLENGE``, another name for
  it) or a folder of such packages; it is named by its contest's ``name``.

Built-in and installed contests are imported only when asked for; the installed ones are
looked up (:mod:`importlib.metadata`) only where a distribution on ``sys.path`` may declare
one (:func:`verify.contests.quick.installed_contests_may_exist`). A name must be
unique: two contests of one name are an error naming both. Importing this package imports
no contest and not the contract (``Contest`` is loaded when first named), so that a built-in
contest's quick command (:mod:`verify.contests.quick`) starts fast.
"""
from __future__ import annotations

import _thread
import sys

# Nothing costly at import: every quick command (verify.contests.quick) imports this package;
# re (which verify.errors imports), pathlib, importlib and typing load where they are used.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from typing import Any

    from verify.contests.contract import Contest

__all__ = ["Contest", "add", "add_contest_path", "get", "names", "reset"]

ENTRY_POINT_GROUP = "verify.contests"
# the other names a contest may be declared and exposed under: read too
OTHER_ENTRY_POINT_GROUP = "verify.challenges"
FOLDER_ATTRIBUTES = ("CONTEST", "CHALLENGE")
_NAME = r"[a-z][a-z0-9_-]{0,39}"       # a contest's name

_lock = _thread.RLock()                 # (threading.RLock without importing threading)
_loaders: dict[str, Callable[[], Contest[Any, Any]]] | None = None
_loaded: dict[str, Contest[Any, Any]] = {}
_paths: list[Path] = []


def __getattr__(name: str) -> Any:
    if name == "Contest":
        from verify.contests.contract import Contest
        return Contest
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _builtin_loader(name: str) -> Callable[[], Contest[Any, Any]]:
    import importlib
    return lambda: importlib.import_module(f"{__name__}.{name}").CONTEST


def _loaded_already(contest: Contest[Any, Any]) -> Callable[[], Contest[Any, Any]]:
    return lambda: contest


# the prefix of the module names contest folders are loaded under (--contest-path): another
# process (a cluster's scheduler or worker) cannot import them by those names
FOLDER_MODULES = "verify_contest_"


def _load_folder(folder: Path) -> Contest[Any, Any]:
    """The contest of a package folder (its ``__init__.py`` exposes ``CONTEST`` or ``CHALLENGE``)."""
    import importlib.util
    import re

    from verify.contests.contract import Contest
    from verify.errors import VerifyError
    module_name = f"{FOLDER_MODULES}{re.sub(r'[^A-Za-z0-9_]', '_', folder.name)}"
    spec = importlib.util.spec_from_file_location(module_name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise VerifyError(f"contest folder {str(folder)!r} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[module_name]
        raise VerifyError(f"contest folder {str(folder)!r} failed to load: "
                          f"{type(error).__name__}: {error}") from None
    contest = next((getattr(module, name) for name in FOLDER_ATTRIBUTES if hasattr(module, name)), None)
    if not isinstance(contest, Contest):
        raise VerifyError(f"contest folder {str(folder)!r} does not provide a verify Contest (its CONTEST)")
    return contest


def _contest_folders(paths: Iterable[Path]) -> list[Path]:
    from verify.errors import VerifyError
    found = []
    for path in paths:
        if not path.is_dir():
            raise VerifyError(f"contest path {str(path)!r} is not a folder")
        if (path / "__init__.py").is_file():
            found.append(path)
        else:
            found.extend(sorted(p for p in path.iterdir() if (p / "__init__.py").is_file()))
    return found


def _discover() -> dict[str, Callable[[], Contest[Any, Any]]]:
    """Every contest's loader by name. Built-in and installed contests are named without being
    imported; a contest folder is imported now (it was named explicitly) and named by its
    contest. Two contests of one name are an error naming both."""
    from verify.errors import VerifyError
    loaders: dict[str, Callable[[], Contest[Any, Any]]] = {}
    origins: dict[str, str] = {}

    def add_loader(name: str, origin: str, loader: Callable[[], Contest[Any, Any]]) -> None:
        if name in loaders:
            raise VerifyError(f"two contests are called {name!r}: {origins[name]} and {origin}")
        loaders[name], origins[name] = loader, origin

    import pkgutil
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            add_loader(module.name, "the built-in one", _builtin_loader(module.name))
    from verify.contests.quick import installed_contests_may_exist
    declared = set()
    # importlib.metadata (email, csv, zipfile...) only where an installed distribution may declare a contest
    groups = (ENTRY_POINT_GROUP, OTHER_ENTRY_POINT_GROUP) if installed_contests_may_exist() else ()
    for group in groups:
        from importlib.metadata import entry_points
        for point in entry_points(group=group):
            if (point.name, point.value) not in declared:   # a package may declare it in both groups
                declared.add((point.name, point.value))
                add_loader(point.name, f"the installed {point.value!r}", point.load)
    for folder in _contest_folders(_paths):
        contest = _load_folder(folder)
        add_loader(contest.name, f"the folder {str(folder)!r}", _loaded_already(contest))
    return loaders


def _all_loaders() -> dict[str, Callable[[], Contest[Any, Any]]]:
    global _loaders
    with _lock:
        if _loaders is None:
            _loaders = _discover()
        return _loaders


def names() -> tuple[str, ...]:
    """Every contest's name, sorted (nothing is imported)."""
    return tuple(sorted(_all_loaders()))


def get(name: str) -> Contest[Any, Any]:
    """The contest called ``name``; VerifyError when there is none or it does not load."""
    import re

    from verify.contests.contract import Contest
    from verify.errors import VerifyError
    with _lock:
        if name in _loaded:
            return _loaded[name]
        loader = _all_loaders().get(name)
        if loader is None:
            raise VerifyError(f"unknown contest {name!r} (known: {', '.join(names())})")
        try:
            contest = loader()
        except VerifyError:
            raise
        except Exception as error:
            raise VerifyError(f"contest {name!r} failed to load: {type(error).__name__}: {error}") from None
        if not isinstance(contest, Contest):
            raise VerifyError(f"contest {name!r} does not provide a verify Contest (its CONTEST)")
        if contest.name != name or not re.fullmatch(_NAME, contest.name):
            raise VerifyError(f"contest {name!r} calls itself {contest.name!r} (a name is lowercase letters, "
                              "digits, - and _, and matches its entry point)")
        _loaded[name] = contest
        return contest


def add_contest_path(path: Path) -> None:
    """Also look for contests in ``path`` (``--contest-path``, ``$VERIFY_CONTEST_PATH``); a path
    added already is not added again."""
    from pathlib import Path
    with _lock:
        if Path(path) in _paths:
            return
        _paths.append(Path(path))
        reset(keep_paths=True)


def add(contest: Contest[Any, Any]) -> None:
    """Make ``contest`` known by its name (tests, and programs embedding verify)."""
    with _lock:
        _all_loaders()[contest.name] = lambda: contest
        _loaded.pop(contest.name, None)


def reset(keep_paths: bool = False) -> None:
    """Forget what was discovered (and, unless ``keep_paths``, the added contest paths)."""
    global _loaders
    with _lock:
        _loaders = None
        _loaded.clear()
        if not keep_paths:
            _paths.clear()
