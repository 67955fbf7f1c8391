"""The fast path (compiled kernel) against the exact path: same verdicts, same words.

Random maps, random transcripts (mostly legal, some illegal, some garbled bytes), in every
named notation and a declared one, fed in chunks cut at random places: the judge with the
kernel and the judge on the exact path alone must return identical verdicts.
"""
from __future__ import annotations

import random
import re
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify import Status
from verify.contests.desert import engine, rules
from verify.contests.desert.engine import DROP, FILL, PICK, Crossing, IllegalTurn, OffGrid, Outcome, Turn
from verify.contests.desert.judge import DesertJudge, judge_bytes
from verify.contests.desert.kernel import (
    Digest,
    FastTranscript,
    Params,
    RollingRoute,
    State,
    byte_view,
    compiled_replay,
    fold,
    turn_code,
)
from verify.contests.desert.kernel_tables import (
    P_END,
    P_HEIGHT,
    P_START,
    P_WIDTH,
    R_CHUNK_END,
    R_DEATH,
    R_ILLEGAL,
    R_OFF_GRID,
    R_WIN,
    S_CARRIED,
    S_DRAWN,
    S_POSITION,
    S_TURNS,
    T_DIRECTION,
    compile_notation,
)
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import LRUD_XY, NOTATIONS, STANDARD, Notation

pytestmark = pytest.mark.skipif(compiled_replay() is None, reason="no compiled kernel (no C compiler)")

DECLARED = Notation.from_table("declared", {
    "directions": {"n": "U", "s": "D", "w": "L", "e": "R"},
    "actions": {"p": "+n", "d": "-n", "f": "fill", "": "+0"},
    "separators": " ,\n",
})
# one-byte modifiers only and no bare letter (a letter alone is no token): the loop's
# two-byte shape, with a letter that must be followed by its modifier
MODIFIERS_ONLY = Notation.from_table("modifiers-only", {
    "directions": {"n": "U", "s": "D", "w": "L", "e": "R"},
    "actions": {"a": "+1", "b": "+2", "x": "-2", "y": "-1", "f": "fill", "z": "+0"},
    "separators": " ,\n",
})
ALL_NOTATIONS = [STANDARD, LRUD_XY, DECLARED, MODIFIERS_ONLY]


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
        for spec in notation.actions.values():
            amounts = range(0, 7) if spec.amount is None else [spec.amount]
            turns += [Turn(direction, spec.kind, amount) for amount in amounts]
    return turns


def random_map(rng: random.Random, heights: tuple[int, int] = (1, 5), widths: tuple[int, int] = (2, 7)) -> DesertMap:
    """A map of a height and a width drawn from these ranges, its squares mostly sand, S and E somewhere."""
    height, width = rng.randint(*heights), rng.randint(*widths)
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


def chunk_cuts(length: int) -> st.SearchStrategy[list[int]]:
    """Where to cut an output of ``length`` bytes into chunks: anywhere, in small runs, or every byte."""
    def cuts_of(sizes: list[int]) -> list[int]:
        cuts, position = [], 0
        for size in sizes * (length // max(1, sum(sizes)) + 1):
            position += size
            if position >= length:
                break
            cuts.append(position)
        return cuts
    return st.one_of(
        st.lists(st.integers(0, length), max_size=12),
        st.lists(st.integers(1, 9), min_size=1, max_size=8).map(cuts_of),
        st.just(list(range(1, length))),                      # 1-byte chunks
    )


def judge(desert: DesertMap, notation: Notation, output: bytes, cuts: list[int], fast: bool, **options):
    """The whole verdict (``Verdict.to_dict()``: status, message, detail, warnings, stats)."""
    judge = DesertJudge(desert, notation, fast=fast, **options)
    assert isinstance(judge.transcript, FastTranscript) is fast
    bounds = [0, *sorted(cuts), len(output)]
    for start, stop in pairwise(bounds):
        if judge.feed(output[start:stop]) is not None:
            break
    return judge.finish().to_dict()


# ---------------------------------------------------------------- the differential tests

@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), which=st.sampled_from(range(len(ALL_NOTATIONS))),
       deaths=st.sampled_from(["turns", "squares"]), data=st.data())
