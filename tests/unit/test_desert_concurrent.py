"""The desert judge on a worker thread: same verdicts, early stop, no thread left, no hang."""
from __future__ import annotations

import gc
import threading

import pytest

from verify.contests.contract import TestCase
from verify.contests.desert import CONTEST
from verify.contests.desert.judge import DesertJudge, judge_bytes
from verify.contests.desert.map import DesertMap
from verify.grading.concurrent import THREAD_NAME, ConcurrentJudge
from verify.verdict import Status, Verdict

HANG_GUARD = 30      # seconds: only so that a bug fails the test instead of hanging it


CORRIDOR = DesertMap.parse("S...E\n")


DEATH = b"R+0\nL+0\nR+0\nL+0\nR+0\n" + b"S#..E\n"     # dies on turn 5 at (0,1), then the map


WIN = b"R+0\n" * 4 + b"S###E\n"


OUTPUTS = [   # (output, accepted)
    (WIN, True),                             # won at once
    (DEATH + WIN, True),                     # a death, then the win
    (DEATH + DEATH, False),                  # a repeated death
    (b"R+0\nR+9\n", False),                  # an illegal pick
    (b"R+0\nR+0\nRx0\n", False),             # not a turn
    (b"R+0\n" * 2, False),                   # not over
]


def desert_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == THREAD_NAME]


def concurrent_verdict(output: bytes, size: int, waiting_chunks: int) -> Verdict:
    judge = ConcurrentJudge(DesertJudge(CORRIDOR), waiting_chunks)
    for start in range(0, len(output), size):
        if judge.feed(output[start:start + size]) is not None:
            break
    return judge.finish()


@pytest.mark.parametrize("output, accepted", OUTPUTS)
@pytest.mark.parametrize("size, waiting_chunks", [(1, 1), (3, 2), (5, 48), (1 << 16, 48)])
def test_the_verdict_is_the_synchronous_judges(output, accepted, size, waiting_chunks):
    expected = judge_bytes(CORRIDOR, output, chunk_size=size)
    assert expected.accepted is accepted, expected.message
    verdict = concurrent_verdict(output, size, waiting_chunks)
    assert verdict.to_dict() == expected.to_dict()
    assert verdict.warnings == expected.warnings
    assert not any(thread.is_alive() for thread in desert_threads())


@pytest.mark.parametrize("waiting_chunks", [1, 4, 48])
def test_a_rejection_stops_the_feeding_within_a_bounded_number_of_chunks(waiting_chunks):
    desert = DesertMap.parse("S" + "." * 30 + "E\n")
    expected = judge_bytes(desert, b"R+9\n")
    judge = ConcurrentJudge(DesertJudge(desert), waiting_chunks)
    verdict = judge.feed(b"R+9\n")          # illegal at once
    legal_chunks = 0
    while verdict is None:
        legal_chunks += 1
        assert legal_chunks <= waiting_chunks + 1, "feed kept taking chunks after the rejection"
        verdict = judge.feed(b"R+0\nL+0\n")
    assert verdict.to_dict() == expected.to_dict()
    judge._worker.join(HANG_GUARD)           # the worker ends by itself: the runner calls no finish
    assert not judge.worker_alive
    assert judge.finish().to_dict() == expected.to_dict()
    assert judge.feed(b"R+0\n") is verdict


class ScriptedJudge:
    """A stand-in judge: records what it is fed, can wait on a gate, can crash."""

    def __init__(self, crash_on: bytes | None = None, crash_in_finish: bool = False):
        self.fed: list[bytes] = []
        self.gate = threading.Event()
        self.gate.set()
        self.crash_on = crash_on
        self.crash_in_finish = crash_in_finish

    def feed(self, chunk: bytes) -> Verdict | None:
        self.gate.wait(HANG_GUARD)
        self.fed.append(chunk)
        if self.crash_on is not None and self.crash_on in chunk:
            raise ZeroDivisionError("a bug in the judge")
        return None

    def finish(self) -> Verdict:
        if self.crash_in_finish:
            raise KeyError("finish")
        return Verdict.accept(f"{sum(map(len, self.fed))} bytes")


def test_a_crash_in_the_worker_is_a_judge_error_verdict_not_a_hang():
    inner = ScriptedJudge(crash_on=b"boom")
    judge = ConcurrentJudge(inner, waiting_chunks=2)
    verdict = None
    for chunk in [b"a", b"b", b"boom"] + [b"c"] * 10:
        verdict = judge.feed(chunk)
        if verdict is not None:
            break
    final = judge.finish()
    assert final.status is Status.JUDGE_ERROR
    assert final.message == "the judge failed: ZeroDivisionError: a bug in the judge"
    assert "ZeroDivisionError" in final.detail
    assert verdict is None or verdict is final
    assert b"".join(inner.fed).startswith(b"abboom")
    assert b"boom" in inner.fed[-1]                 # nothing was fed after the crash
    assert not judge.worker_alive


