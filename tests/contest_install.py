"""A contest project from tests/fixtures installed with ``pip install --target``: a folder to put on
PYTHONPATH (or sys.path), where verify finds the contest through its entry point."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNTRACKED = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info")


def pip_flags() -> list[str]:
    """--no-build-isolation when this Python can build a wheel by itself (setuptools, with its own
    bdist_wheel from 70.1 or the wheel package): no index is needed then. Else pip fetches
    setuptools and wheel for an isolated build."""
    try:
        setuptools = tuple(int(part) for part in importlib.metadata.version("setuptools").split(".")[:2])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return []
    if setuptools >= (70, 1) or importlib.util.find_spec("wheel") is not None:
        return ["--no-build-isolation"]
    return []


def install_contest(project: Path, root: Path) -> Path:
    """``project`` (a folder with its pyproject.toml) installed under ``root``: the target folder.
    It is built from a copy (building writes build/ and *.egg-info beside the sources)."""
    if importlib.util.find_spec("pip") is None:
        pytest.skip("pip is not installed")
    source = root / project.name
    shutil.copytree(project, source, ignore=UNTRACKED)
    target = root / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check",
         *pip_flags(), "--target", str(target), str(source)],
        check=False, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return target
