"""The installed contests are remembered between runs under the state of the import path, and
looked up again as soon as something is installed or removed."""
from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import time

import pytest

from verify import challenges
from verify.challenges import desert, installed

LONG_AGO = time.time() - 3600


def _install(site, name: str, value: str) -> None:
    """A distribution declaring the contest ``name``, as pip leaves it in ``site``."""
    info = site / f"{name}_contest-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-contest\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[verify.challenges]\n{name} = {value}\n")


def _settle(*folders) -> None:
    for folder in folders:
        os.utime(folder, (LONG_AGO, LONG_AGO))


@pytest.fixture
def site(tmp_path, monkeypatch):
    """An import path of one folder, changed an hour ago, and a cache of our own."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.setattr(sys, "path", [str(folder)])
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    importlib.metadata.FastPath.__new__.cache_clear()
    yield folder
    importlib.metadata.FastPath.__new__.cache_clear()
    challenges.reset()


def _no_scan(monkeypatch) -> None:
    def refuse(**_: object) -> None:
        raise AssertionError("importlib.metadata was asked")
    monkeypatch.setattr(importlib.metadata, "entry_points", refuse)


def test_a_settled_path_is_remembered_and_not_scanned_again(site, tmp_path, monkeypatch):
    _install(site, "echo", "verify_echo:CHALLENGE")
    _settle(site)
    assert installed.entry_points() == [("echo", "verify_echo:CHALLENGE")]
    kept = json.loads((tmp_path / "cache" / installed.CACHE_NAME).read_text())
    assert kept["contests"] == [["echo", "verify_echo:CHALLENGE"]]
    _no_scan(monkeypatch)
    assert installed.entry_points() == [("echo", "verify_echo:CHALLENGE")]


def test_installing_or_removing_a_contest_is_seen_at_once(site):
    _settle(site)
    assert installed.entry_points() == []
    _install(site, "echo", "verify_echo:CHALLENGE")
    assert installed.entry_points() == [("echo", "verify_echo:CHALLENGE")]
    (site / "echo_contest-1.0.dist-info" / "entry_points.txt").unlink()
    (site / "echo_contest-1.0.dist-info" / "METADATA").unlink()
    (site / "echo_contest-1.0.dist-info").rmdir()
    assert installed.entry_points() == []


def test_a_folder_changed_just_now_is_not_remembered(site, tmp_path):
    _install(site, "echo", "verify_echo:CHALLENGE")      # the folder's time: now
    assert installed.entry_points() == [("echo", "verify_echo:CHALLENGE")]
    assert not (tmp_path / "cache" / installed.CACHE_NAME).exists()


def test_a_damaged_cache_is_scanned_over(site, tmp_path):
    _install(site, "echo", "verify_echo:CHALLENGE")
    _settle(site)
    cache = tmp_path / "cache" / installed.CACHE_NAME
    cache.parent.mkdir()
    for damage in ("{", "[]", json.dumps({"state": installed.path_state(), "contests": [["a", "b", "c"]]})):
        cache.write_text(damage)
        assert installed.entry_points() == [("echo", "verify_echo:CHALLENGE")]
        assert json.loads(cache.read_text())["contests"] == [["echo", "verify_echo:CHALLENGE"]]


def test_a_cache_that_cannot_be_written_only_costs_time(site, tmp_path, monkeypatch):
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "not-a-folder"))
    _install(site, "echo", "verify_echo:CHALLENGE")
    _settle(site)
    assert installed.entry_points() == [("echo", "verify_echo:CHALLENGE")]
    assert installed.entry_points() == [("echo", "verify_echo:CHALLENGE")]


def test_a_remembered_contest_still_clashes_with_a_built_in_one_of_its_name(site, monkeypatch):
    _install(site, "desert", "elsewhere:CHALLENGE")
    _settle(site)
    installed.entry_points()        # remembered
    _no_scan(monkeypatch)
    challenges.reset()
    with pytest.raises(challenges.VerifyError, match="two contests are called 'desert'"):
        challenges.names()


def test_a_remembered_contest_loads_through_its_entry_point(site):
    (site / "verify_echo_here.py").write_text("from verify.challenges.desert import CHALLENGE as DESERT\n")
    _install(site, "echoed", "verify_echo_here:DESERT")
    _settle(site)
    assert installed.entry_points() == [("echoed", "verify_echo_here:DESERT")]
    try:
        assert installed.loader("echoed", "verify_echo_here:DESERT")() is desert.CHALLENGE
    finally:
        sys.modules.pop("verify_echo_here", None)
