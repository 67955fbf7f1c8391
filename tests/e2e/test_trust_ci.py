"""The CI trust boundary: a pull request must not be judged by cases (or a contest) it edits,
and nothing an entry controls reaches GitHub as a workflow command, an output or raw text.

- A pull request that changes an entry and its contest's test cases (or the contest's own
  code in the repository) is refused by ``--changed-since`` and so by the action: one line,
  exit 2, a maintainer must look.
- The step summary never holds the raw JSON report: when there is no Markdown report it
  says in one escaped line why nothing was judged.
- Entry folder names with ``$(...)``, backticks, newlines, ``%0A`` and ``::`` workflow
  commands run through ci/action-check.sh: nothing runs, $GITHUB_OUTPUT keeps its three
  lines, the summary escapes them, and the log stops workflow commands around verify's output.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "examples" / "submissions-repo"
ECHO = ROOT / "tests" / "fixtures" / "echo-contest"
SCRIPT = ROOT / "ci" / "action-check.sh"
VERIFY = Path(sys.executable).parent / "verify"
SANDBOX = "bwrap" if shutil.which("bwrap") else "none"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Organiser", "GIT_AUTHOR_EMAIL": "organiser@example.com",
    "GIT_COMMITTER_NAME": "Organiser", "GIT_COMMITTER_EMAIL": "organiser@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}
HOSTILE_NAMES = ["$(touch PWNED)", "a`touch PWNED`b", "nl\n::warning::injected", "pct%0A::error::x",
                 "::add-mask::secret", "::set-output name=passed::99"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, check=True,
                          capture_output=True, text=True).stdout


def repository(tmp_path: Path, source: Path) -> Path:
    """``source`` as a contest repository: main holds it, the branch 'entry' is checked out."""
    path = tmp_path / "contest"
    shutil.copytree(source, path, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "the contest")
    git(path, "checkout", "-q", "-b", "entry")
    return path


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def action(repo: Path, event: str = "pull_request", env: dict[str, str] | None = None,
           **inputs: str) -> tuple[subprocess.CompletedProcess[str], list[str], str]:
    """ci/action-check.sh as GitHub runs it: (the run, the lines of $GITHUB_OUTPUT, the summary)."""
    runner = repo.parent / f"runner-{len(list(repo.parent.glob('runner-*')))}"
    runner.mkdir()
    summary, outputs = runner / "summary.md", runner / "output"
    summary.write_text("")
    outputs.write_text("")
    done = subprocess.run(["bash", str(SCRIPT)], cwd=repo, capture_output=True, text=True, timeout=300, env={
        **os.environ, **GIT_ENV, "PATH": f"{VERIFY.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "VERIFY_CACHE": str(repo.parent / "cache"), "GITHUB_EVENT_NAME": event,
        "GITHUB_BASE_REF": "main" if event == "pull_request" else "", "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs), "RUNNER_TEMP": str(runner), "INPUT_SANDBOX": SANDBOX,
        **{f"INPUT_{key.upper()}": value for key, value in inputs.items()}, **(env or {})})
    return done, outputs.read_text().splitlines(), summary.read_text()


def changed_since(repo: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(VERIFY), "check", "--changed-since", "main", "--sandbox", SANDBOX], cwd=repo,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "VERIFY_CACHE": str(repo.parent / "cache"), **(env or {})})


# ---------------------------------------------------------------- a pull request judged by what it edits

@pytest.fixture
def arrows(tmp_path: Path) -> Path:
    return repository(tmp_path, TEMPLATE)


def test_a_pull_request_that_edits_an_entry_and_its_cases_is_refused(arrows):
    golf = arrows / "submissions/arrows/python-golf/golf.py"
    golf.write_text("print('4\\n11SE 7SE 15SE 9S\\n6NE 12SE 14N 16\\n5N 1SE 13N 8N\\n3E 4NW 2W 10NW')\n")  # by heart
    for case in (arrows / "testcases/arrows").glob("*.txt"):
        if case.name != "g04-4x4.txt":
            case.unlink()                                  # one puzzle's answer: every other case removed
    commit(arrows, "an entry that passes the cases it leaves")
    done = changed_since(arrows)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "'arrows/python-golf'" in done.stderr
    assert "'testcases/arrows/'" in done.stderr and "a maintainer must review it" in done.stderr
    ran, outputs, summary = action(arrows)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert outputs == ["passed=0", "failed=0", "report="]
    assert "judged nothing" in summary and "a maintainer must review it" in summary and "{" not in summary


def test_a_pull_request_that_edits_only_an_entry_or_only_the_cases_is_judged(arrows):
    golf = arrows / "submissions/arrows/python-golf/golf.py"
    golf.write_text(golf.read_text() + "# a comment\n")
    commit(arrows, "python-golf: a comment")
    entry = changed_since(arrows)
    assert entry.returncode == 0 and "arrows/python-golf" in entry.stdout and "c-gaps" not in entry.stdout
    git(arrows, "checkout", "-q", "-b", "cases", "main")
    next(iter(sorted((arrows / "testcases/arrows").glob("*.txt")))).unlink()
    commit(arrows, "one case fewer")
    cases = changed_since(arrows)
    assert cases.returncode == 0 and "arrows/python-golf" in cases.stdout and "arrows/c-gaps" in cases.stdout


def test_a_pull_request_that_edits_an_entry_and_its_contest_code_in_the_repository_is_refused(tmp_path):
    repo = repository(tmp_path, ECHO)
    contests = {"VERIFY_CONTEST_PATH": str(repo / "verify_echo")}
    judge = repo / "verify_echo" / "__init__.py"
    judge.write_text(judge.read_text().replace("if chunk == want:", "if True:"))      # accepts anything
    (repo / "submissions/echo/wrong/entry.toml").write_text(
        (repo / "submissions/echo/wrong/entry.toml").read_text() + "\n# now it passes\n")
    commit(repo, "a judge that accepts the entry")
    done = changed_since(repo, contests)
    assert done.returncode == 2 and "'echo/wrong'" in done.stderr and "'verify_echo/'" in done.stderr, done.stderr
    git(repo, "checkout", "-q", "-b", "entry-only", "main")
    (repo / "submissions/echo/wrong/entry.toml").write_text(
        (repo / "submissions/echo/wrong/entry.toml").read_text() + "\n# still wrong\n")
    commit(repo, "the entry alone")
    alone = changed_since(repo, contests)
    assert alone.returncode == 1 and "echo/wrong" in alone.stdout, alone.stdout + alone.stderr


# ---------------------------------------------------------------- the step summary

def test_the_summary_never_holds_the_raw_report(arrows, tmp_path):
    """A verify that prints a JSON report but writes no Markdown one: the summary says so in one line."""
    fake = tmp_path / "fake-verify"
    fake.write_text('#!/bin/sh\necho \'{"entries": [{"entry": "x", "passed": true, "secret": "::add-mask::k"}]}\'\n'
                    'echo "verify: error: the markdown report could not be written" >&2\nexit 2\n')
    fake.chmod(0o755)
    done, outputs, summary = action(arrows, event="push", env={"VERIFY": str(fake)})
    assert done.returncode == 2
    assert "{" not in summary and "secret" not in summary, summary
    assert "**verify** judged nothing: verify\\: error\\: the markdown report could not be written" in summary
    assert outputs == ["passed=1", "failed=0", "report="]


def test_a_pull_request_changing_no_entry_says_so_in_the_summary(arrows):
    (arrows / "README.md").write_text("# Our contest\n")
    commit(arrows, "the readme")
    done, outputs, summary = action(arrows)
    assert done.returncode == 0 and outputs == ["passed=0", "failed=0", "report="]
    assert summary == "## verify\n\n**verify** judged nothing: no entry changed since main\n\n"


def test_a_bad_input_is_one_escaped_line_in_the_summary(arrows):
    done, outputs, summary = action(arrows, event="push", time="soon`id`")
    assert done.returncode == 2 and outputs == ["passed=0", "failed=0", "report="]
    assert "judged nothing: " in summary and "soon\\`id\\`" in summary and "{" not in summary


# ---------------------------------------------------------------- hostile names

def outside_stop_commands(log: str) -> list[str]:
    """The lines of the log GitHub reads workflow commands from: outside ::stop-commands::TOKEN ... ::TOKEN::."""
    lines, seen, token = [], [], None
    for line in log.splitlines():
        if token is None:
            match = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", line)
            if match:
                token = match.group(1)
                continue
            lines.append(line)
        elif line == f"::{token}::":
            token = None
        else:
            seen.append(line)
    assert token is None, "commands never resumed"
    return lines


def test_hostile_entry_names_run_nothing_and_reach_github_only_escaped(arrows):
    for name in HOSTILE_NAMES:
        shutil.copytree(arrows / "submissions/arrows/python-golf", arrows / "submissions/arrows" / name)
    # a source file named with them (it runs and passes), and a link named with them (refused, by name)
    named = arrows / "submissions/arrows/files"
    shutil.copytree(arrows / "submissions/arrows/python-golf", named)
    source = "::error::f\n$(touch PWNED)`touch PWNED`%0A.py"
    (named / "golf.py").rename(named / source)
    toml = (named / "entry.toml").read_text().replace('source = "golf.py"', f"source = {json.dumps(source)}")
    (named / "entry.toml").write_text(toml)
    linked = arrows / "submissions/arrows/link"
    shutil.copytree(arrows / "submissions/arrows/python-golf", linked)
    (linked / "%0A::error::l\n`touch PWNED`$(touch PWNED)").symlink_to("/etc/passwd")
    commit(arrows, "entries with hostile names")
    done, outputs, summary = action(arrows)
    assert done.returncode == 1, done.stdout + done.stderr
    assert outputs[:2] == [f"passed={len(HOSTILE_NAMES) + 1}", "failed=1"] and len(outputs) == 3
    assert "a symbolic link out of the entry folder" in summary
    assert re.fullmatch(r"report=/\S+/verify-junit\.xml", outputs[2])
    assert not list(arrows.parent.rglob("PWNED")) and not Path("PWNED").exists()
    for line in outside_stop_commands(done.stdout + done.stderr):
        assert not line.startswith("::"), line
    for line in summary.splitlines():
        assert not line.startswith("::"), line
        assert not re.search(r"(?<!\\)[`$]", line), line         # every backtick and dollar escaped
    assert "\\$(touch PWNED)" in summary and "nl<br>::warning::injected" in summary
