"""Faults and concurrency on the result cache and the results folders: whatever point a
write is killed at, whatever a torn or swapped file holds, whichever runs share a cache,
the next run is right, and no half-written or misplaced result is ever served.

Kills are deterministic: the verify process runs with ``verify.files.os`` replaced by a
proxy that sends itself SIGKILL at a chosen call of the atomic write (halfway through
``os.write``, before ``os.fsync``, before or after ``os.replace``). Interleavings are
forced the same way: a write waits, before its rename, for the test to let it go.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verify.results import ResultsFormatError, read_stored_check
from verify.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SANDBOX = "bwrap" if shutil.which("bwrap") else "none"

# runs verify with files.os replaced: argv = POINT AT [PAUSE_FOLDER] -- VERIFY ARGS...
HOOKED = r'''
import os, signal, sys, time
from pathlib import Path
import verify.files as files

point, at = sys.argv[1], int(sys.argv[2])
pause = Path(sys.argv[3]) if sys.argv[3] != "-" else None
seen = {"count": 0}


def reached(name):
    if name != point:
        return
    seen["count"] += 1
    if seen["count"] != at:
        return
    if pause is None:
        os.kill(os.getpid(), signal.SIGKILL)
    (pause / "paused").write_text("")
    for _ in range(6000):                      # until the test lets it go (at most 5 minutes)
        if (pause / "go").exists():
            return
        time.sleep(0.05)


class Hooked:
    def __getattr__(self, name):
        return getattr(os, name)

    def write(self, fd, data):
        if point == "write" and seen["count"] + 1 == at and pause is None:
            os.write(fd, bytes(data[: len(data) // 2]))
        reached("write")
        return os.write(fd, data)

    def fsync(self, fd):
        reached("fsync")
        return os.fsync(fd)

    def replace(self, source, target):
        reached("replace")
        done = os.replace(source, target)
        reached("replaced")
        return done


files.os = Hooked()
sys.argv = ["verify", *sys.argv[4:]]
from verify.cli import run
run()
'''


def environment(cache: Path) -> dict[str, str]:
    return {**os.environ, "VERIFY_CACHE": str(cache), "PYTHONPATH": str(ROOT)}


def verify(contest: Path, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args], cwd=contest,
                          env=environment(cache), capture_output=True, text=True, timeout=300)


def hooked(contest: Path, cache: Path, point: str, at: int, *args: str, pause: Path | None = None,
           wait: bool = True) -> subprocess.CompletedProcess[str] | subprocess.Popen[str]:
    command = [sys.executable, "-c", HOOKED, point, str(at), str(pause) if pause else "-", "--", *args]
    if not wait:
        return subprocess.Popen(command, cwd=contest, env=environment(cache), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, cwd=contest, env=environment(cache), capture_output=True, text=True,
                          timeout=300)


RANK = ("rank", "arrows", "--submissions", "submissions", "--testcases", "cases", "--sandbox", SANDBOX)
CHECK = ("check", "submissions/arrows/good", "submissions/arrows/bad", "--testcases", "cases",
         "--sandbox", SANDBOX, "--format", "json")


@pytest.fixture(scope="module")
def contest(tmp_path_factory) -> Path:
    """Two arrows entries on two cases: one solves them, one prints nonsense."""
    root = tmp_path_factory.mktemp("faults") / "contest"
    (root / "cases").mkdir(parents=True)
    for name in ("g03-3x3.txt", "g04-4x4.txt"):
        shutil.copy(ROOT / "testcases" / "arrows" / name, root / "cases")
    for name, source in (("good", (ROOT / "submissions/arrows/python-golf/golf.py").read_text()),
                         ("bad", "print('nonsense')\n")):
        entry = root / "submissions" / "arrows" / name
        entry.mkdir(parents=True)
        (entry / "main.py").write_text(source)
        (entry / "entry.toml").write_text(f'name = "{name}"\ncontest = "arrows"\nlanguage = "python"\n'
                                          'source = "main.py"\n[arrows]\narrows = "english"\n')
    return root


@pytest.fixture(scope="module")
def expected(contest, tmp_path_factory) -> str:
    """The leaderboard of a run that nothing disturbed."""
    done = verify(contest, tmp_path_factory.mktemp("cache"), *RANK)
    assert done.returncode == 0 and "1       arrows/good" in done.stdout and "-       arrows/bad" in done.stdout, done
    return done.stdout


def whole(folder: Path) -> list[str]:
    """The names of the results in ``folder``; fails on any file a reader would not take whole."""
    names = []
    for path in sorted(folder.glob("*.json")):
        try:
            read_stored_check(path.read_bytes(), path.stem)
        except ResultsFormatError as error:
            pytest.fail(f"{path.name} would be served torn or misplaced: {error}")
        names.append(path.name)
    return names


@pytest.mark.parametrize("point, at", [("write", 1), ("fsync", 1), ("replace", 1), ("replaced", 1),
                                       ("write", 2), ("replace", 2)])
def test_a_rank_killed_while_it_stores_a_result_leaves_a_cache_the_next_rank_reads_right(
        contest, expected, tmp_path, point, at):
    cache = tmp_path / "cache"
    killed = hooked(contest, cache, point, at, *RANK)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    whole(cache / "results")
    again = verify(contest, cache, *RANK)
    assert again.returncode == 0 and again.stdout == expected, again.stderr
    assert len(whole(cache / "results")) == 2


@pytest.mark.parametrize("point, at", [("write", 2), ("replace", 2), ("replace", 4)])
def test_a_check_killed_while_it_writes_its_results_folder_leaves_only_whole_results(
        contest, expected, tmp_path, point, at):
    """check stores each entry in the cache, then in --results-dir: the 2nd and 4th writes are the folder's."""
    cache, shard = tmp_path / "cache", tmp_path / "shard"
    killed = hooked(contest, cache, point, at, *CHECK, "--results-dir", str(shard))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(whole(shard)) == (at - 2) // 2          # the results written whole before the kill
    partial = verify(contest, tmp_path / "other-cache", *RANK, "--results", str(shard))
    assert partial.returncode in (0, 1) and "no result in" in partial.stdout   # never a torn result
    again = verify(contest, cache, *CHECK, "--results-dir", str(shard))
    assert again.returncode == 1, again.stderr
    ranked = verify(contest, tmp_path / "other-cache", *RANK, "--results", str(shard))
    assert ranked.stdout == expected, ranked.stderr


