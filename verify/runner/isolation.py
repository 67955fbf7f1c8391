"""Which isolation runs get on this machine, chosen once by a policy and then fixed.

Two policies, each chosen by an option or its variable, else auto.

Sandbox (`--sandbox`, else `VERIFY_SANDBOX`):
- `auto`: bubblewrap when it works here; when it is installed but fails (a host whose
  AppArmor or sysctl forbids unprivileged user namespaces), refuse with the reason and
  the fix rather than silently run with less; no bubblewrap when it is not installed;
- `bwrap`: bubblewrap or nothing (exit 2 when it cannot be had);
- `none`: no bubblewrap, asked for explicitly.

Accounting (`--accounting`, else `VERIFY_ACCOUNTING`): what counts a run's memory,
processes and CPU time.
- `auto` and `cgroup`: a cgroup per run, or exit 2 with why none can be had here and the
  fix. Without one, a Python memory hog is a runtime error and a fork bomb a time limit
  where a cgroup says memory limit and process limit: such verdicts are never given
  quietly;
- `rlimits`: no cgroup, asked for by name (every report then says which verdicts may
  differ, `differences`).

Whatever the policies, a run also gets what the machine allows of a seccomp filter,
Landlock, and a fresh uid when verify is root. `Isolation.name` says exactly which, and
every result carries it.

An `Isolation` holds everything a run's isolation depends on, resolved once (from the
policy, the machine and the environment). `run_program`, `prepare` and `Session` take
one as their `isolation` keyword; without it they use the configured one (`current()`).
Given one, nothing below reads the environment again to decide how a run is isolated.
"""
from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

from verify.errors import VerifyError
from verify.runner import machine, seccomp
from verify.runner.cgroup import CgroupSetup, probed_setup
from verify.runner.helper import helper_path
from verify.runner.paths import default_temp_root

POLICIES = ("auto", "bwrap", "none")
ACCOUNTINGS = ("auto", "cgroup", "rlimits")
LANDLOCK_SIGNAL_SCOPE = 6        # the Landlock ABI from which a program cannot signal outside its run
_POLICY_WORDS = {"auto": "auto", "": "auto", "bwrap": "bwrap", "bubblewrap": "bwrap",
                 "none": "none", "off": "none", "0": "none"}


class SandboxUnavailable(VerifyError):
    """The isolation asked for cannot be had on this machine (exit 2, before any run)."""


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


RLIMITS_DIFFERENCES = ("rlimits accounting: no cgroup counts this run's memory, processes and CPU, so "
                       "a program over the memory or process limit may be judged runtime error or time "
                       "limit here where a judge with a cgroup says memory limit or process limit")


def differences(name: str) -> str:
    """Which verdicts an isolation named `name` (an `Isolation.name`, as results carry it)
    may give otherwise than the reference (a cgroup per run); "" when none may differ."""
    return RLIMITS_DIFFERENCES if "rlimits" in name.split("+") else ""


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where there is none."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(444, None, 0, 1)     # landlock_create_ruleset(NULL, 0, VERSION)
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


def _bwrap_failure(bwrap: str) -> str | None:
    """None when bubblewrap can make a sandbox here, else the first line of why not."""
    try:
        probe = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net",
                                "--unshare-ipc", "--die-with-parent", "/bin/true"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if probe.returncode == 0:
        return None
    text = probe.stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:200] if text else f"exit code {probe.returncode}"


def bwrap_fix() -> str:
    return f"fix: {machine.sandbox_fix()}; or choose --sandbox none to run without bubblewrap"


RLIMITS_CHOICE = ("or --accounting rlimits to judge without one (then memory and process limits "
                  "may be judged otherwise)")


def _no_cgroup(accounting: str, helper: str | None) -> SandboxUnavailable:
    asked = "--accounting cgroup" if accounting == "cgroup" else "accounting auto"
    if helper is None:
        return SandboxUnavailable(f"{asked}: a cgroup per run needs verify-init, which needs a C compiler "
                                  f"(apt-get install gcc); {RLIMITS_CHOICE}")
    return SandboxUnavailable(f"{asked}: no cgroup can be made for each run here; fix: {machine.cgroup_fix()}; "
                              f"{RLIMITS_CHOICE}")


