"""Resource limits of one run, and how they become rlimits."""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """The limits of one run. The field defaults are verify's defaults, the single source
    of them: a command line reads them from here (``Limits.output``, ``DEFAULT_LIMITS``)."""

    wall_time: float = 10.0       # seconds, enforced by the parent (kill on expiry)
    cpu_time: float = 10.0        # seconds, RLIMIT_CPU per process plus a check of the total
    memory: int = 1 << 30         # bytes: RLIMIT_DATA (or AS) per process, and peak RSS checked after
    output: int = 1 << 30         # stdout bytes; the run is stopped when it prints more
    processes: int = 64           # RLIMIT_NPROC for the sandbox's own uid (see docs/runner.md)

    def __post_init__(self) -> None:
        for name in ("wall_time", "cpu_time", "memory", "output", "processes"):
            if getattr(self, name) <= 0:
                raise ValueError(f"limit {name} must be positive, not {getattr(self, name)!r}")

    @property
    def memory_mb(self) -> int:
        return max(16, self.memory >> 20)


DEFAULT_LIMITS = Limits()

# Files the program writes (in its folder copy or /tmp) are bounded too, so that a
# program cannot fill the disk instead of its stdout.
FILE_SIZE_LIMIT = 256 << 20
OPEN_FILES_LIMIT = 1024


def prlimit_argv(limits: Limits, memory_kind: str, processes: int | None, memory_extra: int = 0) -> list[str]:
    """The `prlimit` prefix applying the rlimits (used instead of preexec_fn, which is
    unsafe when threads are running: `verify check -j` drives runs from threads)."""
    cpu_soft = max(1, math.ceil(limits.cpu_time))
    memory_flag = "--data" if memory_kind == "data" else "--as"
    argv = ["prlimit",
            f"--cpu={cpu_soft}:{cpu_soft + 1}",
            f"{memory_flag}={limits.memory + memory_extra}",
            f"--fsize={FILE_SIZE_LIMIT}",
            f"--nofile={OPEN_FILES_LIMIT}",
            "--core=0"]
    if processes is not None:
        argv.append(f"--nproc={processes}")
    return argv + ["--"]
