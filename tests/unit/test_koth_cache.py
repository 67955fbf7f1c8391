"""King of the Hill, incremental: each job's result kept in the cache (verify/pipeline/match_cache.py)
and reused by the core's driver, for any contest, on a fake contest over the FakeRunner (no
process starts); sizes and seeds as ranges (verify/sizes.py); the time left in the progress
(verify/pipeline/time_left.py). The same as a user runs it: tests/e2e/test_koth_cache_runs.py."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_tournament_driver import LIMITS, Kept, adder
from verify.contests import get
from verify.contests.contract import (
    BatchTask,
    Board,
    Contest,
    Contestant,
    Grader,
    Scoring,
    Standing,
    Standings,
    Tournament,
)
from verify.errors import VerifyError
from verify.grading import FakeRunner
from verify.grading import Grader as CoreGrader
from verify.pipeline.match_cache import FOLDER, MatchCache, Uncacheable, canonical
from verify.pipeline.time_left import TimeLeft, shown
from verify.pipeline.tournament import play_tournament
from verify.runner import Program
from verify.sizes import MAX_VALUES, NumbersError, int_list

# ---------------------------------------------------------------- sizes and seeds as ranges

@pytest.mark.parametrize("text, numbers", [
    ("15", [15]), ("15,20", [15, 20]), ("15..18", [15, 16, 17, 18]), ("15..50:5", [15, 20, 25, 30, 35, 40, 45, 50]),
    ("15..27:5", [15, 20, 25]), ("15, 20..30:5", [15, 20, 25, 30]), ("6,1..3", [6, 1, 2, 3]), ("-2..1", [-2, -1, 0, 1]),
    ("4..4", [4]), ("1,,2,", [1, 2]),
])
def test_numbers_and_ranges(text, numbers):
    assert int_list("--sizes", text) == numbers


@pytest.mark.parametrize("text, message", [
    ("", "--sizes: expected comma-separated integers or ranges such as 15,20..30:5, not ''"),
    (" , ", "--sizes: expected comma-separated integers or ranges such as 15,20..30:5"),
    ("x", "--sizes: expected comma-separated integers or ranges (LOW..HIGH, LOW..HIGH:STEP), not 'x'"),
    ("15..", "not '15..'"), ("..50", "not '..50'"), ("15..50:", "not '15..50:'"), ("15:5", "not '15:5'"),
    ("15...50", "not '15...50'"), ("1.5", "not '1.5'"),
    ("50..15", "--sizes: '50..15' ends below its start"),
    ("15..50:0", "--sizes: '15..50:0' has a step below 1"), ("15..50:-5", "has a step below 1"),
    ("15,20,15", "--sizes: 15 is given twice in '15,20,15'"), ("10..20,15", "15 is given twice"),
    ("1..1000000000", f"--sizes: '1..1000000000' names more than {MAX_VALUES} numbers"),
    (f"1..{MAX_VALUES - 1},{MAX_VALUES + 5}..{MAX_VALUES + 9}", f"names more than {MAX_VALUES} numbers"),
    ("9" * 5000, "--sizes: expected comma-separated integers"),
])
def test_a_bad_list_is_one_line_naming_the_option(text, message):
    with pytest.raises(NumbersError) as raised:
        int_list("--sizes", text)
    assert message in str(raised.value) and "\n" not in str(raised.value) and len(str(raised.value)) < 200


def test_the_maze_takes_ranges_and_says_a_bad_one_as_its_error():
    tournament = get("maze").load_tournament()
    options = tournament.parse_options({"sizes": "15..25:5,50", "seeds": "1..3", "size_range": "15..50"})
    assert options.sizes == (15, 20, 25, 50) and options.seeds == (1, 2, 3)
    with pytest.raises(VerifyError, match=r"--seeds: '3..1' ends below its start"):
        tournament.parse_options({"sizes": "15", "seeds": "3..1"})
    with pytest.raises(VerifyError, match="size 51 is outside 15..50"):
        tournament.parse_options({"sizes": "15..51:36", "seeds": "1"})


# ---------------------------------------------------------------- the key names a job exactly

@dataclass(frozen=True)
class Job:
    who: str
    program: Program
    stdin: bytes
    options: Any = None


def test_canonical_names_every_plain_value_and_refuses_the_rest(tmp_path):
    program = Program("python", tmp_path / "a.py")
    job = Job("ann", program, b"1\n", (frozenset({"b", "a", "c"}), {"y": 1.5, "x": range(2, 9, 3)}, [True, None]))
    again = Job("ann", program, b"1\n", (frozenset({"c", "a", "b"}), {"x": range(2, 9, 3), "y": 1.5}, [True, None]))
    assert json.dumps(canonical(job)) == json.dumps(canonical(again))
    # one value of another type, or one field else, is another key
    for other in [Job("ann", program, b"1\n", ((), {}, [1, None])), Job("ann", program, b"1\n", [1]),
                  Job("ann", program, b"1\n", (1,)), Job("ann", program, b"1\n", 1.0), Job("ann", program, b"1\n", "1"),
                  Job("ann", program, b"1\n", True)]:
        assert json.dumps(canonical(other)) != json.dumps(canonical(Job("ann", program, b"1\n", 1)))
    assert json.dumps(canonical(Job("ann", program, b"1\n", (1,)))) != json.dumps(canonical(Job("ann", program, b"1\n", [1])))
    with pytest.raises(Uncacheable):
        canonical(Job("ann", program, b"", object()))


def cache_at(tmp_path: Path, **kwargs: Any) -> MatchCache:
    return MatchCache(tmp_path / "cache" / FOLDER, ["verify 1", "fake"], lambda language: ["tools", language], **kwargs)


def test_the_key_covers_the_job_the_programs_folders_tools_and_context(tmp_path):
    program = Program("python", tmp_path / "a.py")
    job = Job("ann", program, b"1\n")
    cache = cache_at(tmp_path)
    key = cache.key(job, [(program, "d1")])
    assert key is not None and key == cache_at(tmp_path).key(job, [(program, "d1")])
    assert cache.key(job, [(program, "d2")]) != key                                  # a file of its folder changed
    assert cache.key(Job("ann", program, b"2\n"), [(program, "d1")]) != key          # another job
    assert MatchCache(cache.folder, ["verify 2", "fake"], lambda language: ["tools", language]).key(
        job, [(program, "d1")]) != key                                                # verify's source changed
    assert MatchCache(cache.folder, ["verify 1", "fake"], lambda language: ["tools 2", language]).key(
        job, [(program, "d1")]) != key                                                # the interpreter changed
    assert cache.key(job, [(program, "")]) is None                                   # a folder that could not be read
    assert cache.key(Job("ann", program, b"", object()), []) is None                 # not plain data: never kept


def test_a_kept_result_comes_back_with_its_log_and_a_damaged_one_never(tmp_path):
    cache = cache_at(tmp_path)
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"step": 1}\n' * 1000)
    cache.store("k1", {"points": [1.5, 0.5], "moves": ["RP", "SS"]}, log)
    kept = cache.load("k1")
    assert kept is not None and kept.result == {"points": [1.5, 0.5], "moves": ["RP", "SS"]}
    assert kept.log == log.read_bytes()
    assert cache.path("k1").stat().st_size < len(kept.log) / 5            # the log kept compressed
    cache.store("k2", "7", None)
    assert cache.load("k2").result == "7" and cache.load("k2").log is None
    assert cache.load("k3") is None
    assert cache_at(tmp_path, fresh=True).load("k1") is None               # --fresh: nothing reused
    # renamed under another key, cut short, a byte of its log changed, not ours, a link: none is a result
    data = cache.path("k1").read_bytes()
    for damaged in [data[:-10], data[:len(data) // 2], data.replace(b'"k1"', b'"k9"'), b"\xff\xfe garbage",
                    data[:-1] + bytes([data[-1] ^ 1]), b"", b'{"format": "verify match 1", "key": "k1"}\n']:
        cache.path("k1").write_bytes(damaged)
        assert cache.load("k1") is None, damaged[:60]
    cache.path("k4").write_bytes(data.replace(b'"k1"', b'"k4"'))
    assert cache.load("k4") is not None
    cache.path("k4").unlink()
    cache.path("k4").symlink_to(cache.path("k2"))
    assert cache.load("k4") is None


def test_what_cannot_be_kept_is_not_and_the_tournament_goes_on(tmp_path):
    cache = cache_at(tmp_path)
    for result in [(1, 2), {1: "a"}, float("nan"), {"set": {1}}]:       # not JSON data, or not back as it was
        cache.store("k", result, None)
        assert cache.load("k") is None
    cache.store("k", 1, tmp_path / "no-such-log")                        # a log it cannot read: not kept
    assert cache.load("k") is None and cache.unkept is None
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder would be")
    unwritable = MatchCache(blocked / FOLDER, [], lambda language: [])
    unwritable.store("k", 1, None)
    assert unwritable.unkept is not None and str(blocked) in unwritable.unkept


# ---------------------------------------------------------------- the driver reuses what is kept

@dataclass(frozen=True)
class Ask:
    """Stage 0: an entry says its number; stage 1: it adds one to another's."""

    who: str
    program: Program
    stdin: bytes
    of: str = ""


