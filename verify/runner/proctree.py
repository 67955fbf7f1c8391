"""A live process tree, read from /proc: its members, and its CPU time (a run's total
without a cgroup).

Without a cgroup nothing in the kernel adds up a run's CPU while it runs: RLIMIT_CPU
holds per process, and the report verify-init writes at the end covers only what it
reaped. A program whose children spin while it sleeps would then run to the wall-time
limit. `tree_cpu_time(pid)` sums, over `pid` and every live descendant, each process's
own CPU time and that of the children it has reaped (fields utime, stime, cutime and
cstime of /proc/PID/stat). It walks parents before their children, so a child reaped
during the walk is counted at most once (it may be missed once, and is then counted at
the next reading through its parent's cutime).
"""
from __future__ import annotations

import os

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
MAX_PROCESSES = 4096          # a walk never reads more (pids.max / RLIMIT_NPROC bound a run far below)


def _own_and_reaped(pid: int) -> int:
    """Clock ticks of `pid` itself plus those of its reaped children; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return 0
    # fields[0] is field 3 (state): utime, stime, cutime, cstime are fields 14 to 17
    try:
        return sum(int(word) for word in fields[11:15])
    except ValueError:
        return 0


def children(pid: int) -> list[int]:
    """The living children of `pid` (of every thread of it)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as children:
                found.extend(int(word) for word in children.read().split())
        except (OSError, ValueError):
            continue
    return found


def tree_cpu_time(root: int) -> float:
    """CPU seconds used so far by `root` and its descendants, living or reaped by one of them."""
    ticks = 0
    pending = [root]
    seen = 0
    while pending and seen < MAX_PROCESSES:
        pid = pending.pop()
        seen += 1
        ticks += _own_and_reaped(pid)
        pending.extend(children(pid))
    return ticks / TICKS


def descendants(pid: int) -> list[int]:
    """Every living descendant of `pid`, parents before their children."""
    found: list[int] = []
    pending = [pid]
    while pending and len(found) < MAX_PROCESSES:
        kids = children(pending.pop())
        found += kids
        pending += kids
    return found
