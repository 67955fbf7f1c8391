"""A contest from outside verify (tests/fixtures/echo-contest, the example of docs/contests.md):
installed with pip (entry point), loaded from a folder (--contest-path, $VERIFY_CONTEST_PATH),
checked and ranked by the real ``verify`` command; a broken one is one line and exit code 2.

Every run is a fresh process (``verify.cli.run``, the console entry point), so discovery
starts from nothing each time, as it does for a user.
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
from contest_install import UNTRACKED, install_contest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "echo-contest"
PACKAGE = FIXTURE / "verify_echo"
ENTRIES = ("submissions/echo/cat-python", "submissions/echo/wrong")
FLAWED = "submissions/echo/short-read"        # passes every case; cuts an input past 32 bytes short
CASES = ["empty", "hello", "lines", "no-newline"]


def verify(*args: str, cache: Path, pythonpath: tuple[Path, ...] = (), contest_path: str | None = None,
           cwd: Path = FIXTURE) -> subprocess.CompletedProcess[str]:
    """``verify ARGS`` in a fresh process, run from ``cwd``; verify is imported from this checkout."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VERIFY_CONTEST_PATH")}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), str(REPO)])
    env["VERIFY_CACHE"] = str(cache)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if contest_path is not None:
        env["VERIFY_CONTEST_PATH"] = contest_path
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args], cwd=cwd, env=env,
                          check=False, capture_output=True, text=True, timeout=300)


def by_case(report: dict, entry: str) -> dict[str, dict]:
    [found] = [e for e in report["entries"] if e["entry"] == entry]
    return {case["case"]: case["verdict"] for case in found["cases"]}


def assert_good_and_bad(result: subprocess.CompletedProcess[str]) -> None:
    """``verify check`` of both sample entries: the good one passes, the bad one is told the byte."""
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["passed"] is False
    good, bad = by_case(report, "echo/cat-python"), by_case(report, "echo/wrong")
    assert list(good) == [*CASES, "demo"]
    assert {verdict["status"] for verdict in good.values()} == {"accepted"}
    assert good["demo"]["stats"] == {"bytes": len((FIXTURE / ENTRIES[0] / "demo.txt").read_bytes())}
    assert bad["hello"]["status"] == "accepted"
    assert bad["lines"]["status"] == "wrong"
    assert bad["lines"]["message"] == "output ends at byte 4, expected 10 bytes"
    assert bad["no-newline"]["status"] == "wrong"
    assert bad["no-newline"]["message"] == "output differs at byte 21: expected the end of the output"


