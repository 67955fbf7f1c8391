"""The runtime files verify reads into its own page cache (verify/runner/resident.py)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from verify.runner import resident


def evicted(path: Path) -> Path:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return path


def test_a_file_read_into_the_cache_is_resident_and_an_evicted_one_is_not(tmp_path):
    data = tmp_path / "data"
    data.write_bytes(os.urandom(1 << 20))
    os.sync()
    evicted(data)
    assert not resident.is_resident(data)
    resident.read_into_cache(data)
    assert resident.is_resident(data)


def test_residency_of_what_cannot_be_read_is_false_and_an_empty_file_is_resident(tmp_path):
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "link").symlink_to(tmp_path / "empty")
    assert resident.is_resident(tmp_path / "empty")
    assert not resident.is_resident(tmp_path / "missing")
    assert not resident.is_resident(tmp_path / "link")     # never followed
    resident.read_into_cache(tmp_path / "missing")        # nothing to read, no error


def test_the_loader_listing_is_read_as_paths():
    listing = ("\tlinux-vdso.so.1 (0x00007ffd)\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)\n"
               "\t/lib64/ld-linux-x86-64.so.2 (0x00007f)\n\tlibgone.so => not found\n")
    assert list(resident._listed_paths(listing)) == [
        Path(os.path.realpath("/lib/x86_64-linux-gnu/libc.so.6")), Path(os.path.realpath("/lib64/ld-linux-x86-64.so.2"))]


def test_declared_runtime_folders_are_walked_relative_to_the_tools_installation(tmp_path):
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    (home / "lib" / "server").mkdir(parents=True)
    tool = home / "bin" / "tool"
    tool.write_text("#!/bin/sh\n")
    (home / "lib" / "modules").write_bytes(b"m")
    (home / "lib" / "server" / "libjvm.so").write_bytes(b"j")
    (home / "lib" / "alias").symlink_to(home / "lib" / "modules")
    link = tmp_path / "on-path"
    link.symlink_to(tool)
    files = resident.runtime_files([str(link)], ["lib"])
    assert files == [tool, home / "lib" / "modules", home / "lib" / "server" / "libjvm.so"]


def test_a_runtime_is_read_once_then_checked_again_only_after_the_interval(tmp_path, monkeypatch):
    tool = tmp_path / "bin" / "tool"
    tool.parent.mkdir()
    tool.write_bytes(os.urandom(1 << 16))
    os.sync()
    reads = []
    real_read = resident.read_into_cache
    monkeypatch.setattr(resident, "read_into_cache", lambda path: (reads.append(path), real_read(path)))
    clock = [1000.0]
    monkeypatch.setattr(resident.time, "monotonic", lambda: clock[0])
    tools = {"interpreter": str(tool)}
    resident.read_runtime(tools, ())
    assert reads == [tool]
    evicted(tool)
    clock[0] += resident.RECHECK / 2
    resident.read_runtime(tools, ())
    assert reads == [tool]            # within the interval: not checked
    clock[0] += resident.RECHECK
    resident.read_runtime(tools, ())
    assert reads == [tool, tool]      # checked, found evicted, read again
    clock[0] += resident.RECHECK * 2
    resident.read_runtime(tools, ())
    assert reads == [tool, tool]      # checked, still cached


def test_every_runtime_the_languages_table_declares_exists_where_its_language_is_installed():
    """A misspelt entry would read nothing, silently."""
    from verify.runner.languages import MissingInterpreter, languages
    checked = 0
    for language in languages().values():
        try:
            tool = language.tool("interpreter") if language.runtime else None
        except MissingInterpreter:
            continue            # not installed here: `verify langs` says so
        for entry in language.runtime:
            assert (Path(os.path.realpath(tool)).parent.parent / entry).exists(), (language.key, entry)
            checked += 1
    if checked == 0:
        pytest.skip("no language declaring a runtime is installed here")