def test_a_crash_in_finish_is_a_judge_error_verdict():
    judge = ConcurrentJudge(ScriptedJudge(crash_in_finish=True))
    assert judge.feed(b"a") is None
    verdict = judge.finish()
    assert verdict.status is Status.JUDGE_ERROR and "KeyError" in verdict.message
    assert not judge.worker_alive


def test_feed_blocks_when_the_waiting_chunks_are_all_taken():
    inner = ScriptedJudge()
    inner.gate.clear()                      # the worker holds its first chunk until the gate opens
    judge = ConcurrentJudge(inner, waiting_chunks=3)
    returned: list[Verdict | None] = []
    feeder = threading.Thread(target=lambda: returned.extend(judge.feed(bytes([n])) for n in range(10)))
    feeder.start()
    mailbox = judge._mailbox
    with mailbox.changed:                   # the worker took one chunk; three wait; the feeder blocks
        assert mailbox.changed.wait_for(lambda: len(mailbox.chunks) == 3 and judge._worker is not None,
                                        HANG_GUARD)
    feeder.join(0.2)
    assert feeder.is_alive() and len(mailbox.chunks) == 3 and inner.fed == []
    inner.gate.set()
    feeder.join(HANG_GUARD)
    assert returned == [None] * 10
    assert judge.finish().message == "10 bytes"
    assert b"".join(inner.fed) == bytes(range(10))          # every chunk, in order
    assert not judge.worker_alive


def test_a_judge_dropped_without_finish_stops_its_worker():
    inner = ScriptedJudge()
    inner.gate.clear()
    judge = ConcurrentJudge(inner, waiting_chunks=8)
    for n in range(8):
        judge.feed(bytes([n]))
    worker = judge._worker
    del judge                               # a run killed for a limit: nobody calls finish
    gc.collect()
    inner.gate.set()
    worker.join(HANG_GUARD)
    assert not worker.is_alive()
    assert len(inner.fed) <= 1              # at most the chunk in hand, not all eight


def test_close_stops_the_worker_at_once():
    inner = ScriptedJudge()
    judge = ConcurrentJudge(inner)
    judge.feed(b"a")
    judge.close()
    assert not judge.worker_alive


def test_the_core_judges_a_desert_run_on_a_worker_thread(tmp_path):
    from verify.entries import load_entry
    from verify.grading.batch import case_task
    (tmp_path / "a.py").write_text("pass\n")
    (tmp_path / "entry.toml").write_text('contest = "desert"\nlanguage = "python"\nsource = "a.py"\n')
    case = TestCase("corridor", b"S...E\n", None, ("S...E\n",))
    task = case_task(load_entry(tmp_path), case)
    judge = task.judge()
    assert CONTEST.judge_beside_run and isinstance(judge, ConcurrentJudge) and isinstance(judge.judge, DesertJudge)
    assert judge.feed(DEATH) is None
    assert judge.feed(WIN) is None
    assert judge.finish().accepted
    assert not judge.worker_alive


def test_big_chunks_are_bounded_by_bytes_too():
    inner = ScriptedJudge()
    inner.gate.clear()
    judge = ConcurrentJudge(inner, waiting_chunks=48, waiting_bytes=10)
    chunks = [bytes([n]) * 4 for n in range(12)]
    feeder = threading.Thread(target=lambda: [judge.feed(chunk) for chunk in chunks])
    feeder.start()
    mailbox = judge._mailbox
    with mailbox.changed:                   # one chunk in hand; 3 wait (12 bytes >= 10): the feeder blocks
        assert mailbox.changed.wait_for(lambda: len(mailbox.chunks) == 3 and judge._worker is not None,
                                        HANG_GUARD)
    feeder.join(0.2)
    assert feeder.is_alive() and mailbox.waiting_bytes == 12
    inner.gate.set()
    feeder.join(HANG_GUARD)
    assert judge.finish().message == "48 bytes" and b"".join(inner.fed) == b"".join(chunks)


def test_chunks_that_wait_are_fed_together_in_order_up_to_a_size(monkeypatch):
    from verify.grading import concurrent
    monkeypatch.setattr(concurrent, "JOINED_BYTES", 8)
    inner = ScriptedJudge()
    inner.gate.clear()
    judge = ConcurrentJudge(inner)
    chunks = [bytes([n]) * 3 for n in range(6)]
    for chunk in chunks:
        assert judge.feed(chunk) is None
    inner.gate.set()                        # all six wait (or one is in hand): they go two by two
    assert judge.finish().message == "18 bytes"
    assert b"".join(inner.fed) == b"".join(chunks)
    assert len(inner.fed) <= 4 and max(map(len, inner.fed)) <= 8
