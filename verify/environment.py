"""The settings a quick command needs, read from the environment with :mod:`os` alone: where
verify's cache is and which contest folders are given. :class:`verify.settings.Settings` reads
them through these functions; a quick command (:mod:`verify.contests.quick`) reads them here,
without the settings' module and what it imports (dataclasses, pathlib), at every start.
"""
from __future__ import annotations

import os
import pwd

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from collections.abc import Mapping


def cache_folder(env: Mapping[str, str] | None = None) -> str:
    """``VERIFY_CACHE``, else ``$XDG_CACHE_HOME/verify``, else ``~/.cache/verify`` (``env``:
    this process's environment unless given)."""
    env = os.environ if env is None else env
    home = env.get("HOME") or pwd.getpwuid(os.getuid()).pw_dir
    if env.get("VERIFY_CACHE"):
        return env["VERIFY_CACHE"]
    return os.path.join(env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), "verify")


def contest_folders(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The folders of ``VERIFY_CONTEST_PATH`` (separated by ``os.pathsep``), in order."""
    env = os.environ if env is None else env
    return tuple(folder for folder in env.get("VERIFY_CONTEST_PATH", "").split(os.pathsep) if folder)