def resolve(policy: str, accounting: str | None = None, *, cgroups: bool | None = None) -> Isolation:
    """The isolation `policy` and `accounting` give here; SandboxUnavailable when it cannot
    be had. `accounting` None: $VERIFY_ACCOUNTING, else auto. `cgroups` (for the callers
    that think in a switch): True is accounting "cgroup", False "rlimits"."""
    if policy not in POLICIES:
        raise SandboxUnavailable(f"unknown sandbox policy {policy!r} (one of: {', '.join(POLICIES)})")
    if cgroups is not None:
        accounting = "cgroup" if cgroups else "rlimits"
    elif accounting is None:
        accounting = accounting_from_environment()
    if accounting not in ACCOUNTINGS:
        raise SandboxUnavailable(f"unknown accounting {accounting!r} (one of: {', '.join(ACCOUNTINGS)})")
    bwrap = None
    if policy != "none":
        found = shutil.which("bwrap")
        if found is None:
            if policy == "bwrap":
                raise SandboxUnavailable("--sandbox bwrap: bubblewrap is not installed "
                                         "(apt-get install bubblewrap)")
        else:
            failure = _bwrap_failure(found)
            if failure is not None:
                raise SandboxUnavailable(f"bubblewrap is installed but cannot make a sandbox here "
                                         f"({failure}); {bwrap_fix()}")
            bwrap = found
    helper = helper_path()
    cgroup_setup = None
    if accounting != "rlimits":
        cgroup_setup = probed_setup() if helper is not None else None
        if cgroup_setup is None:
            raise _no_cgroup(accounting, helper)
    abi = landlock_abi() if helper else 0
    own_uid = os.geteuid() == 0
    # Without a cgroup nothing would count shared memory: the program gets none. Without
    # a PID namespace, an own uid or Landlock's signal scope, it could signal verify.
    signals_exposed = bwrap is None and not own_uid and abi < LANDLOCK_SIGNAL_SCOPE
    filter_path = seccomp.filter_file(block_kill_of=os.getpid() if signals_exposed else None,
                                      block_shared_memory=cgroup_setup is None) if seccomp.available() else None
    return Isolation(policy=policy, bwrap=bwrap, helper=helper, cgroups=cgroup_setup, seccomp=filter_path,
                     landlock_abi=abi, own_uid=own_uid, temp_root=default_temp_root(),
                     setpriv=shutil.which("setpriv"), accounting_policy=accounting)


def policy_from_environment() -> str:
    word = os.environ.get("VERIFY_SANDBOX", "").strip().lower()
    if word not in _POLICY_WORDS:
        raise SandboxUnavailable(f"VERIFY_SANDBOX={word!r}: expected one of {', '.join(POLICIES)}")
    return _POLICY_WORDS[word]


def accounting_from_environment() -> str:
    word = os.environ.get("VERIFY_ACCOUNTING", "").strip().lower() or "auto"
    if word not in ACCOUNTINGS:
        raise SandboxUnavailable(f"VERIFY_ACCOUNTING={word!r}: expected one of {', '.join(ACCOUNTINGS)}")
    return word


_lock = threading.Lock()
_current: Isolation | None = None


def configure(policy: str | None = None, accounting: str | None = None) -> Isolation:
    """Choose the isolation of every run of this process (None: from VERIFY_SANDBOX and
    VERIFY_ACCOUNTING)."""
    global _current
    chosen = resolve(policy or policy_from_environment(), accounting)
    with _lock:
        _current = chosen
    return chosen


def current() -> Isolation:
    """The configured isolation; configured from VERIFY_SANDBOX and VERIFY_ACCOUNTING on first use."""
    global _current
    with _lock:
        if _current is None:
            _current = resolve(policy_from_environment())
        return _current


def reset() -> None:
    """Forget the configured isolation (tests switch policies with configure())."""
    global _current
    with _lock:
        _current = None


def isolation_name() -> str:
    """The configured isolation's name (what every result of this process reports)."""
    return current().name
