"""What CI on a submissions repository uses: --changed-since, --write, shards merged and ranked,
the leaderboard file and its staleness check, the shallow-clone notice."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402
from echo_contest import write_cases, write_entry  # noqa: E402

from verify.cli import main  # noqa: E402
from verify.report_escape import markdown as escaped_markdown  # noqa: E402
from verify.report_escape import one_line  # noqa: E402

CAT = "import sys\nsys.stdout.write(sys.stdin.read())\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A submissions repository: two echo entries and their cases, committed on main."""
    echo_contest.install(monkeypatch)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "contest"
    write_cases(root / "testcases" / "echo", {"one": (b"1\n", b"1\n"), "two": (b"2 2\n", b"2 2\n")})
    write_entry(root / "submissions" / "echo" / "cat", "cat.py", CAT)
    write_entry(root / "submissions" / "echo" / "copy", "copy.py", CAT + "# a longer copy\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "two entries")
    monkeypatch.chdir(root)
    return root


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def checked(result) -> list[str]:
    return [entry["entry"] for entry in json.loads(result.output)["entries"]]


def test_changed_since_checks_only_the_entries_a_branch_touched(repo):
    git(repo, "checkout", "-q", "-b", "change")
    (repo / "submissions" / "echo" / "copy" / "copy.py").write_text(CAT + "# changed\n")
    git(repo, "commit", "-q", "-am", "change copy")
    result = run("check", "--changed-since", "main", "--format", "json")
    assert result.exit_code == 0 and checked(result) == ["echo/copy"]
    git(repo, "checkout", "-q", "-b", "cases", "main")      # cases and entries together are refused: test_trust_ci
    (repo / "testcases" / "echo" / "three.in").write_bytes(b"3\n")       # uncommitted and untracked count too
    (repo / "testcases" / "echo" / "three.out").write_bytes(b"3\n")
    assert checked(run("check", "--changed-since", "main", "--format", "json")) == ["echo/cat", "echo/copy"]


def test_changed_since_with_nothing_changed_says_so(repo):
    result = run("check", "--changed-since", "main")
    assert result.exit_code == 0 and result.output == "no entry changed since main\n"


def test_changed_since_an_unknown_ref_or_a_shallow_clone_is_one_line(repo, tmp_path):
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "check", "--changed-since",
                           "nowhere"], cwd=repo, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr == "verify: error: --changed-since: unknown git ref 'nowhere'\n"
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True)
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "check", "--changed-since",
                           "HEAD~1"], cwd=shallow, capture_output=True, text=True)
    assert done.returncode == 2 and "the clone is shallow" in done.stderr and done.stderr.count("\n") == 1
    notice = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "rank", "echo",
                             "--results", str(tmp_path)], cwd=shallow, capture_output=True, text=True)
    assert "the clone is shallow: ties cannot go to the entry added first" in notice.stderr


def test_reports_written_to_files_beside_the_printed_one(repo, tmp_path):
    junit, markdown = tmp_path / "report.xml", tmp_path / "summary.md"
    result = run("check", "submissions/echo/cat", "--write", f"junit={junit}", "--write", f"markdown={markdown}")
    assert result.exit_code == 0
    assert ElementTree.parse(junit).getroot().find("testsuite").get("name") == "echo/cat"
    assert "| echo/cat" in markdown.read_text() and "entry" in result.output
    bad = run("check", "submissions/echo/cat", "--write", "pdf=x.pdf")
    assert bad.exit_code == 2 and "expected FORMAT=PATH" in bad.output


def test_shards_merge_and_rank_without_running_anything(repo, tmp_path, monkeypatch):
    run("check", "submissions/echo/cat", "--results-dir", str(tmp_path / "shard-1"))
    run("check", "submissions/echo/copy", "--results-dir", str(tmp_path / "shard-2"))
    merged = run("results", "merge", str(tmp_path / "shard-1"), str(tmp_path / "shard-2"),
                 "--into", str(tmp_path / "all"))
    assert merged.exit_code == 0 and merged.output == f"2 check results in {tmp_path / 'all'}\n"
    import verify.commands.rank

    def refuse(*args, **kwargs):
        raise AssertionError("rank --results must run nothing")

    monkeypatch.setattr(verify.commands.rank, "run_with_progress", refuse)
    ranked = run("rank", "echo", "--results", str(tmp_path / "all"), "--format", "json")
    standings = json.loads(ranked.output)["standings"]
    assert ranked.exit_code == 0 and [(s["rank"], s["entry"]) for s in standings] == [(1, "echo/cat"), (2, "echo/copy")]
    only_one = run("rank", "echo", "--results", str(tmp_path / "shard-1"), "--format", "json")
    copy = json.loads(only_one.output)["standings"][1]
    assert copy["rank"] is None and copy["why_not"].startswith("no result in")


