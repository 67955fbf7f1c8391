"""verify's configuration: what the environment and the command line say, read once into a
frozen `Settings` that is passed down. The one module that reads ``os.environ``, with
:mod:`verify.environment`, which reads the cache's place and the contest folders for it (and
for a quick command, without this module).

The variables, each overridden by its option where there is one:

| variable | field | what it sets |
|---|---|---|
| ``VERIFY_CACHE`` (else ``XDG_CACHE_HOME``/verify, else ~/.cache/verify) | ``cache`` | the cache's place |
| ``VERIFY_CACHE_MAX_MB`` | ``cache_max_mb`` | the cache's automatic bound (0: none; unset: 2 GiB) |
| ``VERIFY_TMPDIR`` | ``temp_root`` | where runs get their private folder (unset: /dev/shm, else the system's) |
| ``VERIFY_SANDBOX`` (``--sandbox``) | ``sandbox`` | the sandbox policy: auto, bwrap, none |
| ``VERIFY_ACCOUNTING`` (``--accounting``) | ``accounting`` | what counts a run's resources: auto, cgroup, rlimits |
| ``VERIFY_HELPER=none`` | ``helper`` | no verify-init (limits by prlimit) |
| ``VERIFY_SECCOMP=off`` | ``seccomp`` | no seccomp filter |
| ``VERIFY_FORKSERVER=off`` | ``forkserver`` | no fork server for repeated runs |
| ``VERIFY_ZYGOTE=off`` | ``zygote`` | no fork-server step forked from an interpreter started ahead |
| ``VERIFY_CLUSTER`` (``--cluster``) | ``cluster`` | the Dask scheduler's address |
| ``VERIFY_CONTEST_PATH`` (``--contest-path``) | ``contest_path`` | more folders of contests |
| ``VERIFY_<CONTEST>_<NAME>`` | ``contest_setting(contest, name)`` | a contest's own setting, read by the contest |
| ``VERIFY_DEBUG`` | ``debug`` | an internal error raises its traceback |
| ``NO_COLOR``, ``FORCE_COLOR``, ``TERM=dumb`` | ``colour`` | colour on a terminal |
| ``PATH`` | ``search_path`` | where toolchains are looked for |

The words that can be wrong (``sandbox``, ``accounting``, ``cache_max_mb``) are kept as
given and judged where they are used, so a command that uses none of them never fails on one.
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from verify.environment import cache_folder, contest_folders

DEFAULT_SEARCH_PATH = "/usr/local/bin:/usr/bin:/bin"
_OFF = ("off", "none", "0", "no")


@dataclass(frozen=True)
class Settings:
    cache: Path                               # where verify keeps what it builds
    temp_root: Path | None = None             # where runs get their private folder (None: the default)
    sandbox: str = ""                         # the sandbox policy's word ("": auto)
    accounting: str = ""                      # the accounting policy's word ("": auto)
    helper: bool = True                       # verify-init, when a C compiler builds it
    seccomp: bool = True                      # the seccomp filter, when libseccomp loads
    forkserver: bool = True                   # fork servers for repeated runs, where possible
    zygote: bool = True                       # their Python steps forked from an interpreter started ahead
    cluster: str | None = None                # the Dask scheduler's address (None: this machine)
    contest_path: tuple[Path, ...] = ()       # more folders of contests
    debug: bool = False                       # an internal error shows its traceback
    colour: bool | None = None                # colour forced on or off (None: on a terminal only)
    cache_max_mb: str = ""                    # the cache's automatic bound as given ("": the default)
    search_path: str = DEFAULT_SEARCH_PATH    # PATH: where toolchains are looked for
    # the environment verify was started with, for the trusted tools it starts outside any
    # sandbox (busctl, a toolchain's version probe); never given to an entry
    environment: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], **cli_options: object) -> Settings:
        """The settings `env` gives, then the command line's `cli_options` (a field's name and
        its option's value; None: not given, the environment's stands)."""
        settings = cls(
            cache=Path(cache_folder(env)),
            temp_root=Path(env["VERIFY_TMPDIR"]) if env.get("VERIFY_TMPDIR") else None,
            sandbox=env.get("VERIFY_SANDBOX", "").strip().lower(),
            accounting=env.get("VERIFY_ACCOUNTING", "").strip().lower(),
            helper=env.get("VERIFY_HELPER", "").lower() not in ("none", "off", "0"),
            seccomp=env.get("VERIFY_SECCOMP", "").lower() not in _OFF,
            forkserver=env.get("VERIFY_FORKSERVER", "").strip().lower() not in _OFF,
            zygote=env.get("VERIFY_ZYGOTE", "").strip().lower() not in _OFF,
            cluster=env.get("VERIFY_CLUSTER") or None,
            contest_path=tuple(Path(folder) for folder in contest_folders(env)),
            debug=bool(env.get("VERIFY_DEBUG")),
            colour=_colour(env),
            cache_max_mb=env.get("VERIFY_CACHE_MAX_MB", "").strip(),
            search_path=env.get("PATH", DEFAULT_SEARCH_PATH),
            environment=MappingProxyType(dict(env)),
        )
        return settings.with_options(**cli_options)

    def contest_setting(self, contest: str, name: str) -> str:
        """A contest's own setting ``name``: the variable ``VERIFY_<CONTEST>_<NAME>`` (in capitals,
        ``-`` as ``_``) as given, "" when unset. The contest judges the word: the core knows none."""
        return self.environment.get(f"VERIFY_{contest}_{name}".upper().replace("-", "_"), "")

    def with_options(self, **cli_options: object) -> Settings:
        """These settings with the command line's options over them (None: not given).
        ``contest_path`` adds its folders before the environment's."""
        given: dict[str, object] = {}
        for name, value in cli_options.items():
            if value is None:
                continue
            if name not in _FIELDS:
                raise TypeError(f"Settings has no field {name!r}")
            if name == "contest_path":
                value = (*(Path(p) for p in value), *self.contest_path)  # type: ignore[attr-defined]
            given[name] = value
        return dataclasses.replace(self, **given) if given else self  # type: ignore[arg-type]


_FIELDS = frozenset(f.name for f in dataclasses.fields(Settings))


def _colour(env: Mapping[str, str]) -> bool | None:
    """``NO_COLOR`` (set, not empty) says no; ``FORCE_COLOR`` (set, not empty, not ``0``/``false``/``no``)
    says yes, ``FORCE_COLOR=0`` no; ``TERM=dumb`` no; else None (a terminal decides)."""
    if env.get("NO_COLOR"):
        return False
    force = env.get("FORCE_COLOR")
    if force:
        return force.lower() not in ("0", "false", "no")
    if env.get("TERM") == "dumb":
        return False
    return None


def from_process(**cli_options: object) -> Settings:
    """The settings of this process's environment (and `cli_options` over them): what the CLI
    builds once, and what a Dask worker builds for itself."""
    return Settings.from_environment(os.environ, **cli_options)
