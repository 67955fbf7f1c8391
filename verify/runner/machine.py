"""What kind of machine verify is on, for the fix a refusal names.

A sandbox or a cgroup that cannot be had is a judge error: its one line says why and
what to do here. The right fix depends on the platform: inside a container the host's
settings are out of reach and the container's run flags are the fix; on a host it is a
sysctl, root, or a delegated cgroup from systemd.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

APPARMOR_USERNS = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
USERNS_CLONE = Path("/proc/sys/kernel/unprivileged_userns_clone")
MAX_USER_NAMESPACES = Path("/proc/sys/user/max_user_namespaces")


def container() -> str | None:
    """"podman" or "docker" when verify runs inside such a container, else None."""
    if Path("/run/.containerenv").exists():
        return "podman"
    if Path("/.dockerenv").exists():
        return "docker"
    return None


def _sysctl(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def apparmor_restricts_userns() -> bool:
    return _sysctl(APPARMOR_USERNS) == "1"


def user_namespaces_disabled() -> bool:
    return _sysctl(USERNS_CLONE) == "0" or _sysctl(MAX_USER_NAMESPACES) == "0"


def is_root() -> bool:
    return os.geteuid() == 0


def cgroup_v2_only() -> bool:
    """The unified hierarchy alone is mounted (every current systemd distribution)."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return False
    return " - cgroup2 " in mounts and " - cgroup " not in mounts


# Tried in rootful Podman (docs/security.md, "In a container"): as root inside, verify-init's
# mount namespace needs CAP_SYS_ADMIN and bubblewrap's loopback CAP_NET_ADMIN; as a normal
# user inside, bubblewrap's /proc needs the container's /proc unmasked.
CONTAINER_ROOT_FIX = ("run the container with --cap-add SYS_ADMIN --cap-add NET_ADMIN (SYS_ADMIN alone "
                      "for --sandbox none)")
CONTAINER_USER_FIX = ("run the container with --security-opt unmask=ALL (Podman) or --security-opt "
                      "systempaths=unconfined (Docker)")


def sandbox_fix() -> str:
    """What to do here when a sandbox (user, mount, PID namespaces, /proc) cannot be made."""
    where = container()
    if where is not None:
        fix = CONTAINER_ROOT_FIX if is_root() else CONTAINER_USER_FIX
        return f"inside a {where} container: {fix}, or run verify on the host"
    if apparmor_restricts_userns():
        return ("AppArmor restricts unprivileged user namespaces here: sysctl -w "
                "kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile allowing "
                "userns for bwrap), or run verify as root")
    if user_namespaces_disabled():
        return ("user namespaces are disabled here: sysctl -w kernel.unprivileged_userns_clone=1 "
                "user.max_user_namespaces=15000, or run verify as root")
    if not is_root():
        return "run verify as root, or allow unprivileged user namespaces"
    return "check that bubblewrap works here: bwrap --ro-bind / / --proc /proc --unshare-all true"


def cgroup_fix() -> str:
    """What to do here to get a cgroup per run."""
    where = container()
    if where is not None:
        return (f"inside a {where} container: give it a writable cgroup (a cgroup v2 host and "
                f"{where} run --cgroupns=private, see docs/security.md)")
    if cgroup_v2_only():
        user = "" if is_root() else "--user "
        systemd = shutil.which("systemd-run") is not None
        if systemd:
            return (f"run verify in a delegated cgroup: systemd-run {user}--scope -p Delegate=yes "
                    f"verify ...")
        return "run verify in a cgroup v2 subtree delegated to it (memory and pids enabled in its subtree_control)"
    if not is_root():
        return "run verify as root (cgroup v1 delegates no cgroup to a normal user)"
    return "mount the memory, pids and cpuacct cgroup hierarchies"
