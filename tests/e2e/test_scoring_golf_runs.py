"""Golf scoring over real checks of real entries."""
import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from verify import contests
from verify.cli import main
from verify.commands.rank import RankInputs
from verify.commands.rank import rank as rank_command
from verify.grading import LocalRunner
from verify.runner import Limits
from verify.settings import Settings

ECHO = Path(__file__).parents[1] / "fixtures" / "echo-contest"


@pytest.fixture
def echo_submissions(tmp_path, monkeypatch):
    """The echo contest with two passing Python entries, one run with -u."""
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    contests.add_contest_path(ECHO)
    root = tmp_path / "submissions" / "echo"
    for name, flags in (("plain", "[]"), ("unbuffered", '["-u"]')):
        folder = root / name
        shutil.copytree(ECHO / "submissions" / "echo" / "cat-python", folder)
        text = (folder / "entry.toml").read_text().replace('name = "cat-python"', f'name = "{name}"')
        (folder / "entry.toml").write_text(text.replace('source = "cat.py"', f'source = "cat.py"\nflags = {flags}'))
    yield tmp_path / "submissions"
    contests.reset()


@pytest.mark.parametrize("rule, unbuffered_header, boards", [
    ("penalty", "# Python -u, 38 + 1 = 39 bytes", ["### Python\n\n1. plain (echo/plain): 38 bytes\n"
                                                   "2. unbuffered (echo/unbuffered): 39 bytes"]),
    ("language", "# Python `-u`, 38 bytes", ["### Python\n\n1. plain (echo/plain): 38 bytes",
                                            "### Python -u\n\n1. unbuffered (echo/unbuffered): 38 bytes"]),
])
def test_the_contest_s_flag_rule_decides_penalty_header_and_boards(echo_submissions, monkeypatch, rule,
                                                                   unbuffered_header, boards):
    monkeypatch.setattr(type(contests.get("echo")), "flag_rule", rule)
    inputs = RankInputs(submissions=echo_submissions, testcases=ECHO / "testcases" / "echo", jobs=2, fresh=True,
                        limits=Limits(wall_time=20, cpu_time=20))
    report = rank_command(LocalRunner(), "echo", inputs, settings=Settings.from_environment(os.environ),
                          fmt="markdown", languages_too=True).report
    assert unbuffered_header in report
    assert all(board in report for board in boards), report


def test_rank_by_chars_per_language_on_the_command_line(echo_submissions):
    result = CliRunner().invoke(main, ["rank", "echo", "--submissions", str(echo_submissions), "--testcases",
                                       str(ECHO / "testcases" / "echo"), "--by", "chars", "--per-language",
                                       "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["by"] == "chars" and [s["entry"] for s in report["standings"]] == ["echo/plain", "echo/unbuffered"]
    assert [(board["language"], board["flags"]) for board in report["languages"]] == [("python", [])]
    refused = CliRunner().invoke(main, ["rank", "echo", "--by", "words"])
    assert refused.exit_code == 2 and "'words' is not one of 'bytes', 'chars'" in refused.output


def test_the_site_s_leaderboard_scores_under_the_contest_s_flag_rule(echo_submissions, monkeypatch, tmp_path):
    from verify.commands.site import write_rank_site
    monkeypatch.setattr(type(contests.get("echo")), "flag_rule", "language")
    write_rank_site(tmp_path / "site", LocalRunner(), "echo", submissions=echo_submissions,
                    testcases=ECHO / "testcases" / "echo", jobs=2, limits=Limits(wall_time=20, cpu_time=20))
    page = next((tmp_path / "site").rglob("*unbuffered*.html")).read_text()
    assert "38 (38 bytes + flags -u)" in page and "39 (38 bytes" not in page