def test_a_merge_killed_half_way_leaves_whole_results_and_a_second_merge_completes_it(contest, tmp_path):
    cache, shard, merged = tmp_path / "cache", tmp_path / "shard", tmp_path / "merged"
    assert verify(contest, cache, *CHECK, "--results-dir", str(shard)).returncode == 1
    killed = hooked(contest, cache, "write", 2, "results", "merge", str(shard), "--into", str(merged))
    assert killed.returncode == -signal.SIGKILL
    assert len(whole(merged)) == 1
    again = verify(contest, cache, "results", "merge", str(shard), "--into", str(merged))
    assert again.returncode == 0 and whole(merged) == whole(shard)


def test_torn_and_swapped_result_files_are_never_served(contest, expected, tmp_path):
    cache = tmp_path / "cache"
    assert verify(contest, cache, *RANK).stdout == expected
    results = sorted((cache / "results").glob("*.json"))
    passing = next(path for path in results if b'"passed": true' in path.read_bytes())
    failing = next(path for path in results if path != passing)
    # the passing check under the failing entry's key (a file renamed or copied): refused
    failing.write_bytes(passing.read_bytes().replace(b"arrows/good", b"arrows/bad"))
    assert verify(contest, cache, *RANK).stdout == expected
    # a file cut short (power lost before the data reached the disk) or edited: a miss
    for length in (0, 1, len(passing.read_bytes()) // 2, len(passing.read_bytes()) - 1):
        data = passing.read_bytes()
        passing.write_bytes(data[:length])
        assert verify(contest, cache, *RANK).stdout == expected
    failing.write_bytes(failing.read_bytes().replace(b'"passed": false', b'"passed": true')
                        .replace(b'"status": "', b'"status": "accepted", "x": "'))
    assert verify(contest, cache, *RANK).stdout == expected
    assert len(whole(cache / "results")) == 2


def test_two_checks_at_once_on_one_cache_are_both_right(contest, tmp_path):
    cache = tmp_path / "cache"
    alone = verify(contest, tmp_path / "alone", *CHECK)
    both = [subprocess.Popen([sys.executable, "-c", "from verify.cli import run; run()", *CHECK], cwd=contest,
                             env=environment(cache), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [process.communicate(timeout=300) for process in both]
    assert [process.returncode for process in both] == [1, 1]
    verdicts = [verdicts_of(stdout) for stdout, _ in outputs]
    assert verdicts == [verdicts_of(alone.stdout)] * 2
    assert len(whole(cache / "results")) == 2


def verdicts_of(report: str) -> list[tuple[str, str, str]]:
    import json
    return [(entry["entry"], case["case"], case["verdict"]["status"])
            for entry in json.loads(report)["entries"] for case in entry["cases"]]


def test_a_rank_between_a_checks_write_and_its_rename_and_the_check_are_both_right(contest, expected, tmp_path):
    cache, pause = tmp_path / "cache", tmp_path / "pause"
    pause.mkdir()
    check = hooked(contest, cache, "replace", 1, *CHECK, pause=pause, wait=False)
    try:
        for _ in range(6000):                            # until the check pauses (at most 5 minutes)
            if (pause / "paused").exists() or check.poll() is not None:
                break
            time.sleep(0.05)
        assert (pause / "paused").exists(), check.communicate()
        ranked = verify(contest, cache, *RANK)          # the check holds its first result, not yet renamed
        assert ranked.returncode == 0 and ranked.stdout == expected, ranked.stderr
    finally:
        (pause / "go").write_text("")
        stdout, stderr = check.communicate(timeout=300)
    assert check.returncode == 1 and verdicts_of(stdout) == verdicts_of(verify(contest, tmp_path / "a", *CHECK).stdout)
    assert len(whole(cache / "results")) == 2
    assert verify(contest, cache, *RANK).stdout == expected


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs (root only), unmounted after the test."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    folder = tmp_path / "small"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(folder)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Write to ``folder``'s filesystem until it is full; the file that fills it."""
    filler = folder / "filler"
    with open(filler, "wb") as file:
        try:
            while True:
                file.write(b"\0" * (1 << 16))
                file.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_under_the_cache_is_one_line_exit_2_and_nothing_corrupt(contest, expected, small_disk):
    cache = small_disk
    warm = verify(contest, cache, *CHECK)                # the sandbox's helpers built, both results stored
    assert warm.returncode == 1, warm.stderr
    for path in (cache / "results").glob("*.json"):
        path.unlink()
    filler = fill(cache)
    full = verify(contest, cache, *CHECK)
    assert full.returncode == 2, full.stdout + full.stderr
    assert full.stderr.count("\n") == 1 and "No space left on device" in full.stderr, full.stderr
    assert "$VERIFY_CACHE" in full.stderr
    assert list((cache / "results").iterdir()) == []     # no half-written file, no leftover
    filler.unlink()
    assert verify(contest, cache, *RANK).stdout == expected
    assert len(whole(cache / "results")) == 2


@pytest.mark.parametrize("command", ["check", "rank"])
def test_a_check_whose_files_change_while_it_runs_is_not_kept(contest, tmp_path, monkeypatch, command):
    """The key is of the files before the runs and after them: when they differ, no result is true of either."""
    import verify.commands.check as check_command
    import verify.commands.rank as rank_command
    from verify.commands.cache import check_key
    from verify.commands.jobs import load_checks
    from verify.grading import LocalRunner
    from verify.runner import Limits

    copy = tmp_path / "contest"
    shutil.copytree(contest, copy)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFY_SANDBOX", SANDBOX)
    good = copy / "submissions" / "arrows" / "good" / "main.py"
    module = check_command if command == "check" else rank_command
    real = module.run_with_progress

    def runs_then_edits(*args, **kwargs):
        done = real(*args, **kwargs)
        good.write_text("print('broken since')\n")      # a checkout, an editor, another job
        return done

    monkeypatch.setattr(module, "run_with_progress", runs_then_edits)
    runner, cases = LocalRunner(), copy / "cases"
    entries = [copy / "submissions" / "arrows" / "good", copy / "submissions" / "arrows" / "bad"]
    if command == "check":
        check_command.check(runner, entries, check_command.CheckOptions(jobs=1, fmt="json", testcases=cases),
                            settings=Settings.from_environment(os.environ))
    else:
        rank_command.rank(runner, "arrows", rank_command.RankInputs(submissions=copy / "submissions", testcases=cases,
                                                                    jobs=1, fresh=False, limits=Limits()),
                          settings=Settings.from_environment(os.environ), fmt="json")
    stored = {path.stem for path in (tmp_path / "cache" / "results").glob("*.json")}
    keys = {check.label: check_key(check, Limits(), runner.isolation, cases) for check in load_checks(entries, cases)}
    assert keys["arrows/bad"] in stored and keys["arrows/good"] not in stored and len(stored) == 1
