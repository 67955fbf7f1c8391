"""The unit set's guard refuses every process start but the judge's kernel compiler."""
from __future__ import annotations

import os
import subprocess

import pytest
from program_guard import KERNEL_COMPILER, ProgramStarted


def test_a_unit_test_cannot_start_a_program():
    with pytest.raises(ProgramStarted, match="tests/unit starts no program"):
        subprocess.run(["true"])
    with pytest.raises(ProgramStarted):
        os.fork()
    with pytest.raises(ProgramStarted):
        os.posix_spawn("/bin/true", ["true"], {})


@pytest.mark.parametrize("name", ["cc", "gcc", "gcc-12", "x86_64-linux-gnu-gcc-12", "clang", "clang-16"])
def test_the_kernel_compiler_is_let_through(name):
    assert KERNEL_COMPILER.search(name)


@pytest.mark.parametrize("name", ["bwrap", "python3", "verify", "verify-init", "true", "git", "gccgo-wrapper"])
def test_nothing_else_is(name):
    assert not KERNEL_COMPILER.search(name)
