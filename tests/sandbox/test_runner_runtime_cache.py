"""A runtime's files are in the page cache, read by verify, before a run under cgroup
accounting starts: no run is charged for them (verify/runner/resident.py)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from machine_modes import machine_modes
from runtime_cache import evict_runtime

from verify.runner import Limits, Program, languages, resident, run_program

CGROUP_MODES = [policy for policy, cgroups in machine_modes() if cgroups]
LIMITS = Limits(wall_time=20.0, cpu_time=20.0, memory=512 << 20, output=1 << 20, processes=64)
PROGRAMS = {
    "java": ("Main.java", "public class Main { public static void main(String[] a) { System.out.print(42); } }\n"),
    "javascript": ("main.js", "process.stdout.write('42');\n"),
    "python": ("main.py", "print(42, end='')\n"),
}


@pytest.mark.skipif(not CGROUP_MODES, reason="no cgroup accounting on this machine: no run is charged for page cache")
@pytest.mark.parametrize("policy", CGROUP_MODES)
@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_runtimes_files_evicted_from_the_cache_are_read_back_before_the_run(
        language, policy, tmp_path, monkeypatch, use_isolation):
    name, text = PROGRAMS[language]
    (tmp_path / name).write_text(text)
    tmp_path.chmod(0o755)
    isolation = use_isolation(policy, cgroups=True)
    paths = evict_runtime(languages.get_language(language), monkeypatch)
    assert not all(resident.is_resident(path) for path in paths)
    result = run_program(Program(language, tmp_path / name), limits=LIMITS, isolation=isolation)
    assert result.stdout == b"42", result
    assert [path for path in paths if not resident.is_resident(path)] == []


def test_a_run_without_a_cgroup_reads_nothing_ahead(tmp_path, monkeypatch, use_isolation):
    """Without a cgroup no page is charged to a run, so there is nothing to read ahead."""
    (tmp_path / "main.py").write_text("print(42, end='')\n")
    tmp_path.chmod(0o755)
    isolation = use_isolation("auto", cgroups=False)
    read = []
    monkeypatch.setattr(resident, "read_runtime", lambda tools, runtime: read.append(tools))
    result = run_program(Program("python", tmp_path / "main.py"), limits=LIMITS, isolation=isolation)
    assert result.stdout == b"42"
    assert read == []


def test_an_executable_lists_its_loader_and_libraries_and_a_script_none(tmp_path):
    python = Path(os.path.realpath(sys.executable))
    libraries = resident.shared_libraries(python)
    if resident.elf_interpreter(python) is None:
        pytest.skip(f"{python} is static: it names no loader")
    assert libraries and all(path.is_absolute() and path.exists() for path in libraries)
    assert any(path.name.startswith("libc.so") for path in libraries)
    script = tmp_path / "script"
    script.write_text("#!/bin/sh\necho hi\n")
    assert resident.elf_interpreter(script) is None
    assert resident.shared_libraries(script) == []
    (tmp_path / "short").write_bytes(b"\x7fELF\x02\x01")
    assert resident.elf_interpreter(tmp_path / "short") is None