def asked(grader: Grader, job: Ask) -> str:
    judge = Kept()
    verdict, _ = grader.run_batch(BatchTask(job.who, job.program, job.stdin, lambda: judge, (), LIMITS))
    return judge.output.decode().strip() if verdict.accepted else f"failed: {verdict.summary()}"


class RelayTournament(Tournament[Program, int]):
    stages = 2

    def parse_options(self, values: Mapping[str, str | None]) -> int:
        return 0

    def schedule(self, stage: int, contestants: Sequence[Contestant[Program]], options: int,
                 broken: Mapping[Program, str], earlier: Sequence[Sequence[Any]]) -> list[Ask]:
        if stage == 0:
            return [Ask(c.name, c.options, f"{options}\n".encode()) for c in contestants]
        numbers = dict(zip((c.name for c in contestants), earlier[0], strict=True))
        return [Ask(b.name, b.options, f"{numbers[a.name]['answer']}\n".encode(), a.name)
                for a in contestants for b in contestants if a is not b]

    def play(self, grader: Grader, job: Ask, log: Path | None) -> dict[str, str]:
        answer = asked(grader, job)
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(json.dumps({"who": job.who, "of": job.of, "answer": answer}))
        return {"answer": answer, "log": str(log)}

    def relogged(self, job: Ask, result: dict[str, str], log: Path | None) -> dict[str, str]:
        return {**result, "log": str(log)}

    def programs(self, job: Ask) -> list[Program]:
        return [job.program]

    def log_name(self, job: Ask) -> str:
        return f"{job.who}-{job.of or 'start'}.json"

    def describe(self, job: Ask, result: dict[str, str]) -> str:
        return f"{job.who} on {job.of or 'the start'}: {result['answer']}"

    def standings(self, contestants: Sequence[Contestant[Program]], options: int,
                  results: Sequence[Sequence[Any]]) -> Standings:
        board = [Standing(c.name, None, 0) for c in contestants]
        return Standings("Relay", "", [Board("Players", "player", (), board)], result=results)


