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


RUN_UIDS = (1 << 20, 1 << 30)     # far above any uid a system hands out
MIN_RUN_UIDS = 4096               # fewer ids to draw from than this: no own uid per run
LOWEST_RUN_UID = 10000            # below it, a user namespace's ids may be people's or the system's


def _mapped(path: str) -> list[tuple[int, int]]:
    """The ids this process's user namespace maps, as [start, end) ranges (uid_map, gid_map)."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return [(0, 1 << 32)]
    spans = []
    for line in lines:
        words = line.split()
        if len(words) == 3 and all(word.isdigit() for word in words):
            spans.append((int(words[0]), int(words[0]) + int(words[2])))
    return spans


def run_uid_range() -> tuple[int, int] | None:
    """Where a run's own uid (and gid) is drawn from: far above the system's ids where the
    user namespace maps them (a host), else the top of the widest span of ids it maps
    (rootless Podman maps some 65536); None when too few are mapped to draw from."""
    best: tuple[int, int] | None = None
    for start, end in _mapped("/proc/self/uid_map"):
        for gid_start, gid_end in _mapped("/proc/self/gid_map"):
            low, high = max(start, gid_start, LOWEST_RUN_UID), min(end, gid_end)
            if low <= RUN_UIDS[0] and high >= RUN_UIDS[1]:
                return RUN_UIDS
            if high - low >= MIN_RUN_UIDS and (best is None or high - low > best[1] - best[0]):
                best = (low + (high - low) // 2, high)     # its upper half: the lower one is people's
    return best


def cgroup_v2_only() -> bool:
    """The unified hierarchy alone is mounted (every current systemd distribution)."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return False
    return " - cgroup2 " in mounts and " - cgroup " not in mounts


# Measured in rootful and rootless Podman (docs/platforms.md): a normal user inside gets
# bubblewrap once the container's /proc is unmasked; root inside does not (bubblewrap's
# own namespaces need capabilities a container withholds), so the recipe runs verify as a
# normal user, given a cgroup of its own by the container's entrypoint.
CONTAINER_ROOT_FIX = ("run verify as a normal user inside the container, started with --security-opt "
                      "'unmask=/proc/*' (the Containerfile's recipe, docs/platforms.md)")
CONTAINER_USER_FIX = ("run the container with --security-opt 'unmask=/proc/*' (Podman; Docker: "
                      "--security-opt systempaths=unconfined), docs/platforms.md")


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
        tree = ("--cgroupns=private with the cgroup tree writable" if cgroup_v2_only() else
                "-v /sys/fs/cgroup:/sys/fs/cgroup:rw")
        return (f"inside a {where} container: run it with {tree} and give verify's user a cgroup "
                f"of its own (the Containerfile's entrypoint, docs/platforms.md)")
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