def test_kernel_and_exact_path_give_identical_verdicts(seed, which, deaths, data):
    rng = random.Random(seed)
    notation = ALL_NOTATIONS[which]
    desert = random_map(rng)
    output = random_output(desert, notation, rng)
    exact_cuts = data.draw(chunk_cuts(len(output)), label="exact path's chunk cuts")
    fast_cuts = data.draw(chunk_cuts(len(output)), label="fast path's chunk cuts")
    exact = judge(desert, notation, output, exact_cuts, fast=False, deaths=deaths)
    fast = judge(desert, notation, output, fast_cuts, fast=True, deaths=deaths)
    assert fast == exact


NOT_A_TURN = [b"?", b"x+1", b"D2-00", b"hello", b"U+", b"#"]


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), which=st.sampled_from(range(len(ALL_NOTATIONS))), data=st.data())
def test_every_chunking_gives_the_same_full_verdict_on_either_path(seed, which, data):
    """The first failure in output order, the same stats and warnings, however the output is cut:
    in one chunk, at random places, in 1-byte chunks, on the exact path and on the fast path."""
    rng = random.Random(seed)
    notation = ALL_NOTATIONS[which]
    desert = random_map(rng)
    output = random_output(desert, notation, rng)
    if rng.random() < 0.6:      # a line that is not a turn, maybe after an illegal turn in the same chunk
        lines = output.split(b"\n")
        lines.insert(rng.randrange(len(lines)), rng.choice(NOT_A_TURN))
        output = b"\n".join(lines)
    whole = judge(desert, notation, output, [], fast=False)
    every_byte = list(range(1, len(output)))
    assert judge(desert, notation, output, every_byte, fast=False) == whole
    assert judge(desert, notation, output, every_byte, fast=True) == whole
    for fast in (False, True):
        cuts = data.draw(chunk_cuts(len(output)), label=f"chunk cuts, fast={fast}")
        assert judge(desert, notation, output, cuts, fast=fast) == whole


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
    fast_cuts = data.draw(chunk_cuts(len(output)), label="fast path's chunk cuts")
    exact_cuts = data.draw(chunk_cuts(len(output)), label="exact path's chunk cuts")
    assert judge(desert, STANDARD, output, fast_cuts, True, order="map-first") == \
        judge(desert, STANDARD, output, exact_cuts, False, order="map-first")


def test_the_fast_path_keeps_the_core_reading_loop():
    """FastTranscript replaces the core's seams only: one reading loop, so the paths cannot drift."""
    from verify.contests.desert.transcript import Transcript
    replaced = {name for name in vars(FastTranscript) if name in vars(Transcript)}
    assert replaced == {"__init__", "__doc__", "__module__", "_play_turns", "_new_route", "_turn_codes"}


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


# ---------------------------------------------------------------- one source of the rules

def header_values() -> dict[str, str]:
    from verify.contests.desert.kernel_build import constants_header
    header = constants_header()
    values = dict(re.findall(r"^#define (\w+) (.+)$", header, re.M))
    values.update(re.findall(r"^static const int64_t (\w+)\[\d+\] = \{([^}]*)\};", header, re.M))
    return values


def test_the_kernel_is_compiled_with_the_engines_rules():
    values = header_values()
    assert (engine.CAPACITY, engine.TILE_LIMIT, engine.START_WATER, engine.DELTAS) == \
        (rules.CAPACITY, rules.TILE_LIMIT, rules.START_WATER, rules.DELTAS)
    assert (int(values["CAPACITY"]), int(values["TILE_LIMIT"])) == (engine.CAPACITY, engine.TILE_LIMIT)
    rows = [int(v) for v in values["DIRECTION_ROWS"].split(",")]
    cols = [int(v) for v in values["DIRECTION_COLS"].split(",")]
    directions = compile_notation(STANDARD).row(T_DIRECTION)
    for name, step in engine.DELTAS.items():
        code = directions[ord(name)]          # how the tables code the letter: 1 + its index
        assert (rows[code - 1], cols[code - 1]) == step, name