def test_merging_something_that_is_not_a_result_is_one_line(repo, tmp_path):
    (tmp_path / "shard").mkdir()
    (tmp_path / "shard" / "x.json").write_text('{"entry": 3}')
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "results", "merge",
                           str(tmp_path / "shard"), "--into", str(tmp_path / "all")], capture_output=True, text=True)
    assert done.returncode == 2 and "x.json: not a check result" in done.stderr and done.stderr.count("\n") == 1


def test_the_leaderboard_file_is_written_then_checked(repo):
    written = run("rank", "echo", "--format", "markdown", "--output", "LEADERBOARD.md")
    assert written.exit_code == 0 and "# Python, 46 bytes" in (repo / "LEADERBOARD.md").read_text()
    fresh = run("rank", "echo", "--format", "markdown", "--check", "LEADERBOARD.md")
    assert fresh.exit_code == 0 and "LEADERBOARD.md is up to date" in fresh.output
    (repo / "submissions" / "echo" / "cat" / "cat.py").write_text(CAT + "# longer\n")
    stale = run("rank", "echo", "--format", "markdown", "--check", "LEADERBOARD.md")
    assert stale.exit_code == 1 and "-# Python, 46 bytes" in stale.output and "+# Python, 55 bytes" in stale.output


def test_rank_fails_when_nothing_is_ranked(repo):
    for name in ("cat", "copy"):
        (repo / "submissions" / "echo" / name / f"{name}.py").write_text("print('no')\n")
    result = run("rank", "echo")
    assert result.exit_code == 1 and "Leaderboard: echo" in result.output


def test_check_keeps_the_cache_under_its_bound(repo, tmp_path, monkeypatch):
    old = tmp_path / "cache" / "results" / "stale.json"
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_bytes(b"x" * (3 << 20))
    os.utime(old, (1_000_000_000, 1_000_000_000))      # unused for years
    monkeypatch.setenv("VERIFY_CACHE_MAX_MB", "2")
    assert run("check", "submissions/echo/cat").exit_code == 0
    assert not old.exists() and list((tmp_path / "cache" / "results").glob("*.json"))


def test_a_bad_cache_bound_is_one_line_before_anything_runs(repo):
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "check", "submissions/echo/cat"],
                          capture_output=True, text=True, env={**os.environ, "VERIFY_CACHE_MAX_MB": "lots"})
    assert done.returncode == 2 and "VERIFY_CACHE_MAX_MB" in done.stderr and done.stdout == ""


def test_failures_only_prints_the_failing_cases_and_the_summary(repo):
    (repo / "submissions" / "echo" / "copy" / "copy.py").write_text("print('no')\n")
    result = run("check", "submissions/echo/cat", "submissions/echo/copy", "-q")
    assert result.exit_code == 1
    assert "echo/copy" in result.output and "| echo/cat" not in result.output
    assert not any(line.startswith("echo/cat ") for line in result.output.splitlines())
    assert "1/2 entries passed" in result.output


def _verify(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """verify in a process of its own, the echo contest loaded from its fixture package."""
    fixture = Path(__file__).parents[1] / "fixtures" / "echo-contest"
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "--contest-path", str(fixture),
                           *args], cwd=repo, capture_output=True, text=True)


def test_an_output_that_cannot_be_written_is_one_line(repo, tmp_path):
    for args in (["check", "submissions/echo/cat", "--write", f"junit={tmp_path}/no/such/folder/report.xml"],
                 ["rank", "echo", "--output", f"{tmp_path}/no/such/folder/LEADERBOARD.md"]):
        done = _verify(repo, *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("verify: error: cannot write the ") and "No such file or directory" in done.stderr
    missing = tmp_path / "no" / "such"
    missing.parent.write_text("a file where a folder would be")
    for args in (["check", "submissions/echo/cat", "--results-dir", str(missing)],
                 ["results", "merge", str(tmp_path), "--into", str(missing)],
                 ["koth", "maze", str(Path(__file__).parents[2] / "submissions" / "maze" / "theseus"),
                  "--logs", str(missing)]):
        done = _verify(repo, *args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("verify: error: cannot make the ") and "Not a directory" in done.stderr


def test_hostile_entry_folder_names_are_found_by_changed_since_and_shown_escaped(repo):
    """An entry folder named with a newline, a tab, an escape sequence and Markdown: git's names are
    read NUL-separated, and every report shows the label escaped."""
    git(repo, "checkout", "-q", "-b", "hostile")
    name = "we\nird\t\x1b[31m|`*"
    write_entry(repo / "submissions" / "echo" / name, "cat.py", CAT)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a hostile folder name")
    table = run("check", "--changed-since", "main")
    assert table.exit_code == 0 and "\x1b" not in table.output and "\t" not in table.output
    assert one_line(f"echo/{name}") in table.output
    markdown = run("check", "--changed-since", "main", "--format", "markdown")
    assert "\x1b" not in markdown.output and escaped_markdown(f"echo/{name}") in markdown.output
    assert [e["entry"] for e in json.loads(run("check", "--changed-since", "main", "--format", "json").output)
            ["entries"]] == [f"echo/{name}"]
