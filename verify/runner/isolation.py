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
Landlock, and a fresh uid when verify is root; without bubblewrap the filter is required
(exit 2 without it): there it alone keeps a run's sockets inside the run. `Isolation.name` says exactly which, and
every result carries it.

An `Isolation` holds everything a run's isolation depends on, resolved once (from the
policy, the machine and the settings: `from_settings`) and passed to every run, build and
session explicitly (their `isolation` keyword, a LocalRunner's constructor). Nothing below
reads the environment to decide how a run is isolated.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from verify.runner import machine, seccomp, trial
from verify.runner.cgroup import probed_setup
from verify.runner.helper import helper_path
from verify.runner.mode import (
    LANDLOCK_SIGNAL_SCOPE,
    RLIMITS_DIFFERENCES,
    Isolation,
    SandboxUnavailable,
    differences,
    landlock_abi,
)
from verify.runner.paths import default_temp_root
from verify.settings import Settings

__all__ = ["ACCOUNTINGS", "LANDLOCK_SIGNAL_SCOPE", "POLICIES", "RLIMITS_DIFFERENCES", "Isolation",
           "SandboxUnavailable", "differences", "from_settings", "landlock_abi", "resolve"]

POLICIES = ("auto", "bwrap", "none")
ACCOUNTINGS = ("auto", "cgroup", "rlimits")
_POLICY_WORDS = {"auto": "auto", "": "auto", "bwrap": "bwrap", "bubblewrap": "bwrap",
                 "none": "none", "off": "none", "0": "none"}


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


def resolve(policy: str = "auto", accounting: str = "auto", *, cgroups: bool | None = None, helper: bool = True,
            seccomp_filter: bool = True, temp_root: Path | None = None, cache: Path | None = None) -> Isolation:
    """The isolation `policy` and `accounting` give here; SandboxUnavailable when it cannot
    be had. `cgroups` (for the callers that think in a switch): True is accounting "cgroup",
    False "rlimits". `helper` False: no verify-init; `seccomp_filter` False: no filter;
    `temp_root`: where runs get their private folder (None: the default, paths.py); `cache`:
    where verify-init and the filter are built (None: cache_root())."""
    if policy not in POLICIES:
        raise SandboxUnavailable(f"unknown sandbox policy {policy!r} (one of: {', '.join(POLICIES)})")
    if cgroups is not None:
        accounting = "cgroup" if cgroups else "rlimits"
    if accounting not in ACCOUNTINGS:
        raise SandboxUnavailable(f"unknown accounting {accounting!r} (one of: {', '.join(ACCOUNTINGS)})")
    bwrap = _usable_bwrap(policy)
    init = helper_path(cache) if helper else None
    if bwrap is None and init is None:
        # without a PID namespace only verify-init, the run's subreaper, finds what a
        # program left behind (setsid, double forks): no run goes unsupervised
        raise SandboxUnavailable("no sandbox and no verify-init: verify-init, the supervisor that kills what "
                                 "a program leaves behind, is built with the system C compiler; fix: install "
                                 "one (apt-get install gcc), or bubblewrap (apt-get install bubblewrap)")
    cgroup_setup = None
    if accounting != "rlimits":
        cgroup_setup = probed_setup() if init is not None else None
        if cgroup_setup is None:
            raise _no_cgroup(accounting, init)
    abi = landlock_abi() if init else 0
    own_uid = os.geteuid() == 0
    uid_range = machine.run_uid_range()
    if own_uid and uid_range is None:
        raise SandboxUnavailable("verify is root in a user namespace that maps too few ids to give each run "
                                 "a uid of its own, and a run never gets root; fix: run verify as a normal "
                                 "user (in a rootless container: a normal user inside it)")
    # Without a cgroup nothing would count shared memory, and without a sandbox or an own
    # uid (no private IPC namespace) a SysV segment would outlive the run: the program gets
    # none. Without a PID namespace, an own uid or Landlock's signal scope, it could signal verify.
    shares_host_ipc = bwrap is None and not own_uid
    signals_exposed = shares_host_ipc and abi < LANDLOCK_SIGNAL_SCOPE
    filter_path = seccomp.filter_file(block_kill_of=os.getpid() if signals_exposed else None,
                                      block_shared_memory=cgroup_setup is None or shares_host_ipc, cache=cache) \
        if seccomp_filter and seccomp.available() else None
    if bwrap is None and filter_path is None:
        raise _no_socket_filter(seccomp_filter)
    chosen = Isolation(policy=policy, bwrap=bwrap, helper=init, cgroups=cgroup_setup, seccomp=filter_path,
                       landlock_abi=abi, own_uid=own_uid, temp_root=default_temp_root(temp_root),
                       setpriv=shutil.which("setpriv"), accounting_policy=accounting,
                       uid_range=uid_range or machine.RUN_UIDS)
    _try(chosen)
    return chosen


def _usable_bwrap(policy: str) -> str | None:
    """The bubblewrap `policy` lets runs use here (None: none, which "auto" accepts);
    SandboxUnavailable when it is asked for and missing, or installed and failing."""
    if policy == "none":
        return None
    found = shutil.which("bwrap")
    if found is None:
        if policy == "bwrap":
            raise SandboxUnavailable("--sandbox bwrap: bubblewrap is not installed "
                                     "(apt-get install bubblewrap)")
        return None
    failure = _bwrap_failure(found)
    if failure is not None:
        raise SandboxUnavailable(f"bubblewrap is installed but cannot make a sandbox here "
                                 f"({failure}); {bwrap_fix()}")
    return found


def _try(chosen: Isolation) -> None:
    """SandboxUnavailable when a trial run under `chosen` fails."""
    failed = trial.failure(chosen)
    if failed is not None:
        if failed.startswith("the sandbox could not start"):
            raise SandboxUnavailable(f"{chosen.name}: {failed}")
        raise SandboxUnavailable(f"{chosen.name}: {failed}; fix: {machine.sandbox_fix()}")


def _no_socket_filter(wanted: bool) -> SandboxUnavailable:
    """Without bubblewrap only the seccomp filter keeps a run's sockets inside the run."""
    return SandboxUnavailable(f"--sandbox none needs the seccomp filter, and here there is "
                              f"{seccomp.describe(wanted=wanted)}: "
                              "without it a run's sockets reach the host (UDP, the Unix sockets of the "
                              "judge's uid); fix: unset VERIFY_SECCOMP and install libseccomp2 (apt-get "
                              "install libseccomp2), or install bubblewrap (apt-get install bubblewrap)")


def from_settings(settings: Settings) -> Isolation:
    """The isolation `settings` ask for (their sandbox and accounting words, verify-init,
    the seccomp filter, the run folders' place); SandboxUnavailable when it cannot be had."""
    return resolve(sandbox_policy(settings.sandbox), accounting_policy(settings.accounting),
                   helper=settings.helper, seccomp_filter=settings.seccomp, temp_root=settings.temp_root,
                   cache=settings.cache)


def sandbox_policy(word: str) -> str:
    """The policy a word of --sandbox or VERIFY_SANDBOX names ("": auto)."""
    if word not in _POLICY_WORDS:
        raise SandboxUnavailable(f"VERIFY_SANDBOX={word!r}: expected one of {', '.join(POLICIES)}")
    return _POLICY_WORDS[word]


def accounting_policy(word: str) -> str:
    """The accounting a word of --accounting or VERIFY_ACCOUNTING names ("": auto)."""
    word = word or "auto"
    if word not in ACCOUNTINGS:
        raise SandboxUnavailable(f"VERIFY_ACCOUNTING={word!r}: expected one of {', '.join(ACCOUNTINGS)}")
    return word