def assert_ranked(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["contest"] == "echo"
    assert [(s["rank"], s["entry"], s["bytes"], s["score"]) for s in report["standings"]] == [
        (1, "echo/cat-python", 38, 38), (2, "echo/short-read", 40, 40), (None, "echo/wrong", 15, 15)]
    assert report["standings"][2]["why_not"].startswith("lines: wrong: output ends at byte 4")


def one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    """The run failed as a bad input does: exit code 2, one line on stderr, nothing on stdout."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("verify: error: "), result.stderr
    for text in expected:
        assert text in result.stderr
    return result.stderr


# -- installed with pip: found through the entry point --------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The fixture installed with ``pip install --target`` (once for the module): a folder for PYTHONPATH."""
    target = install_contest(FIXTURE, tmp_path_factory.mktemp("installed"))
    [dist_info] = target.glob("verify_echo_contest-*.dist-info")
    assert "echo = verify_echo:CONTEST" in (dist_info / "entry_points.txt").read_text()
    return target


def test_an_installed_contest_checks_entries(site, tmp_path):
    result = verify("check", *ENTRIES, "--format", "json", cache=tmp_path, pythonpath=(site,))
    assert_good_and_bad(result)


def test_an_installed_contest_passes_a_good_entry_with_exit_0(site, tmp_path):
    result = verify("check", ENTRIES[0], cache=tmp_path, pythonpath=(site,))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1/1 entries passed; 5/5 cases accepted" in result.stdout


def test_an_installed_contest_ranks_its_entries_by_bytes(site, tmp_path):
    result = verify("rank", "echo", "--submissions", "submissions", "--testcases", "testcases/echo",
                    "--format", "json", cache=tmp_path, pythonpath=(site,))
    assert_ranked(result)


def test_an_installed_contest_adds_its_own_command(site, tmp_path):
    result = verify("judge", "echo", "testcases/echo/lines.out", "testcases/echo/hello.in",
                    cache=tmp_path, pythonpath=(site,))
    assert result.returncode == 1, result.stderr
    assert "reason: output differs at byte 0" in result.stdout
    listed = verify("judge", "--help", cache=tmp_path, pythonpath=(site,))
    assert listed.returncode == 0 and "echo " in listed.stdout


def test_without_the_package_the_contest_is_unknown(tmp_path):
    result = verify("rank", "echo", cache=tmp_path)
    one_line_error(result, "unknown contest 'echo'")


# -- from a folder: --contest-path and $VERIFY_CONTEST_PATH ----------------------------------------

@pytest.fixture
def contests(tmp_path) -> Path:
    """A folder of contest packages holding the echo package under the contest's name (a folder
    contest is named after its folder), copied: importing it writes nothing into the fixture."""
    folder = tmp_path / "contests"
    shutil.copytree(PACKAGE, folder / "echo", ignore=UNTRACKED)
    return folder


def test_contest_path_to_a_folder_of_contests(contests, tmp_path):
    result = verify("--contest-path", str(contests), "check", *ENTRIES, "--format", "json", cache=tmp_path)
    assert_good_and_bad(result)


def test_contest_path_to_the_contest_package_itself(contests, tmp_path):
    result = verify("--contest-path", str(contests / "echo"), "rank", "echo", "--submissions", "submissions",
                    "--testcases", "testcases/echo", "--format", "json", cache=tmp_path)
    assert_ranked(result)


def test_a_folder_contest_has_its_own_command_too(contests, tmp_path):
    result = verify("--contest-path", str(contests), "judge", "echo", "testcases/echo/lines.out",
                    "testcases/echo/lines.in", cache=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "verdict: accepted" in result.stdout


def test_contest_path_is_repeatable(contests, tmp_path):
    (tmp_path / "empty").mkdir()
    result = verify("--contest-path", str(tmp_path / "empty"), "--contest-path", str(contests),
                    "check", ENTRIES[0], cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_environment_variable_names_contest_folders(contests, tmp_path):
    (tmp_path / "empty").mkdir()
    path = os.pathsep.join([str(tmp_path / "empty"), str(contests)])
    result = verify("check", *ENTRIES, "--format", "json", cache=tmp_path, contest_path=path)
    assert_good_and_bad(result)
    ranked = verify("rank", "echo", "--format", "json", cache=tmp_path, contest_path=path)
    assert_ranked(ranked)


def test_contest_path_to_the_project_folder(tmp_path):
    """The package folder is verify_echo; its contest is called echo: contests are named by themselves."""
    result = verify("--contest-path", str(FIXTURE), "check", ENTRIES[0], cache=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


# -- fuzz: the contest's own generated inputs ------------------------------------------------------

def test_fuzz_finds_the_input_a_flawed_entry_cuts_short_and_shrinks_it(contests, tmp_path):
    """short-read passes every case (none is longer than 32 bytes); the fuzzer finds one that is,
    and shrinks it to the smallest: 33 plain bytes, saved and replayed."""
    saved = tmp_path / "saved"
    found = verify("--contest-path", str(contests), "fuzz", FLAWED, "--save", str(saved), cache=tmp_path)
    assert found.returncode == 1, found.stdout + found.stderr
    lines = found.stdout.splitlines()
    assert lines[0].startswith("fuzz echo/short-read: ASCII inputs up to 100 bytes")
    assert " failed: wrong: ends early" in lines[1]
    assert lines[2].endswith("to (bytes 33, lines 0):") and lines[3] == repr("a" * 33)
    assert lines[4] == "verdict: wrong: output ends at byte 32, expected 33 bytes"
    assert (saved / "fuzz-ends-early.txt").read_text() == "a" * 33
    # an echo case is an input and its output: the saved input alone is no case to --case
    assert "--replay" in found.stdout and "--case fuzz-ends-early" not in found.stdout
    replayed = verify("--contest-path", str(contests), "fuzz", FLAWED, "--replay", str(saved / "fuzz-ends-early.txt"),
                      cache=tmp_path)
    assert replayed.returncode == 1, replayed.stderr
    assert replayed.stdout.splitlines()[1:] == ["verdict: wrong: output ends at byte 32, expected 33 bytes",
                                                "failure class: wrong: ends early"]


def test_fuzz_finds_nothing_wrong_with_a_correct_entry(contests, tmp_path):
    done = verify("--contest-path", str(contests), "fuzz", ENTRIES[0], "--runs", "30", "-j", "2", cache=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[1].startswith("nothing failed in 30 inputs (seed 0, ")


def test_check_with_fuzz_judges_the_generated_cases_too(contests, tmp_path):
    done = verify("--contest-path", str(contests), "check", FLAWED, "--fuzz", "6", "--format", "json", cache=tmp_path)
    assert done.returncode == 1, done.stderr
    verdicts = by_case(json.loads(done.stdout), "echo/short-read")
    assert list(verdicts) == [*CASES, *(f"fuzz-0-{index}" for index in range(1, 7))]
    assert {verdicts[case]["status"] for case in CASES} == {"accepted"}
    failed = [verdict["message"] for name, verdict in verdicts.items() if verdict["status"] != "accepted"]
    assert failed and all(message.startswith("output ends at byte 32, expected ") for message in failed)


def test_a_saved_input_that_is_not_ascii_is_one_line(contests, tmp_path):
    (tmp_path / "bad.txt").write_bytes("café".encode())
    one_line_error(verify("--contest-path", str(contests), "fuzz", FLAWED, "--replay", str(tmp_path / "bad.txt"),
                          cache=tmp_path), "bad.txt: an echo fuzz input is ASCII")


# -- broken contests: one line, exit code 2 ---------------------------------------------------------

LOOKALIKE = '''\
class Lookalike:                  # has the attributes, is no verify Contest
    name = "lookalike"
    title = "Not a contest"
    scoring = "bytes"


CONTEST = Lookalike()
'''


BROKEN = {"lookalike": LOOKALIKE, "raising": 'raise RuntimeError("the rules are not ready")\n',
          "nothing": '"""No CONTEST here."""\n'}


def broken_contest(root: Path, name: str) -> Path:
    """A folder of contests: the echo contest, and one broken one called ``name``."""
    shutil.copytree(PACKAGE, root / "echo", ignore=UNTRACKED)
    if name == "twin":          # the echo contest a second time, in another folder
        shutil.copytree(PACKAGE, root / "twin", ignore=UNTRACKED)
    else:
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(BROKEN[name])
    return root


@pytest.mark.parametrize(("name", "expected"), [
    ("lookalike", "does not provide a verify Contest (its CONTEST)"),
    ("nothing", "does not provide a verify Contest (its CONTEST)"),
    ("raising", "failed to load: RuntimeError: the rules are not ready"),
    ("twin", "two contests are called 'echo'"),
])
def test_a_broken_contest_is_one_line_and_exit_2(tmp_path, name, expected):
    """Contest folders are named explicitly: any of them broken stops the command, naming the folder."""
    root = broken_contest(tmp_path / "contests", name)
    one_line_error(verify("--contest-path", str(root), "rank", "echo", cache=tmp_path), name, expected)
    one_line_error(verify("rank", "echo", cache=tmp_path, contest_path=str(root)), name, expected)
    if name != "twin":
        one_line_error(verify("--contest-path", str(root / name), "rank", "echo", cache=tmp_path), name, expected)


def test_a_folder_contest_cannot_take_a_built_in_name(tmp_path):
    desert = tmp_path / "contests" / "fake_desert"
    shutil.copytree(PACKAGE, desert, ignore=UNTRACKED)
    init = desert / "__init__.py"
    init.write_text(init.read_text().replace('name = "echo"', 'name = "desert"'))
    one_line_error(verify("--contest-path", str(desert), "rank", "desert", cache=tmp_path),
                   "two contests are called 'desert': the built-in one and the folder")


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_contest_path_that_is_not_a_folder_is_one_line_and_exit_2(tmp_path, kind):
    path = tmp_path / "contests"
    if kind == "file":
        path.write_text("echo\n")
    expected = f"contest path {str(path)!r} is not a folder"
    one_line_error(verify("--contest-path", str(path), "rank", "echo", cache=tmp_path), expected)
    one_line_error(verify("rank", "echo", cache=tmp_path, contest_path=str(path)), expected)


@pytest.mark.parametrize("kind", ["not-a-folder", "raising"])
def test_check_of_an_entry_whose_contest_does_not_load_is_exit_2(tmp_path, kind):
    path = tmp_path / "contests"
    if kind == "raising":
        (path / "echo").mkdir(parents=True)
        (path / "echo" / "__init__.py").write_text('raise RuntimeError("the rules are not ready")\n')
    one_line_error(verify("--contest-path", str(path), "check", ENTRIES[0], cache=tmp_path))


# -- the other names: CHALLENGE, the group verify.challenges, `challenge =` ----------------------

def first_names(package: Path) -> None:
    """Make the echo package expose its contest as ``CHALLENGE`` (the name the registry reads too)."""
    init = package / "__init__.py"
    init.write_text(re.sub(r"\bCONTEST\b", "CHALLENGE", init.read_text()))


def test_a_folder_contest_exposing_challenge_checks_entries_saying_challenge(contests, tmp_path):
    first_names(contests / "echo")
    assert "CONTEST" not in (contests / "echo" / "__init__.py").read_text()
    assert all((FIXTURE / entry / "entry.toml").read_text().count('challenge = "echo"') == 1 for entry in ENTRIES)
    assert_good_and_bad(verify("--contest-path", str(contests), "check", *ENTRIES, "--format", "json",
                               cache=tmp_path))


def test_an_installed_contest_in_the_group_verify_challenges_is_found(tmp_path):
    project = tmp_path / "echo-contest"
    shutil.copytree(FIXTURE, project, ignore=UNTRACKED)
    first_names(project / "verify_echo")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('[project.entry-points."verify.contests"]\necho = "verify_echo:CONTEST"',
                                                       '[project.entry-points."verify.challenges"]\necho = "verify_echo:CHALLENGE"'))
    site = install_contest(project, tmp_path / "installed")
    [dist_info] = site.glob("verify_echo_contest-*.dist-info")
    assert "[verify.challenges]\necho = verify_echo:CHALLENGE" in (dist_info / "entry_points.txt").read_text()
    result = verify("rank", "echo", "--submissions", "submissions", "--testcases", "testcases/echo",
                    "--format", "json", cache=tmp_path, pythonpath=(site,), cwd=project)
    assert_ranked(result)


def test_a_contest_command_that_fails_to_load_is_one_line_naming_the_contest(contests, tmp_path):
    """The contest's own code is imported only when its command is used: an import error there
    is one line and exit 2, not an internal error."""
    cli = contests / "echo" / "cli.py"
    cli.write_text(cli.read_text() + "\nraise ImportError('a dependency is missing')\n")
    done = verify("--contest-path", str(contests), "judge", "echo", "--help", cache=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "contest echo: its command " in done.stderr and "failed to load: ImportError: a dependency" in done.stderr
