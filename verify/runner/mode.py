"""An isolation mode, as a value: everything a run's isolation depends on, resolved once
(by isolation.py, from the policies and the machine) and then only read. Every run,
build and session is given one; its `name` is what every result reports.
"""
from __future__ import annotations

import ctypes
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from verify.errors import JudgeFailure
from verify.runner.cgroup import CgroupSetup
from verify.runner.machine import RUN_UIDS
from verify.runner.paths import default_temp_root

LANDLOCK_SIGNAL_SCOPE = 6        # the Landlock ABI from which a program cannot signal outside its run


class SandboxUnavailable(JudgeFailure):
    """The isolation asked for cannot be had on this machine, or a run's set-up failed
    before its program started (exit 2: the judge's failure, never the entry's)."""


@dataclass(frozen=True)
class Isolation:
    policy: str                      # the sandbox asked for: auto | bwrap | none
    bwrap: str | None                # bubblewrap's path when runs use it
    helper: str | None               # verify-init's path (None: no C compiler to build it)
    cgroups: CgroupSetup | None      # per-run cgroups, when the machine lets us make them
    seccomp: Path | None             # the seccomp filter file, when libseccomp is there
    landlock_abi: int                # the kernel's Landlock version (0: none)
    own_uid: bool                    # runs get a fresh uid (verify is root)
    temp_root: Path = field(default_factory=default_temp_root)   # where runs get their private folder
    setpriv: str | None = field(default_factory=lambda: shutil.which("setpriv"))   # without verify-init
    accounting_policy: str = "auto"  # the accounting asked for: auto | cgroup | rlimits
    uid_range: tuple[int, int] = RUN_UIDS   # [start, end) of the runs' own uids (machine.run_uid_range)

    @property
    def sandboxed(self) -> bool:
        return self.bwrap is not None

    @property
    def uses_landlock(self) -> bool:
        return self.helper is not None and self.landlock_abi > 0

    @property
    def name(self) -> str:
        """What every result reports, e.g. "bubblewrap+seccomp+landlock+cgroup v1+own uid"."""
        parts = ["bubblewrap" if self.bwrap else "no sandbox"]
        if self.seccomp is not None:
            parts.append("seccomp")
        if self.uses_landlock:
            parts.append(f"landlock v{self.landlock_abi}")
        parts.append(self.accounting)
        parts.append("own uid" if self.own_uid else "same uid")
        return "+".join(parts)

    @property
    def accounting(self) -> str:
        """How memory, processes and CPU time are counted."""
        if self.cgroups is not None and self.helper is not None:
            return self.cgroups.name
        return "rlimits"


RLIMITS_DIFFERENCES = ("rlimits accounting: no cgroup counts this run's processes, and its memory rlimit "
                       "counts private memory only (shared memory is refused), so a program over the "
                       "process limit, or holding shared memory or files in /dev/shm, may be judged "
                       "runtime error or time limit here where a judge with a cgroup says process limit "
                       "or memory limit")


SHARED_HOST_DIFFERENCES = ("no sandbox, the judge's own uid: the run has no private /dev/shm and no SysV "
                           "IPC of its own, so a program that holds memory there is refused it (runtime "
                           "error) where a sandboxed judge says memory limit")


def differences(name: str) -> str:
    """Which verdicts an isolation named `name` (an `Isolation.name`, as results carry it)
    may give otherwise than the reference (a sandbox or an own uid, and a cgroup per run);
    "" when none may differ."""
    parts = name.split("+")
    found = [RLIMITS_DIFFERENCES] if "rlimits" in parts else []
    if "no sandbox" in parts and "same uid" in parts:
        found.append(SHARED_HOST_DIFFERENCES)
    return "; ".join(found)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(444, None, 0, 1)     # landlock_create_ruleset(NULL, 0, VERSION)
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))