RELAY = RelayTournament()


class RelayContest(Contest):
    name = "relay"
    title = "Relay"
    scoring = Scoring.TOURNAMENT
    tournament = f"{__name__}:RELAY"

    def parse_options(self, entry: str, table: dict[str, Any], folder: Path) -> Program:
        raise NotImplementedError

    def programs(self, options: Program):
        return iter([options])


def field_of(tmp_path: Path, *names: str) -> list[Contestant]:
    field = []
    for name in names:
        folder = tmp_path / "entries" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "adder.py").write_text("# scripted by the fake runner\n")
        field.append(Contestant(name, Program("python", folder / "adder.py")))
    return field


def relay(tmp_path: Path, field: list[Contestant], cache: MatchCache, logs: str | None = "logs",
          lines: list[str] | None = None) -> tuple[Any, FakeRunner]:
    runner = FakeRunner({"adder.py": adder})
    standings = play_tournament(CoreGrader(runner), RelayContest(), field, 0, jobs=2,
                                log_dir=None if logs is None else tmp_path / logs,
                                progress=(lines if lines is not None else []).append, cache=cache)
    return standings.result, runner


def test_a_second_run_reuses_every_result_with_its_log(tmp_path):
    field = field_of(tmp_path, "ann", "bo", "cy")
    first, runner = relay(tmp_path, field, cache_at(tmp_path), "logs1")
    assert len(runner.runs) == 3 + 6
    cache = cache_at(tmp_path)
    lines: list[str] = []
    second, runner = relay(tmp_path, field, cache, "logs2", lines)
    assert runner.runs == [] and (cache.reused, cache.played) == (9, 0)
    assert lines == ["3 of 3 reused from the cache, 0 to play", "6 of 6 reused from the cache, 0 to play"]
    # the same results, each naming this run's log, which holds what the first run's did
    assert [[r["answer"] for r in stage] for stage in second] == [[r["answer"] for r in stage] for stage in first]
    for stage in second:
        for result in stage:
            log = Path(result["log"])
            assert log.parent == tmp_path / "logs2"
            assert log.read_bytes() == (tmp_path / "logs1" / log.name).read_bytes()


