"""The judge reading a pipe itself (``DesertJudge.read_from``, the compiled pump) gives the
verdict that feeding the same bytes gives, however the writer cuts them and however little
each call may read; the exact path (no kernel) is the reference."""
from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.test_desert_kernel import random_map
from verify.contests.desert.engine import Crossing, IllegalTurn, Outcome, Turn
from verify.contests.desert.judge import DesertJudge, judge_bytes
from verify.contests.desert.kernel import FastTranscript, compiled_pump
from verify.contests.desert.kernel_tables import R_PIPE_END
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import LRUD_XY, STANDARD, Notation
from verify.contests.desert.rules import DROP, FILL, PICK

pytestmark = pytest.mark.skipif(compiled_pump() is None, reason="no compiled kernel (no C compiler)")

TURNS = [Turn(d, PICK, a) for d in "UDLR" for a in range(4)] + [Turn(d, DROP, a) for d in "UDLR" for a in range(3)]
LRUD_TURNS = [Turn(d, PICK, 1) for d in "UDLR"] + [Turn(d, DROP, 2) for d in "UDLR"] + \
    [Turn(d, DROP, 1) for d in "UDLR"] + [Turn(d, FILL, 0) for d in "UDLR"]
GARBAGE = [b"?", b"R+00", b"D2-", b"U+", b"#", b"\r", b"S", b"x"]


def written(turn: Turn, notation: Notation) -> bytes:
    direction, action, amount = turn
    if notation is STANDARD:
        return f"{direction}{'+' if action == PICK else '-'}{amount}\n".encode()
    return (direction + {PICK: "", FILL: " "}.get(action, "X" if amount == 2 else "Y")).encode()


def transcript(rng: random.Random, notation: Notation) -> tuple[DesertMap, bytes]:
    """A map and an output for it: attempts of mostly legal turns, each with its final map
    (map first in lrud-xy), now and then garbled bytes."""
    desert = random_map(rng, heights=(1, 3), widths=(2, 8))
    out = bytearray()
    deaths: list[bytes] = []
    for attempt in range(1, rng.randint(1, 3) + 1):
        if deaths and rng.random() < 0.2:       # a death by the same route again
            out += rng.choice(deaths)
            continue
        begin = len(out)
        game = Crossing(desert, attempt)
        moves = bytearray()
        for _ in range(rng.randint(1, 400)):
            if game.outcome is not Outcome.ALIVE:
                break
            turn = rng.choice(TURNS if notation is STANDARD else LRUD_TURNS)
            try:
                game.push(turn)
            except IllegalTurn:
                if rng.random() > 0.02:
                    continue
            moves += written(turn, notation)
        rendered = game.render_bytes()
        if rng.random() < 0.1:                  # a wrong final map
            index = rng.randrange(len(rendered))
            if rendered[index:index + 1] not in b"\nSE":
                rendered = rendered[:index] + b"#" + rendered[index + 1:]
        out += moves + rendered if notation is STANDARD else rendered + moves + b"\n"
        if game.outcome is Outcome.WON:
            break
        deaths.append(bytes(out[begin:]))
    if rng.random() < 0.3:
        index = rng.randrange(len(out) + 1)
        out[index:index] = rng.choice(GARBAGE)
    return desert, bytes(out)


def through_a_pipe(judge: DesertJudge, output: bytes, pieces: list[int], budget: int) -> dict:
    """The verdict of ``judge`` reading ``output`` from a pipe, written in pieces of the given
    sizes (in turn), each call reading at most ``budget`` bytes."""
    assert isinstance(judge.transcript, FastTranscript)
    reader = judge.pipe_reader()
    assert reader is not None
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    total, position, piece, verdict, ended = 0, 0, 0, None, False
    try:
        while verdict is None and not ended:
            if position < len(output):
                size = pieces[piece % len(pieces)]
                piece += 1
                position += os.write(write_end, output[position:position + size])
            elif write_end >= 0:
                os.close(write_end)
                write_end = -1
            while verdict is None and not ended:
                read, ended, verdict = reader(read_end, budget)
                total += read
                if read < budget:
                    break               # nothing more written yet
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    assert verdict is not None or total == len(output)
    return judge.finish().to_dict()


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), lrud=st.booleans(),
       pieces=st.lists(st.integers(1, 5000), min_size=1, max_size=6), budget=st.integers(1, 1 << 16))
def test_reading_the_pipe_gives_the_verdict_of_the_exact_path(seed, lrud, pieces, budget):
    notation = LRUD_XY if lrud else STANDARD
    desert, output = transcript(random.Random(seed), notation)
    order = "moves-first" if notation is STANDARD else "map-first"
    exact = judge_bytes(desert, output, fast=False, notation=notation, order=order).to_dict()
    assert through_a_pipe(DesertJudge(desert, notation, order), output, pieces, budget) == exact


def test_a_long_output_is_read_by_the_pump_not_the_reading_loop():
    desert = DesertMap.parse("S.........E\n")
    walk = b"R+0\nL+2\n" * 300_000
    output = walk + b"R+0\n" * 5 + b"S#####....E\n"
    exact = judge_bytes(desert, output, fast=False).to_dict()
    judge = DesertJudge(desert)
    assert through_a_pipe(judge, output, [1 << 16, 1 << 16, 7], 1 << 20) == exact
    assert exact["message"] == "the output ends with no winning attempt (1 attempt, 1 death)"
    transcript = judge.transcript
    assert isinstance(transcript, FastTranscript)
    assert transcript.kernel_turns == 600_005 and transcript.piped == len(output)
    assert transcript.stops[R_PIPE_END] == 0       # the death stopped the pump, the map went to the loop


def test_an_exact_judge_has_no_pipe_reader():
    assert DesertJudge(DesertMap.parse("S..E\n"), fast=False).pipe_reader() is None


def test_a_rejected_judge_reads_no_more():
    desert = DesertMap.parse("S..E\n")
    judge = DesertJudge(desert)
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    try:
        os.write(write_end, b"R+0\nQ\nR+0\n")
        read, ended, verdict = judge.read_from(read_end, 1 << 20)
        assert verdict is not None and not verdict.accepted and "line 2, column 1" in verdict.message
        assert read == 10 and not ended
        os.write(write_end, b"R+0\n")
        assert judge.read_from(read_end, 1 << 20) == (0, False, verdict)
        assert judge.pipe_reader() is None
    finally:
        os.close(read_end)
        os.close(write_end)
