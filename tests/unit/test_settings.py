"""verify/settings.py: every variable verify reads, read once into a frozen Settings, the
command line's options over them; and the CLI passing them down."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from verify.settings import DEFAULT_SEARCH_PATH, Settings


def test_an_empty_environment_gives_the_defaults():
    settings = Settings.from_environment({"HOME": "/home/someone"})
    assert settings.cache == Path("/home/someone/.cache/verify")
    assert (settings.temp_root, settings.sandbox, settings.accounting, settings.cluster) == (None, "", "", None)
    assert settings.helper and settings.seccomp and settings.forkserver and settings.zygote
    assert (settings.contest_path, settings.debug, settings.colour, settings.cache_max_mb) == ((), False, None, "")
    assert settings.search_path == DEFAULT_SEARCH_PATH


def test_the_cache_is_verify_cache_else_xdg_else_home():
    assert Settings.from_environment({"VERIFY_CACHE": "/c", "XDG_CACHE_HOME": "/x", "HOME": "/h"}).cache == Path("/c")
    assert Settings.from_environment({"XDG_CACHE_HOME": "/x", "HOME": "/h"}).cache == Path("/x/verify")
    assert Settings.from_environment({"VERIFY_CACHE": "", "HOME": "/h"}).cache == Path("/h/.cache/verify")


@pytest.mark.parametrize("variable, field, words", [
    ("VERIFY_HELPER", "helper", ["none", "off", "0", "NONE"]),
    ("VERIFY_SECCOMP", "seccomp", ["off", "none", "0", "no", "Off"]),
    ("VERIFY_FORKSERVER", "forkserver", ["off", "0", "no", "none", " OFF "]),
    ("VERIFY_ZYGOTE", "zygote", ["off", "0", "no", "none", " Off "]),
])
def test_each_switch_turns_off_with_its_words_only(variable, field, words):
    for word in words:
        assert getattr(Settings.from_environment({variable: word}), field) is False, word
    for word in ("", "1", "on", "yes"):
        assert getattr(Settings.from_environment({variable: word}), field) is True, word


def test_the_other_variables_are_read_as_documented():
    settings = Settings.from_environment({
        "VERIFY_TMPDIR": "/runs", "VERIFY_SANDBOX": " BWRAP ", "VERIFY_ACCOUNTING": "RLimits",
        "VERIFY_CLUSTER": "tcp://s:8786", "VERIFY_CONTEST_PATH": os.pathsep.join(["/a", "", "/b"]),
        "VERIFY_DEBUG": "1", "VERIFY_CACHE_MAX_MB": " 12 ", "PATH": "/opt/bin"})
    assert settings.temp_root == Path("/runs")
    assert (settings.sandbox, settings.accounting) == ("bwrap", "rlimits")
    assert settings.cluster == "tcp://s:8786" and settings.contest_path == (Path("/a"), Path("/b"))
    assert settings.debug and settings.cache_max_mb == "12" and settings.search_path == "/opt/bin"


def test_a_contest_setting_is_its_variable_as_given():
    settings = Settings.from_environment({"VERIFY_DESERT_KERNEL": "0", "VERIFY_MY_CONTEST_LEVEL": " High "})
    assert settings.contest_setting("desert", "kernel") == "0"
    assert settings.contest_setting("my-contest", "level") == " High "
    assert settings.contest_setting("desert", "other") == "" and settings.contest_setting("maze", "kernel") == ""
    assert Settings(cache=Path("/c")).contest_setting("desert", "kernel") == ""


@pytest.mark.parametrize("env, colour", [
    ({}, None), ({"NO_COLOR": "1"}, False), ({"NO_COLOR": ""}, None), ({"FORCE_COLOR": "1"}, True),
    ({"FORCE_COLOR": "0"}, False), ({"FORCE_COLOR": "false"}, False), ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
    ({"TERM": "dumb"}, False), ({"TERM": "dumb", "FORCE_COLOR": "1"}, True),
])
def test_colour_is_decided_by_no_color_force_color_and_term(env, colour):
    assert Settings.from_environment(env).colour is colour


def test_options_given_stand_over_the_environment_and_none_is_not_given():
    env = {"VERIFY_SANDBOX": "none", "VERIFY_ACCOUNTING": "cgroup", "VERIFY_CONTEST_PATH": "/env"}
    settings = Settings.from_environment(env, sandbox="bwrap", accounting=None, contest_path=("/option",))
    assert (settings.sandbox, settings.accounting) == ("bwrap", "cgroup")
    assert settings.contest_path == (Path("/option"), Path("/env"))          # the option's folders first
    with pytest.raises(TypeError, match="no field"):
        settings.with_options(sandboxes="bwrap")


def test_settings_are_frozen_and_do_not_follow_the_environment_later(monkeypatch):
    monkeypatch.setenv("VERIFY_SANDBOX", "none")
    settings = Settings.from_environment(os.environ)
    monkeypatch.setenv("VERIFY_SANDBOX", "bwrap")
    assert settings.sandbox == "none" and settings.environment["VERIFY_SANDBOX"] == "none"
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.sandbox = "bwrap"  # type: ignore[misc]
