"""The sandbox modes this machine offers, and scripts run as a normal user, for the sandbox tests."""
from __future__ import annotations

import contextlib
import os
import shutil

import pytest

from verify.runner import cgroup


def machine_modes() -> list[tuple[str, bool]]:
    """Every (sandbox policy, cgroup per run) pair this machine offers."""
    policies = ["bwrap", "none"] if shutil.which("bwrap") else ["none"]
    accountings = [True, False] if cgroup.probed_setup() is not None else [False]
    return [(policy, with_cgroups) for policy in policies for with_cgroups in accountings]


def mode_id(mode: tuple[str, bool]) -> str:
    return f"{mode[0]}-{'cgroup' if mode[1] else 'rlimits'}"


NORMAL_USER = "verify-test"
SYSTEM_PYTHON = "/usr/bin/python3"


@contextlib.contextmanager
def normal_user_script(script_text: str, prefix: str):
    """The script `script_text` in a folder the normal user
    NORMAL_USER (made when missing) can read, with a `cache` folder it owns, as
    (script, cache), removed afterwards. Skips unless verify is root with
    SYSTEM_PYTHON and runuser (the script runs as that user through runuser)."""
    import subprocess
    import tempfile
    from pathlib import Path
    if os.geteuid() != 0:
        pytest.skip(f"needs root: the test runs verify as the user {NORMAL_USER} through runuser")
    if not os.path.exists(SYSTEM_PYTHON) or shutil.which("runuser") is None:
        pytest.skip(f"needs {SYSTEM_PYTHON} and runuser")
    if subprocess.run(["id", NORMAL_USER], capture_output=True).returncode != 0:
        subprocess.run(["useradd", "-m", NORMAL_USER], check=True, capture_output=True)
    home = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(home, 0o755)
    script = home / "run.py"
    script.write_text(script_text)
    os.chmod(script, 0o644)
    cache = home / "cache"
    cache.mkdir()
    shutil.chown(cache, NORMAL_USER, NORMAL_USER)
    try:
        yield script, cache
    finally:
        shutil.rmtree(home, ignore_errors=True)
