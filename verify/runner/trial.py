"""A trial run: whether an isolation really works here, tested the way a run uses it.

A sandbox that starts `bwrap --ro-bind / / true` may still fail every real run (a
container that forbids mounting /proc, a verify-init that cannot make its mount
namespace or join its cgroup). So before any run, `resolve` makes one tiny real run
through the same launch path: the same Sandbox, bubblewrap's /proc and namespaces,
verify-init with its cgroup, private folders, Landlock and seccomp. Its outcome is
remembered per isolation for the life of the process.
"""
from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path

from verify.runner import reaper
from verify.runner.limits import Limits
from verify.runner.mode import Isolation, SandboxUnavailable
from verify.runner.process import run_command

TRIAL_LIMITS = Limits(wall_time=30.0, cpu_time=5.0, memory=64 << 20, processes=4)


@cache
def failure(isolation: Isolation) -> str | None:
    """None when a run of `true` works under `isolation`, else why not, in one line."""
    true = shutil.which("true") or "/bin/true"
    folder = Path(tempfile.mkdtemp(prefix=reaper.run_folder_prefix(), dir=isolation.temp_root))
    try:
        folder.chmod(0o755)
        result = run_command([true], workdir=folder, limits=TRIAL_LIMITS, isolation=isolation)
    except SandboxUnavailable as error:
        return str(error)
    except OSError as error:
        return f"a trial run could not start: {error}"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if result.exit_code != 0:
        said = (result.stderr_head.strip().splitlines() or [""])[0][:200]
        return f"a trial run of {true} ended with exit code {result.exit_code}, signal {result.signal} ({said})"
    return None
