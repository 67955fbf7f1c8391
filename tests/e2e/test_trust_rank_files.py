"""``verify rank --output FILE`` and ``--check FILE`` take the format from FILE's suffix, and
the advice for a stale file is a command that writes it again exactly.

Before: ``--check LEADERBOARD.md`` compared with the table unless ``--format markdown`` was
given, and the advice ("regenerate it with --output LEADERBOARD.md") dropped ``--format``,
so following it wrote the wrong file.
"""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402
from echo_contest import write_cases, write_entry  # noqa: E402

from verify.cli import main  # noqa: E402
from verify.errors import VerifyError  # noqa: E402

CAT = "import sys\nsys.stdout.write(sys.stdin.read())\n"


@pytest.fixture
def contest(tmp_path, monkeypatch):
    echo_contest.install(monkeypatch)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "contest"
    write_cases(root / "testcases" / "echo", {"one": (b"1\n", b"1\n")})
    write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    write_entry(root / "submissions" / "echo" / "copy", "copy.py", CAT + "# a longer copy\n")
    monkeypatch.chdir(root)
    return root


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def printed(*args: str) -> str:
    result = run("rank", "echo", *args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name, fmt", [("LEADERBOARD.md", "markdown"), ("board.json", "json"),
                                       ("board.txt", "table"), ("BOARD.MD", "markdown")])
def test_output_and_check_take_the_format_from_the_suffix(contest, name, fmt):
    assert run("rank", "echo", "--output", name).exit_code == 0
    assert (contest / name).read_text() == printed("--format", fmt)
    checked = run("rank", "echo", "--check", name)
    assert checked.exit_code == 0 and f"{name} is up to date" in checked.stdout, checked.output
    if fmt == "json":
        assert json.loads((contest / name).read_text())


def test_an_explicit_format_wins_over_the_suffix(contest):
    assert run("rank", "echo", "--format", "table", "--output", "LEADERBOARD.md").exit_code == 0
    assert (contest / "LEADERBOARD.md").read_text() == printed("--format", "table")


def test_an_xml_file_is_one_line_before_anything_runs(contest):
    with pytest.raises(VerifyError, match=r"'board.xml': verify rank writes no XML"):
        run("rank", "echo", "--output", "board.xml")
    assert not (contest / "board.xml").exists()


@pytest.mark.parametrize("options", [[], ["--by", "chars"], ["--format", "json"], ["--per-language"],
                                     ["--time", "5", "--by=chars"]])
def test_the_advice_for_a_stale_file_rewrites_it_exactly(contest, options):
    name = "LEADERBOARD.md"
    (contest / name).write_text("an old leaderboard\n")
    stale = run("rank", "echo", *options, "--check", name)
    assert stale.exit_code == 1
    advice = stale.stderr.strip().splitlines()[-1]
    prefix = f"verify: {name} is stale; regenerate it with: "
    assert advice.startswith(prefix), stale.stderr
    words = shlex.split(advice.removeprefix(prefix))
    assert words[:2] == ["verify", "rank"] and "--check" not in words
    assert run(*words[1:]).exit_code == 0
    again = run("rank", "echo", *options, "--check", name)
    assert again.exit_code == 0 and f"{name} is up to date" in again.stdout, again.output
    assert (contest / name).read_text() == printed(*options, *([] if "--format" in options else
                                                              ["--format", "markdown"]))
