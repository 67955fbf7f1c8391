"""The unit tests start no program: they test pure code, or the grading core on a FakeRunner.

Every process start is refused here, except the C compiler building verify's own kernels
into the cache (the judge's code, not an entry's). A test that needs a sandbox or a real
entry belongs in tests/sandbox or tests/e2e; the refusal says so, so the unit set stays
quick (under a minute) and runs anywhere.
"""
from __future__ import annotations

import os
import re
import subprocess

# the judge's own C kernels: `cc`, `gcc-12`, `x86_64-linux-gnu-gcc-12`, `clang`...
KERNEL_COMPILER = re.compile(r"(^|-)(cc|gcc|clang)(-[0-9.]+)?$")


class ProgramStarted(AssertionError):
    """A unit test started a program."""


def _refuse(what: object) -> None:
    raise ProgramStarted(f"tests/unit starts no program, and this test started {what!r}: "
                         "move it to tests/sandbox (the runner) or tests/e2e (whole commands)")


def refuse_program_starts(monkeypatch) -> None:
    """Every way of starting a process refused, through `monkeypatch` (undone after the test)."""
    popen_init = subprocess.Popen.__init__

    def guarded_init(self, args, *rest, **options):
        program = args[0] if isinstance(args, (list, tuple)) else args
        if not KERNEL_COMPILER.search(os.path.basename(str(program))):
            _refuse(program)
        popen_init(self, args, *rest, **options)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded_init)
    monkeypatch.setattr(os, "fork", lambda: _refuse("fork"))
    monkeypatch.setattr(os, "posix_spawn", lambda path, *rest, **options: _refuse(path))
    monkeypatch.setattr(os, "posix_spawnp", lambda path, *rest, **options: _refuse(path))
    for name in ("execv", "execve", "execvp", "execvpe"):
        monkeypatch.setattr(os, name, lambda path, *rest, **options: _refuse(path))