def test_an_entry_added_or_changed_plays_only_its_own_jobs(tmp_path):
    relay(tmp_path, field_of(tmp_path, "ann", "bo"), cache_at(tmp_path))
    cache = cache_at(tmp_path)
    grown, runner = relay(tmp_path, field_of(tmp_path, "ann", "bo", "cy"), cache, "logs2")
    # cy's number, and every relay cy is in (cy on ann, cy on bo, ann on cy, bo on cy): 1 + 4 played
    assert (cache.reused, cache.played) == (2 + 2, 1 + 4) and len(runner.runs) == 5
    fresh, _ = relay(tmp_path, field_of(tmp_path, "ann", "bo", "cy"), cache_at(tmp_path, fresh=True), "logs3")
    assert [[r["answer"] for r in stage] for stage in grown] == [[r["answer"] for r in stage] for stage in fresh]
    (tmp_path / "entries" / "bo" / "notes.txt").write_text("a file of bo's folder changed\n")
    cache = cache_at(tmp_path)
    relay(tmp_path, field_of(tmp_path, "ann", "bo", "cy"), cache, "logs4")
    assert (cache.reused, cache.played) == (2 + 4, 1 + 2)     # bo's number, bo on ann and on cy: its own only
    assert cache_at(tmp_path, fresh=True).reused == 0


def test_a_damaged_or_logless_result_is_played_again_and_kept_anew(tmp_path):
    field = field_of(tmp_path, "ann", "bo")
    relay(tmp_path, field, cache_at(tmp_path), logs=None)        # kept without logs
    cache = cache_at(tmp_path)
    relay(tmp_path, field, cache, "logs")
    assert (cache.reused, cache.played) == (0, 4)                # a log is wanted: played again
    kept = sorted(cache.folder.iterdir())
    assert len(kept) == 4
    kept[0].write_bytes(kept[0].read_bytes()[:-3])
    kept[1].write_text("not a kept result")
    cache = cache_at(tmp_path)
    relay(tmp_path, field, cache, "logs2")
    assert (cache.reused, cache.played) == (2, 2)
    cache = cache_at(tmp_path)
    relay(tmp_path, field, cache, "logs3")
    assert (cache.reused, cache.played) == (4, 0)
    without, runner = relay(tmp_path, field, cache_at(tmp_path), logs=None)
    assert runner.runs == [] and all(result["log"] == "None" for stage in without for result in stage)


# ---------------------------------------------------------------- the time left

def test_the_time_left_is_learned_from_the_jobs_played():
    now = [0.0]
    left = TimeLeft([8.0, 8.0, 1.0, 1.0], clock=lambda: now[0])
    assert left.seconds() is None
    now[0] = 10.0
    left.done(0, 10.0)                      # one job of cost 8 took 10 s, one at a time
    assert left.seconds() == pytest.approx(10.0 + 2 * 10.0 / 8)
    now[0] = 12.0
    left.done(2, 2.0)                       # a job of cost 1 took 2 s: its cost's own mean from now on
    assert left.seconds() == pytest.approx(10.0 + 2.0)
    two_at_once = TimeLeft([1.0, 1.0, 1.0], clock=lambda: now[0])
    now[0] += 4.0
    two_at_once.done(0, 4.0)
    two_at_once.done(1, 4.0)                # 8 s of jobs in 4 s: two at once
    assert two_at_once.seconds() == pytest.approx(2.0)
    two_at_once.done(2, 4.0)
    assert two_at_once.seconds() == 0.0
    free = TimeLeft([0.0, 0.0], clock=lambda: now[0])        # costs that say nothing: each job counts one
    now[0] += 3.0
    free.done(1, 3.0)
    assert free.seconds() == pytest.approx(3.0)
    assert [shown(s) for s in (0.4, 59, 61, 3500, 3599, 11_100)] == ["0 s", "59 s", "1 min", "58 min", "1 h 00 min",
                                                                     "3 h 05 min"]


def test_runs_at_once_never_read_half_a_result(tmp_path):
    import threading
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"step": 1}\n' * 5000)
    writers = [cache_at(tmp_path) for _ in range(3)]
    seen: list[object] = []

    def write(cache: MatchCache, value: int) -> None:
        for _ in range(40):
            cache.store("shared", {"value": value}, log)

    def read() -> None:
        for _ in range(200):
            kept = cache_at(tmp_path).load("shared")
            seen.append(None if kept is None else (kept.result["value"], kept.log == log.read_bytes()))

    threads = [threading.Thread(target=write, args=(cache, value)) for value, cache in enumerate(writers)]
    threads.append(threading.Thread(target=read))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # each read is nothing yet or one writer's whole result with its whole log; no temporary file is left
    assert all(item is None or (item[0] in (0, 1, 2) and item[1]) for item in seen)
    assert cache_at(tmp_path).load("shared") is not None
    assert [path.name for path in cache_at(tmp_path).folder.iterdir()] == ["shared.match"]
