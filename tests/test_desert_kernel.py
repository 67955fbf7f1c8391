"""The fast path (compiled kernel) against the exact path: same verdicts, same words.

Random maps, random transcripts (mostly legal, some illegal, some garbled bytes), in every
named notation and a declared one, fed in chunks cut at random places: the judge with the
kernel and the judge on the exact path alone must return identical verdicts.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from verify import Status
from verify.challenges.desert.engine import DROP, FILL, PICK, Crossing, IllegalTurn, Outcome, Turn
from verify.challenges.desert.judge import DesertJudge
from verify.challenges.desert.kernel import FastTranscript, RollingRoute, compiled_replay, fold, turn_code
from verify.challenges.desert.kernel_tables import compile_notation
from verify.challenges.desert.map import DesertMap
from verify.challenges.desert.notation import LRUD_XY, NOTATIONS, STANDARD, Notation

pytestmark = pytest.mark.skipif(compiled_replay() is None, reason="no compiled kernel (numba missing)")

DECLARED = Notation.from_table("declared", {
    "directions": {"n": "U", "s": "D", "w": "L", "e": "R"},
    "actions": {"p": "+n", "d": "-n", "f": "fill", "": "+0"},
    "separators": " ,\n",
})
ALL_NOTATIONS = [STANDARD, LRUD_XY, DECLARED]


# ---------------------------------------------------------------- writing turns

def write_turn(turn: Turn, notation: Notation, rng: random.Random) -> bytes:
    """One turn in ``notation`` (sometimes in an unusual but valid spelling)."""
    direction, action, amount = turn
    letter = next(k for k, v in notation.directions.items() if v == direction)
    for modifier, spec in notation.actions.items():
        if spec.kind == action and (spec.amount is None or spec.amount == amount):
            if spec.kind == FILL or spec.amount is not None:
                return (letter + modifier).encode()
            digits = str(amount)
            if rng.random() < 0.05:
                digits = "0" + digits             # several digits: the exact parser's shape
            return (letter + modifier + digits).encode()
    raise ValueError(f"{turn} cannot be written in {notation.name}")


def separator(notation: Notation, rng: random.Random) -> bytes:
    if notation is STANDARD:
        return rng.choice([b"\n"] * 20 + [b" ", b"\r\n", b" \n", b"\t\n"])
    if notation is LRUD_XY:
        return rng.choice([b""] * 12 + [b"\n", b"\r\n"])
    return rng.choice([b"\n", b" ", b",", b""])


def candidate_turns(notation: Notation) -> list[Turn]:
    turns = []
    for direction in "UDLR":
        for modifier, spec in notation.actions.items():
            amounts = range(0, 7) if spec.amount is None else [spec.amount]
            turns += [Turn(direction, spec.kind, amount) for amount in amounts]
    return turns


def random_map(rng: random.Random) -> DesertMap:
    height, width = rng.randint(1, 5), rng.randint(2, 7)
    cells = [rng.choice("....123456789") for _ in range(width * height)]
    start, end = rng.sample(range(width * height), 2)
    cells[start], cells[end] = "S", "E"
    return DesertMap.parse("".join("".join(cells[r * width:(r + 1) * width]) + "\n" for r in range(height)))


def random_output(desert: DesertMap, notation: Notation, rng: random.Random) -> bytes:
    """Attempts of mostly legal turns, each with its final map; now and then a fault."""
    out = bytearray()
    candidates = candidate_turns(notation)
    deaths: list[bytes] = []
    for attempt in range(1, rng.randint(1, 4) + 1):
        if deaths and rng.random() < 0.15:     # a death by the same route again
            out += rng.choice(deaths)
            continue
        begin = len(out)
        game = Crossing(desert, attempt)
        if notation.prefix and rng.random() < 0.5:
            out += notation.prefix.encode()
        written = 0
        limit = rng.randint(1, 60)
        while game.outcome is Outcome.ALIVE and written < limit:
            turn = rng.choice(candidates)
            try:
                game.push(turn)
            except IllegalTurn:
                if rng.random() > 0.03:
                    continue                # mostly legal: try another turn
            out += write_turn(turn, notation, rng) + separator(notation, rng)
            written += 1
        if rng.random() < 0.05:             # a turn after the end
            out += write_turn(rng.choice(candidates), notation, rng) + b"\n"
        if not out.endswith(b"\n"):
            out += b"\n"
        rendered = game.render_bytes()
        if rng.random() < 0.05:             # a wrong final map
            index = rng.randrange(len(rendered))
            if rendered[index:index + 1] not in (b"\n", b"S", b"E"):
                rendered = rendered[:index] + rng.choice([b"#", b".", b"3"]) + rendered[index + 1:]
        out += rendered
        if game.outcome is Outcome.WON:
            break
        deaths.append(bytes(out[begin:]))
    if rng.random() < 0.15:                 # garbled bytes somewhere
        for _ in range(rng.randint(1, 3)):
            index = rng.randrange(len(out) + 1)
            out[index:index + rng.randint(0, 2)] = bytes([rng.choice(b"UDLR+-0123456789 \nXYS.#?\r")])
    return bytes(out)


def line_cuts(output: bytes) -> list[int]:
    """Cuts after every newline: the exact path then reads one line at a time.

    The exact path reads all the complete lines of a chunk before it plays them, so when
    a chunk holds an illegal turn and, on a later line, a token it cannot read, it reports
    the later one (which one depends on where chunks end). The kernel reads turn by turn,
    like the exact path fed line by line: that is the reference here.
    """
    return [index + 1 for index, byte in enumerate(output) if byte == 10]


def judge(desert: DesertMap, notation: Notation, output: bytes, cuts: list[int], fast: bool, **options):
    judge = DesertJudge(desert, notation, fast=fast, **options)
    if fast:
        assert isinstance(judge.transcript, FastTranscript)
    bounds = [0, *sorted(cuts), len(output)]
    for start, stop in zip(bounds, bounds[1:]):
        if judge.feed(output[start:stop]) is not None:
            break
    verdict = judge.finish().to_dict()
    if verdict["status"] != Status.ACCEPTED.value:
        # turns replayed when a failure is found depend on how far reading had gone: on the
        # exact path too (it reads a whole chunk's tokens before playing them), so not compared
        del verdict["stats"]["total_turns"]
    return verdict


# ---------------------------------------------------------------- the differential tests

@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), which=st.sampled_from(range(len(ALL_NOTATIONS))),
       deaths=st.sampled_from(["turns", "squares"]), data=st.data())
def test_kernel_and_exact_path_give_identical_verdicts(seed, which, deaths, data):
    rng = random.Random(seed)
    notation = ALL_NOTATIONS[which]
    desert = random_map(rng)
    output = random_output(desert, notation, rng)
    cuts = data.draw(st.lists(st.integers(0, len(output)), max_size=8), label="chunk cuts")
    exact = judge(desert, notation, output, line_cuts(output), fast=False, deaths=deaths)
    fast = judge(desert, notation, output, cuts, fast=True, deaths=deaths)
    assert fast == exact


@settings(deadline=None, max_examples=60)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_map_first_order_gives_identical_verdicts(seed, data):
    rng = random.Random(seed)
    desert = random_map(rng)
    output = random_output(desert, STANDARD, rng)
    # move each final map in front of its moves: a map-first transcript
    lines = output.split(b"\n")[:-1]
    blocks, moves = [], []
    height = desert.height
    index = 0
    while index < len(lines):
        if lines[index][:1] and lines[index][:1] in b"SE123456789.#":
            blocks.append(b"\n".join(lines[index:index + height]) + b"\n" + b"".join(moves))
            moves, index = [], index + height
        else:
            moves.append(lines[index] + b"\n")
            index += 1
    output = b"".join(blocks) + b"".join(moves)
    cuts = data.draw(st.lists(st.integers(0, len(output)), max_size=6), label="chunk cuts")
    assert judge(desert, STANDARD, output, cuts, True, order="map-first") == \
        judge(desert, STANDARD, output, line_cuts(output), False, order="map-first")


def test_every_named_notation_is_read_by_the_kernel():
    for notation in NOTATIONS.values():
        assert compile_notation(notation) is not None, notation.name
    assert compile_notation(DECLARED) is not None


def test_a_notation_the_kernel_cannot_read_is_judged_on_the_exact_path():
    long_modifier = Notation.from_table("long", {"directions": "UDLR", "actions": {"++": "+n", "--": "-n"}})
    pattern = Notation.from_table("pattern", {"directions": "UDLR", "actions": {"+": "+n", "-": "-n"},
                                              "pattern": r"(?P<dir>[UDLR])(?P<act>[+-])(?P<n>\d)"})
    desert = DesertMap.parse("S..E\n")
    for notation in (long_modifier, pattern):
        assert compile_notation(notation) is None
        judge_ = DesertJudge(desert, notation)
        assert not isinstance(judge_.transcript, FastTranscript)
    verdict = DesertJudge(desert, long_modifier)
    verdict.feed(b"R++0\nR++0\nR++0\nS##E\n")
    assert verdict.finish().accepted


# ---------------------------------------------------------------- route identity

def test_a_repeated_death_is_caught_whichever_path_played_its_turns():
    desert = DesertMap.parse("S......E\n")
    death_map = b"S#####.E\n"
    by_kernel = b"R+0\n" * 5
    by_exact = b"R+00\n" * 5          # two digits: every turn goes through the exact parser
    verdict = DesertJudge(desert).feed(by_kernel + death_map + by_exact + death_map)
    assert verdict is not None and verdict.stats["failure"] == "RepeatedDeath"
    assert verdict.message.startswith("attempt 2 dies on turn 5 at (0,5) and repeats the turns of attempt 1")
    different = b"R+0\n" * 4 + b"R-0\n"      # +0 and -0 are the same "no action"
    verdict = DesertJudge(desert).feed(by_kernel + death_map + different + death_map)
    assert verdict is not None and verdict.stats["failure"] == "RepeatedDeath"


def test_python_fold_is_the_kernels_fold():
    desert = DesertMap.parse("S.3.\n..5E\n")
    played = [Turn("R", PICK, 0), Turn("R", PICK, 2), Turn("L", DROP, 1), Turn("D", PICK, 0)]
    judge_ = DesertJudge(desert)
    assert judge_.feed(b"R+0\nR+2\nL-1\nD+0\n") is None
    transcript = judge_.transcript
    route = (0, 0)
    for turn in played:
        route = fold(route, turn_code(turn))
    assert transcript.kernel_turns == len(played)
    assert transcript._route.value == route
    rolling = RollingRoute()
    rolling.update(b"".join(turn_code(t).to_bytes(2, "little") for t in played))
    assert rolling.value == route


def test_squares_rule_codes_directions_only():
    assert turn_code(Turn("D", PICK, 3), squares_only=True) == turn_code(Turn("D", DROP, 1), squares_only=True)
    assert turn_code(Turn("D", PICK, 0)) == turn_code(Turn("D", DROP, 0))
    assert turn_code(Turn("D", FILL, 0)) != turn_code(Turn("D", PICK, 0))


# ---------------------------------------------------------------- long outputs

def test_a_long_stream_in_odd_chunks_matches_the_exact_path():
    rng = random.Random(7)
    desert = DesertMap.parse("S.........\n.9.......E\n")
    # a long legal walk back and forth on the top row, fed in chunks of 1..7 bytes
    moves = []
    for _ in range(400):
        moves += [b"R+0", b"L+1"] if rng.random() < 0.5 else [b"D+0", b"U+1"]
    output = b"\n".join(moves) + b"\nR+0\nR+0\nR+0\nR+0\nR+0\nR+0\n"
    output += b"S######...\n.9.......E\n"
    cuts, position = [], 0
    while position < len(output):
        position += rng.randint(1, 7)
        cuts.append(min(position, len(output)))
    fast = judge(desert, STANDARD, output, cuts, True)
    exact = judge(desert, STANDARD, output, line_cuts(output), False)
    assert fast == exact
    assert fast["status"] == Status.WRONG.value       # the walk ends alive: not over


# ---------------------------------------------------------------- loading

def test_the_jit_fallback_plays_like_the_ahead_of_time_module():
    import numpy as np
    from verify.challenges.desert import kernel as kernel_module, kernel_jit
    from verify.challenges.desert.kernel_tables import compile_notation as compile_
    compiled = compile_(STANDARD)
    desert = DesertMap.parse("S.3......\n.........\n........E\n")
    output = b"R+0\nR+2\nL-1\nR+0\nR+0\nD+0\nU+0\nD+1\n" * 3
    results = []
    for replay in (compiled_replay(), kernel_jit.jit()):
        state = np.zeros(kernel_module.STATE_COUNT, dtype=np.int64)
        state[1] = 5
        digest = np.zeros(2, dtype=np.uint64)
        water = np.frombuffer(bytearray(desert.flat_water()), dtype=np.uint8)
        visited = np.zeros(desert.width * desert.height, dtype=np.uint8)
        params = compiled.params.copy()
        params[3:7] = desert.width, desert.height, 0, desert.width * desert.height - 1
        reason = replay(np.frombuffer(output, dtype=np.uint8), 0, len(output), True,
                        np.ascontiguousarray(compiled.tables.reshape(-1)), params, water, visited, state, digest)
        results.append((reason, state.tolist(), digest.tolist(), water.tolist(), visited.tolist()))
    assert results[0] == results[1]
    assert results[0][0] == 4 and results[0][1][2] == 6      # stops after the dying 6th turn (D+0)


def test_without_a_kernel_the_exact_path_judges(monkeypatch):
    from verify.challenges.desert import kernel
    monkeypatch.setenv(kernel.ENVIRONMENT_SWITCH, "0")
    kernel.compiled_replay.cache_clear()
    try:
        judge_ = DesertJudge(DesertMap.parse("S..E\n"))
        assert not isinstance(judge_.transcript, FastTranscript)
        judge_.feed(b"R+0\nR+0\nR+0\nS##E\n")
        assert judge_.finish().accepted
    finally:
        monkeypatch.delenv(kernel.ENVIRONMENT_SWITCH)
        kernel.compiled_replay.cache_clear()


def test_line_and_column_after_a_long_stretch_read_by_the_kernel():
    desert = DesertMap.parse("S.........\n.9.......E\n")
    output = b"R+0\nL+2\n" * 3000 + b"R+0 L+2 R+0\tL+2\n" * 50 + b"R+0 L+2 Rx0\n"
    for cuts in ([], list(range(7, len(output), 4093)), list(range(1, len(output), 1009))):
        fast = judge(desert, STANDARD, output, cuts, True)
        assert fast == judge(desert, STANDARD, output, line_cuts(output), False)
        assert fast["message"].startswith("output line 6051, column 9: expected a turn")