def test_every_constant_of_the_c_loop_comes_from_the_header():
    """kernel.c writes no rule's number itself: each upper-case name it uses is in the header
    that kernel_build writes from rules.py and kernel_tables.py (or is the C file's own NEWLINE)."""
    from verify.contests.desert import kernel_build
    source = kernel_build.SOURCE.read_text()
    code = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    used = set(re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", code)) - {"NEWLINE"}
    assert used and used <= set(header_values()), used - set(header_values())


def test_a_changed_rule_or_loop_builds_another_library(monkeypatch):
    from verify.contests.desert import kernel_build
    before = kernel_build.library_folder("/usr/bin/cc")
    monkeypatch.setattr(rules, "CAPACITY", rules.CAPACITY + 1)
    assert kernel_build.library_folder("/usr/bin/cc") != before
    monkeypatch.undo()
    assert kernel_build.library_folder("/usr/bin/cc") == before
    assert kernel_build.library_folder("/usr/bin/clang") != before


LETTERS = {"U": "n", "D": "s", "L": "w", "R": "e"}       # DECLARED's letters
any_turn = st.one_of(
    st.builds(Turn, st.sampled_from("UDLR"), st.sampled_from([PICK, DROP]), st.integers(0, 9)),
    st.builds(Turn, st.sampled_from("UDLR"), st.just(FILL), st.just(0)),
)


def declared(turn: Turn) -> bytes:
    direction, action, amount = turn
    modifier = "f" if action == FILL else f"{'p' if action == PICK else 'd'}{amount}"
    return f"{LETTERS[direction]}{modifier}\n".encode()


@settings(deadline=None, max_examples=300)
@given(seed=st.integers(0, 2**32 - 1), turns=st.lists(any_turn, min_size=1, max_size=14))
def test_kernel_and_engine_agree_turn_by_turn(seed, turns):
    """The compiled loop plays exactly the turns the engine plays (but for a winning one, which it
    leaves to the exact path), stops for the same reason, and leaves the same state."""
    desert = random_map(random.Random(seed))
    reason, state, _, water, visited = replay_from_start(compiled_replay(), desert,
                                                         b"".join(map(declared, turns)), DECLARED)
    game = Crossing(desert)
    expected = R_CHUNK_END
    for turn in turns:
        try:
            game.push(turn)
        except IllegalTurn as refused:
            expected = R_OFF_GRID if isinstance(refused, OffGrid) else R_ILLEGAL
            break
        if game.outcome is not Outcome.ALIVE:
            expected = R_WIN if game.outcome is Outcome.WON else R_DEATH
            break
    assert reason == expected
    played = game.turns - (game.outcome is Outcome.WON)
    assert state[S_TURNS] == played
    replayed = Crossing(desert)
    replayed.play(turns[:played])
    assert (state[S_POSITION], state[S_CARRIED], state[S_DRAWN]) == \
        (replayed.row * desert.width + replayed.col, replayed.carried, replayed.drawn)
    assert bytes(water) == bytes(replayed.water)
    assert bytes(visited) == bytes(replayed.visited)


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
    exact = judge(desert, STANDARD, output, cuts, False)
    assert fast == exact
    assert fast["status"] == Status.WRONG.value       # the walk ends alive: not over


# ---------------------------------------------------------------- loading

def replay_from_start(replay, desert: DesertMap, output: bytes, notation: Notation = STANDARD):
    """One call of a compiled loop on ``output`` from the start of an attempt: (stop reason,
    state, digest, water, visited), as lists."""
    compiled = compile_notation(notation)
    state = State()
    start = Crossing(desert)
    state[S_POSITION] = start.row * desert.width + start.col
    state[S_CARRIED], state[S_DRAWN] = start.carried, start.drawn
    digest = Digest()
    water, visited = bytearray(start.water), bytearray(start.visited)
    params = list(compiled.params)
    params[P_WIDTH], params[P_HEIGHT] = desert.width, desert.height
    params[P_START] = desert.start[0] * desert.width + desert.start[1]
    params[P_END] = desert.end[0] * desert.width + desert.end[1]
    reason = replay(output, 0, len(output), True, compiled.tables, Params(*params),
                    byte_view(water), byte_view(visited), state, digest)
    return reason, state[:], digest[:], list(water), list(visited)


def test_the_loop_stops_just_after_a_dying_turn():
    desert = DesertMap.parse("S.3......\n.........\n........E\n")
    output = b"R+0\nR+2\nL-1\nR+0\nR+0\nD+0\nU+0\nD+1\n" * 3
    reason, state = replay_from_start(compiled_replay(), desert, output)[:2]
    assert reason == R_DEATH and state[S_TURNS] == 6      # stops after the dying 6th turn (D+0)


def test_a_library_changed_behind_verifys_back_is_rebuilt_not_loaded(tmp_path, monkeypatch):
    from verify.contests.desert import kernel_build
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path))
    library = kernel_build.build_library()
    assert library is not None and library.is_relative_to(tmp_path)
    built = library.read_bytes()
    library.chmod(0o644)
    library.write_bytes(built[:-1] + bytes([built[-1] ^ 1]))     # one bit flipped
    assert kernel_build.build_library() == library
    assert library.read_bytes() == built


