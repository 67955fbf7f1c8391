"""verify/settings.py: every variable verify reads, read once into a frozen Settings, the
command line's options over them; and the CLI passing them down."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from verify.cli.options import cluster_option, runner_option, settings_of
from verify.settings import DEFAULT_SEARCH_PATH, Settings


def test_an_empty_environment_gives_the_defaults():
    settings = Settings.from_environment({"HOME": "/home/someone"})
    assert settings.cache == Path("/home/someone/.cache/verify")
    assert (settings.temp_root, settings.sandbox, settings.accounting, settings.cluster) == (None, "", "", None)
    assert settings.helper and settings.seccomp and settings.forkserver
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


def test_the_cli_builds_them_once_and_its_options_refine_them(monkeypatch):
    seen = []

    @click.command()
    @runner_option
    @cluster_option
    def show(runner, cluster) -> None:
        settings = settings_of(click.get_current_context())
        seen.append(settings)
        click.echo(f"{settings.sandbox} {settings.accounting} {cluster} {runner.resolved.accounting_policy}")

    monkeypatch.setenv("VERIFY_CLUSTER", "tcp://env:1")
    monkeypatch.setenv("VERIFY_ACCOUNTING", "cgroup")
    given = Settings.from_environment({"VERIFY_CLUSTER": "tcp://given:2"})
    done = CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits"], obj=given)
    assert done.exit_code == 0, done.output
    assert done.output == "none rlimits tcp://given:2 rlimits\n"        # the settings given, not the environment
    assert seen[-1].cluster == "tcp://given:2"
    done = CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits", "--cluster", "tcp://option:3"])
    assert done.output == "none rlimits tcp://option:3 rlimits\n", done.output
    done = CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits"])
    assert done.output == "none rlimits tcp://env:1 rlimits\n", done.output   # none given: the environment's


def test_a_bad_sandbox_word_in_the_environment_is_one_line_exit_2(monkeypatch):
    @click.command()
    @runner_option
    def show(runner) -> None:
        click.echo(runner.isolation)

    monkeypatch.setenv("VERIFY_SANDBOX", "sometimes")
    from verify.runner import SandboxUnavailable
    done = CliRunner().invoke(show, [])
    assert isinstance(done.exception, SandboxUnavailable) and "VERIFY_SANDBOX='sometimes'" in str(done.exception)
    assert CliRunner().invoke(show, ["--sandbox", "none", "--accounting", "rlimits"]).exit_code == 0


def test_the_cache_the_cli_is_given_is_where_its_runs_build(tmp_path, monkeypatch):
    """Given settings (not the environment) say where verify-init, the seccomp filter and the
    self-test's build go."""
    import shutil

    from verify.cli import main
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("needs a C compiler")
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "from-the-environment"))
    given = Settings.from_environment({**os.environ, "VERIFY_CACHE": str(tmp_path / "given")})
    done = CliRunner().invoke(main, ["langs", "c"], obj=given)
    assert done.exit_code == 0, done.output
    assert (tmp_path / "given" / "c").is_dir() and (tmp_path / "given" / "init").is_dir()
    assert not (tmp_path / "from-the-environment").exists()
