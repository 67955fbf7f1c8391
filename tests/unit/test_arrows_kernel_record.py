"""The compiled arrows kernel is checked against its manifest once, then loaded by its files'
stat alone while they stay as they were checked; a library changed since is checked again,
found changed and rebuilt, never loaded as it is."""
from __future__ import annotations

import os
import shutil

import pytest

from verify.contests.arrows import kernel_build
from verify.runner import artefacts

HAS_COMPILER = any(shutil.which(name) for name in ("cc", "gcc", "clang"))


@pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: nothing is built")
def test_a_library_checked_once_loads_by_its_stat_until_it_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path))
    built = kernel_build.build_library()
    assert built is not None and built.parent.parent == tmp_path / kernel_build.FOLDER
    folder = built.parent
    assert kernel_build.checked_before(folder)
    record = f"{folder}{kernel_build.CHECKED}"
    assert os.path.isfile(record) and kernel_build.fingerprint(folder) == open(record).read()

    with open(built, "ab") as library:          # changed behind verify's back
        library.write(b"\0")
    assert not kernel_build.checked_before(folder) and not artefacts.is_intact(folder)
    assert kernel_build.build_library() == built        # rebuilt in its place
    assert artefacts.is_intact(folder) and kernel_build.checked_before(folder)

    os.utime(built)                             # the same bytes, touched: checked again, found intact
    assert not kernel_build.checked_before(folder)
    assert kernel_build.build_library() == built and kernel_build.checked_before(folder)


def test_a_folder_that_cannot_be_listed_or_holds_a_link_is_never_taken_as_checked(tmp_path):
    assert kernel_build.fingerprint(tmp_path / "missing") is None
    assert not kernel_build.checked_before(tmp_path / "missing")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "library.so").write_bytes(b"x")
    kernel_build.record_checked(tmp_path / "build")
    assert kernel_build.checked_before(tmp_path / "build")
    (tmp_path / "build" / "link").symlink_to(tmp_path / "build" / "library.so")
    assert kernel_build.fingerprint(tmp_path / "build") is None
    assert not kernel_build.checked_before(tmp_path / "build")


@pytest.mark.skipif(not HAS_COMPILER, reason="no C compiler: nothing is built")
def test_the_generator_s_program_is_the_first_of_its_builds_that_compiles_and_then_the_one_checked(tmp_path,
                                                                                                  monkeypatch):
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path))
    monkeypatch.setattr(kernel_build, "PROGRAM_FLAGS", (("-O2", "--no-such-flag"), ("-O2",)))
    failing, plain = kernel_build.program_folders()
    built = kernel_build.program_path()
    assert built == os.path.join(plain, kernel_build.PROGRAM) and not os.path.exists(failing)
    assert kernel_build.checked_before(plain) and os.access(built, os.X_OK)
    assert kernel_build.program_path() == built