def test_nothing_is_written_inside_the_package(tmp_path, monkeypatch):
    from verify.contests.desert import kernel_build
    folder = kernel_build.SOURCE.parent

    def files() -> list[str]:           # all but Python's own bytecode
        return sorted(str(path) for path in folder.rglob("*") if path.suffix != ".pyc")

    before = files()
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path))
    assert kernel_build.build_library() is not None
    assert files() == before


def test_without_a_c_compiler_the_exact_path_judges(tmp_path, monkeypatch):
    from verify.contests.desert import kernel, kernel_build
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path))
    monkeypatch.setattr(kernel_build, "compiler_path", lambda: None)
    kernel.compiled_replay.cache_clear()
    try:
        judge_ = DesertJudge(DesertMap.parse("S..E\n"))
        assert not isinstance(judge_.transcript, FastTranscript)
        judge_.feed(b"R+0\nR+0\nR+0\nS##E\n")
        assert judge_.finish().accepted
        assert not (tmp_path / kernel_build.FOLDER).exists()
    finally:
        kernel.compiled_replay.cache_clear()


def test_without_a_kernel_the_exact_path_judges(monkeypatch):
    from verify.contests.desert import kernel
    monkeypatch.setenv("VERIFY_DESERT_KERNEL", "0")
    kernel.compiled_replay.cache_clear()
    try:
        judge_ = DesertJudge(DesertMap.parse("S..E\n"))
        assert not isinstance(judge_.transcript, FastTranscript)
        judge_.feed(b"R+0\nR+0\nR+0\nS##E\n")
        assert judge_.finish().accepted
    finally:
        monkeypatch.delenv("VERIFY_DESERT_KERNEL")
        kernel.compiled_replay.cache_clear()


def test_line_and_column_after_a_long_stretch_read_by_the_kernel():
    desert = DesertMap.parse("S.........\n.9.......E\n")
    output = b"R+0\nL+2\n" * 3000 + b"R+0 L+2 R+0\tL+2\n" * 50 + b"R+0 L+2 Rx0\n"
    for cuts in ([], list(range(7, len(output), 4093)), list(range(1, len(output), 1009))):
        fast = judge(desert, STANDARD, output, cuts, True)
        assert fast == judge(desert, STANDARD, output, cuts, False)
        assert fast["message"].startswith("output line 6051, column 9: expected a turn")


def test_a_huge_amount_is_an_illegal_turn_on_either_path_not_a_crash():
    desert = DesertMap.parse("S..\n..E\n")
    for output in (b"D+37298464\n", b"R+0\nD-99999999999999999999\n", b"D+16\nR+0\n"):
        exact = judge_bytes(desert, output, fast=False)
        assert not exact.accepted
        assert judge_bytes(desert, output, fast=True).to_dict() == exact.to_dict()


def test_a_cache_that_cannot_be_written_leaves_the_exact_path(tmp_path, monkeypatch):
    from verify.contests.desert import kernel, kernel_build
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache should be")
    monkeypatch.setenv("VERIFY_CACHE", str(blocked))
    assert kernel_build.build_library() is None
    kernel.compiled_replay.cache_clear()
    try:
        judge_ = DesertJudge(DesertMap.parse("S..E\n"))
        assert not isinstance(judge_.transcript, FastTranscript)
        judge_.feed(b"R+0\nR+0\nR+0\nS##E\n")
        assert judge_.finish().accepted
    finally:
        kernel.compiled_replay.cache_clear()
