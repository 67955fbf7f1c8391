"""A King-of-the-Hill contest from outside verify (tests/fixtures/duel-contest, the example of
docs/contests.md): ``verify koth duel`` plays it through the core's driver, from a folder given
with --contest-path, with no edit to verify; its reports, its site, a broken entry and a bad
option. Every run is a fresh ``verify`` process, as a user's."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "duel-contest"
ENTRIES = FIXTURE / "submissions" / "duel"


def verify(*args: str, cache: Path, cwd: Path = FIXTURE) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VERIFY_CONTEST_PATH")}
    env.update(PYTHONPATH=str(REPO), VERIFY_CACHE=str(cache), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()",
                           "--contest-path", str(FIXTURE / "verify_duel"), *args],
                          cwd=cwd, env=env, check=False, capture_output=True, text=True, timeout=300)


def test_koth_duel_plays_every_pair_and_ranks_them(tmp_path):
    done = verify("koth", "duel", "--format", "json", "--logs", str(tmp_path / "logs"), cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [p["name"] for p in report["players"]] == ["beat-last", "cycle", "rock"]
    duels = {(d["first"], d["second"]): d for d in report["duels"]}
    # rock always R; cycle R, P, S...; beat-last plays what beats the other's last move (R first)
    assert duels[("cycle", "rock")]["moves"] == ["RPSRP", "RRRRR"]
    assert duels[("cycle", "rock")]["points"] == [3.0, 2.0]
    assert duels[("beat-last", "rock")]["points"] == [4.5, 0.5]
    assert all(d["failures"] == [] for d in report["duels"])
    assert "[3/3] " in done.stderr and f"match logs: {tmp_path / 'logs'}" in done.stderr
    logged = json.loads((tmp_path / "logs" / "duels" / "cycle--rock-1.json").read_text())
    assert logged == duels[("cycle", "rock")]


def test_koth_duel_table_and_site(tmp_path):
    site = tmp_path / "site"
    done = verify("koth", "duel", "--rounds", "3", "--seeds", "1,2", "-q", "--html", str(site),
                  cache=tmp_path / "cache")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("Duel tournament: 3 rounds; seeds 1, 2; 6 duels\n")
    assert "Players (mean points per round)" in done.stdout and "player \\ opponent" in done.stdout
    index = (site / "index.html").read_text()
    assert "Rock-paper-scissors duel" in index and index.count("<li>") == 6
    # the duel's own board (its presenter's template): the players ranked, the pairings, every duel
    assert "<small>(King of the Hill: 3 rounds; seeds 1, 2; 6 duels)</small>" in index
    players = re.findall(r'<tr><td>(\d)</td><td class="entry-name">([\w-]+)</td><td>([\d.]+)</td>'
                         r'<td>(\d)</td><td>(\d)</td><td>(\d)</td><td>(\d)</td></tr>', index)
    assert players == [("1", "beat-last", "0.6667", "4", "2", "2", "0"), ("2", "cycle", "0.5000", "4", "0", "4", "0"),
                       ("3", "rock", "0.3333", "4", "0", "2", "2")]
    assert '<tr><th scope="row">rock</th><td>0.1667</td><td>0.5000</td><td>—</td></tr>' in index
    assert "<li>beat-last RPP – RRR rock (seed 2): 2.5 – 0.5</li>" in index
    assert list((tmp_path / "cache" / "duel-logs").iterdir())        # the logs in the cache


def test_a_player_that_crashes_loses_every_round(tmp_path):
    crasher = tmp_path / "crasher"
    crasher.mkdir()
    (crasher / "crash.py").write_text("raise SystemExit(3)\n")
    (crasher / "entry.toml").write_text('contest = "duel"\n[duel]\nlanguage = "python"\nsource = "crash.py"\n')
    done = verify("koth", "duel", str(ENTRIES / "rock"), str(crasher), "--rounds", "2", "--format", "json", "-q",
                  cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    (duel,) = json.loads(done.stdout)["duels"]
    assert duel["first"] == "crasher" and duel["points"] == [0.0, 2.0]
    assert duel["failures"][0].startswith("round 1: crasher: runtime error: exit code 3")


def test_bad_options_and_entries_are_one_line(tmp_path):
    for args, message in [(["--rounds", "0"], "--rounds: 0 is below 1"),
                          (["--seeds", "x"], "--seeds: expected a whole number, not 'x'"),
                          ([str(REPO / "submissions" / "maze" / "theseus")], "a maze entry, not a duel entry")]:
        done = verify("koth", "duel", *args, cache=tmp_path / "cache")
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_check_plays_an_entrys_first_rounds_against_rock(tmp_path):
    done = verify("check", *(str(ENTRIES / name) for name in ("beat-last", "cycle", "rock")), "--format", "json",
                  cache=tmp_path / "cache")
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = {entry["entry"]: entry["cases"][0]["verdict"] for entry in json.loads(done.stdout)["entries"]}
    assert verdicts["duel/beat-last"]["message"] == "played RPP against RRR: 2.5 points"
    assert verdicts["duel/rock"]["message"] == "played RRR against RRR: 1.5 points"
    for name, source in [("word", 'print("rock")\n'), ("crasher", "raise SystemExit(3)\n")]:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "main.py").write_text(source)
        (folder / "entry.toml").write_text('contest = "duel"\n[duel]\nlanguage = "python"\nsource = "main.py"\n')
    done = verify("check", str(tmp_path / "word"), str(tmp_path / "crasher"), "--format", "json",
                  cache=tmp_path / "cache")
    assert done.returncode == 1, done.stderr
    verdicts = {entry["entry"]: entry["cases"][0]["verdict"] for entry in json.loads(done.stdout)["entries"]}
    assert verdicts["duel/word"]["status"] == "wrong"
    assert verdicts["duel/word"]["message"] == "round 1: answer 'rock' is not R, P or S"
    assert verdicts["duel/crasher"]["message"].startswith("round 1: runtime error: exit code 3")


def test_a_tournament_or_presenter_that_fails_to_load_is_one_line_naming_the_contest(tmp_path):
    import shutil
    for number, (part, args) in enumerate([("tournament", ["koth", "duel", "--help"]), ("tournament", ["koth", "duel"]),
                                           ("presenter", ["koth", "duel", "--html", str(tmp_path / "site")])]):
        broken = tmp_path / str(number) / "verify_duel"
        shutil.copytree(FIXTURE / "verify_duel", broken, ignore=shutil.ignore_patterns("__pycache__"))
        module = broken / f"{part}.py"
        module.write_text(module.read_text() + "\nraise ImportError('a dependency is missing')\n")
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VERIFY_CONTEST_PATH")}
        env.update(PYTHONPATH=str(REPO), VERIFY_CACHE=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
        done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "--contest-path",
                               str(broken), *args], cwd=FIXTURE, env=env, check=False, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 2, (args, done.stdout + done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert f"contest duel: its {part} " in done.stderr and "failed to load: ImportError: a dependency" in done.stderr
