"""The judge, failure by failure: each hand-made output triggers exactly one reason."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify import Status
from verify.contests.desert.judge import DesertJudge, judge_bytes
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import LRUD_XY, Notation

SPEC_MAP = DesertMap.parse(".....S.\n.......\n.......\nE......\n....8..\n")
SPEC_MOVES = b"D+0\nD+0\nD+0\nD+0\nL+5\nL+0\nL+0\nL+0\nL+0\nU+0\n"
SPEC_FINAL = b".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n"
SPEC_OUTPUT = SPEC_MOVES + SPEC_FINAL
DEATH = b"D+0\nD+0\nD+0\nD+0\nL+0\n"
DEATH_MAP = b".....S.\n.....#.\n.....#.\nE....#.\n....8#.\n"


def test_worked_example_is_accepted():
    verdict = judge_bytes(SPEC_MAP, SPEC_OUTPUT)
    assert verdict.status is Status.ACCEPTED, verdict.message
    assert verdict.stats == {"attempts": 1, "deaths": 0, "winning_turns": 10, "total_turns": 10}
    assert verdict.warnings == []


@pytest.mark.parametrize("variant", [
    SPEC_OUTPUT.replace(b"\n", b"\r\n"),                       # Windows line endings
    SPEC_OUTPUT[:-1],                                           # no newline after the last map row
    b"  D+0 \n\tD+0\n\nD+0 D+0\n" + SPEC_MOVES[16:] + b"\n" + SPEC_FINAL.replace(b"S.\n", b"S.  \n") + b"\n\n",
])
def test_whitespace_tolerance(variant):
    verdict = judge_bytes(SPEC_MAP, variant, chunk_size=3)
    assert verdict.accepted, verdict.message


def test_a_death_then_the_win_is_accepted():
    verdict = judge_bytes(SPEC_MAP, DEATH + DEATH_MAP + SPEC_OUTPUT)
    assert verdict.accepted, verdict.message
    assert verdict.stats == {"attempts": 2, "deaths": 1, "winning_turns": 10, "total_turns": 15}


def test_illegal_turn_names_attempt_turn_square_and_where_it_is_written():
    output = DEATH + DEATH_MAP + SPEC_OUTPUT.replace(b"L+5", b"L+9")
    verdict = judge_bytes(SPEC_MAP, output)
    assert verdict.status is Status.WRONG
    assert verdict.message == "attempt 2, turn 5 at (4,4): pick up 9 but the tile holds 8 units"
    assert verdict.detail == "the turn is written at output line 15, column 1"


def test_wrong_final_map_names_the_first_differing_square_and_shows_both_maps():
    verdict = judge_bytes(SPEC_MAP, SPEC_MOVES + SPEC_FINAL.replace(b"####3#.", b"###.3#."))
    assert verdict.status is Status.WRONG
    assert verdict.message == ("attempt 1: the final map (output line 11) differs at (4,3): "
                               "expected '#', printed '.'")
    assert verdict.detail.splitlines() == [
        "expected   printed",
        ".....S.    .....S.",
        ".....#.    .....#.",
        ".....#.    .....#.",
        "E....#.    E....#.",
        "####3#.    ###.3#.  <- first difference",
    ]


def test_an_attempt_that_ends_alive_off_e_is_rejected():
    verdict = judge_bytes(SPEC_MAP, b"D+0\nD+0\n.....S.\n.....#.\n.....#.\nE......\n....8..\n")
    assert verdict.status is Status.WRONG
    assert verdict.message == ("attempt 1 ends after turn 2 at (2,5) carrying 3 units: "
                               "the traveller is neither dead nor on E")


def test_a_turn_after_the_death_is_rejected():
    verdict = judge_bytes(SPEC_MAP, DEATH + b"L+0\n" + DEATH_MAP)
    assert verdict.message == "attempt 1, turn 6 at (4,4): the traveller died on turn 5; no turn may follow"
    assert verdict.detail == "the turn is written at output line 6, column 1"


def test_a_turn_after_the_win_is_rejected():
    verdict = judge_bytes(SPEC_MAP, SPEC_MOVES + b"R+0\n" + SPEC_FINAL)
    assert verdict.message == "attempt 1, turn 11 at (3,0): the traveller reached E on turn 10; no turn may follow"


def test_output_after_the_winning_attempt_is_rejected():
    verdict = judge_bytes(SPEC_MAP, SPEC_OUTPUT + b"\n" + DEATH + DEATH_MAP)
    assert verdict.status is Status.WRONG
    assert verdict.message == "output line 17, column 1: the output goes on after the winning attempt 1"


def test_a_repeated_death_names_the_earlier_attempt():
    verdict = judge_bytes(SPEC_MAP, DEATH + DEATH_MAP + b"D+0\nD+0\nR+0\nL+0\nL+0\n.....S.\n.....#.\n....###\nE......\n....8..\n"
                          + DEATH + DEATH_MAP + SPEC_OUTPUT)
    assert verdict.status is Status.WRONG
    assert verdict.message == ("attempt 3 dies on turn 5 at (4,4) and repeats the turns of attempt 1, "
                               "which died the same way: every death must take a different route")


def test_deaths_by_the_same_squares_count_as_repeats_only_with_the_squares_option():
    once = b"D+0\nU+0\nD+0\nU+0\nD+0\n"       # dies on turn 5 at (1,5)
    again = b"D-1\nU+0\nD+1\nU+0\nD+0\n"      # same squares, other water actions
    dead_map = b".....S.\n.....#.\n.......\nE......\n....8..\n"
    output = once + dead_map + again + dead_map + SPEC_OUTPUT
    assert judge_bytes(SPEC_MAP, output).accepted
    verdict = judge_bytes(SPEC_MAP, output, deaths="squares")
    assert verdict.message.startswith("attempt 2 dies on turn 5 at (1,5) and visits the same squares as attempt 1")


def test_output_ending_without_a_win():
    verdict = judge_bytes(SPEC_MAP, DEATH + DEATH_MAP)
    assert verdict.message == "the output ends with no winning attempt (1 attempt, 1 death)"
    assert judge_bytes(SPEC_MAP, b"").message == "the output ends with no winning attempt: no attempt at all"
    assert judge_bytes(SPEC_MAP, SPEC_MOVES).message == \
        "attempt 1: the output ends after its moves (turn 10) without its final map"


def test_text_that_is_neither_moves_nor_map_is_a_presentation_error_with_its_position():
    verdict = judge_bytes(SPEC_MAP, b"D+0\nD+0\n  you die\n")
    assert verdict.status is Status.PRESENTATION
    assert verdict.message.startswith("output line 3, column 3: expected a turn in notation 'standard'")
    assert verdict.message.endswith("found 'you die'")
    verdict = judge_bytes(SPEC_MAP, DEATH + b".....S.\n.....#.\n.....x.\n")
    assert verdict.message == "output line 8, column 6: 'x' in a map row (expected one of SE1-9.#)"
    verdict = judge_bytes(SPEC_MAP, DEATH + b".....S.\n.....#.\nD+0\n")
    assert verdict.message == "output line 8, column 1: the map block of line 6 has 2 rows, expected 5"
    verdict = judge_bytes(SPEC_MAP, DEATH + b".....S..\n")
    assert verdict.message == "output line 6, column 8: a map row has 7 characters, this one has 8"
    verdict = judge_bytes(SPEC_MAP, DEATH + b"....S..\n")
    assert verdict.message.startswith("output line 6, column 5: row 0 of the map block of line 6 has 'S' "
                                      "where the input has '.'")


def test_map_first_order_is_a_presentation_error_unless_declared():
    output = DEATH_MAP + DEATH + SPEC_FINAL + SPEC_MOVES
    verdict = judge_bytes(SPEC_MAP, output)
    assert verdict.status is Status.PRESENTATION
    assert verdict.message.startswith("output line 1: attempt 1 prints a map before any move; in order moves-first")
    verdict = judge_bytes(SPEC_MAP, output, order="map-first")
    assert verdict.accepted, verdict.message
    assert verdict.stats["deaths"] == 1
    wrong = judge_bytes(SPEC_MAP, DEATH_MAP + DEATH + DEATH_MAP + SPEC_MOVES, order="map-first")
    assert wrong.message == "attempt 2: the final map (output line 11) differs at (4,0): expected '#', printed '.'"
    assert judge_bytes(SPEC_MAP, SPEC_MOVES, order="map-first").message == \
        "output line 1, column 1: moves before any map (in order map-first each attempt begins with its final map)"


def test_an_action_on_the_winning_turn_is_a_warning():
    verdict = judge_bytes(SPEC_MAP, SPEC_OUTPUT.replace(b"U+0\n", b"U-1\n"))
    assert verdict.accepted
    assert verdict.warnings == ["attempt 1, turn 10 at (3,0): the water action 'drop 1' of the winning turn is not applied"]


def test_the_spec_custom_notation_end_to_end():
    desert = DesertMap.parse("S1111E\n")
    # a lone space first (starts full); R X: drop 2 on the 1 (3 there); L Y: back on S, drop 1: dead with 0
    death = b" RXLY\nS3111E\n"
    # R + space: fill up from the tile; bare letters pick up 1 each; the winning R's pick-up is not applied
    win = b"R RRRR\nS####E\n"
    verdict = judge_bytes(desert, death + win, notation=LRUD_XY)
    assert verdict.accepted, verdict.message
    assert verdict.stats["deaths"] == 1 and verdict.stats["winning_turns"] == 5
    assert verdict.warnings == ["attempt 2, turn 5 at (0,5): the water action 'pick up 1' of the winning turn is not applied"]
    bad = judge_bytes(desert, b"RRZ\n", notation=LRUD_XY)
    assert bad.status is Status.PRESENTATION and bad.message.startswith("output line 1, column 3: expected a turn in notation 'lrud-xy'")
    illegal = judge_bytes(DesertMap.parse("S..E\n"), b"R\n", notation=LRUD_XY)
    assert illegal.message == "attempt 1, turn 1 at (0,1): pick up 1 but the tile holds no water"


def test_in_the_spec_custom_notation_a_letter_and_a_space_is_the_plain_move_on_empty_tiles():
    desert = DesertMap.parse("S..E\n")
    plain = judge_bytes(desert, b"R R R \nS##E\n", notation=LRUD_XY)
    assert plain.accepted and plain.stats["winning_turns"] == 3
    bare = judge_bytes(desert, b"RRR\nS##E\n", notation=LRUD_XY)
    assert bare.message == "attempt 1, turn 1 at (0,1): pick up 1 but the tile holds no water"


@pytest.mark.parametrize("output, status", [
    (b"\x00\x00\x00", Status.PRESENTATION),
    (b"\xff\xfe garbage\n", Status.PRESENTATION),
    (b"D+0" * 200000, Status.WRONG),                # one huge line of legal-looking turns: off the grid
    (b"." * 300000, Status.PRESENTATION),           # a huge line that starts like a map row
    (b"#" * 7 + b"\n", Status.PRESENTATION),
    (b"\n\n\n   \n", Status.WRONG),                # blank output: no win
    (b"D+" + b"0" * 100000 + b"\n", Status.PRESENTATION),
])
def test_hostile_outputs_get_one_verdict(output, status):
    verdict = judge_bytes(SPEC_MAP, output, chunk_size=4096)
    assert verdict.status is status
    assert "\n" not in verdict.message and len(verdict.message) < 300


OUTPUTS = [DEATH + DEATH_MAP + SPEC_OUTPUT, SPEC_OUTPUT.replace(b"####3", b"####4"),
           DEATH + b"L+0\n" + DEATH_MAP, DEATH + b" x\n", DEATH + DEATH_MAP + DEATH + DEATH_MAP]


@settings(deadline=None, max_examples=60)
@given(st.sampled_from(OUTPUTS), st.lists(st.integers(1, 40), min_size=1, max_size=40))
def test_the_verdict_does_not_depend_on_chunk_boundaries(output, sizes):
    whole = judge_bytes(SPEC_MAP, output)
    judge = DesertJudge(SPEC_MAP)
    position, index = 0, 0
    while position < len(output):
        size = sizes[index % len(sizes)]
        judge.feed(output[position:position + size])
        position, index = position + size, index + 1
    verdict = judge.finish()
    assert (verdict.status, verdict.message, verdict.detail) == (whole.status, whole.message, whole.detail)


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("chunk_size", [1, 3, 4, 1 << 16])
def test_the_first_failure_in_output_order_wins_whatever_the_chunks(fast, chunk_size):
    desert = DesertMap.parse("89E5.S\n")
    # an illegal turn on line 1, text that is not a turn on line 2: line 1 is the failure
    verdict = judge_bytes(desert, b"U-3\nD2-00\nL+0\n", chunk_size=chunk_size, fast=fast)
    assert verdict.message == "attempt 1, turn 1 at (0,5): moving U would leave the grid"
    assert verdict.detail == "the turn is written at output line 1, column 1"
    # the turns written before unreadable text are played (and counted) first
    verdict = judge_bytes(desert, b"L+0\nL+0 L+0 xx\nL+0\n", chunk_size=chunk_size, fast=fast)
    assert verdict.message.startswith("output line 2, column 9: expected a turn")
    assert verdict.stats["total_turns"] == 3
    verdict = judge_bytes(desert, b"L+0\nL+0 R+7 xx\n", chunk_size=chunk_size, fast=fast)
    assert verdict.message == "attempt 1, turn 3 at (0,4): pick up 7 but the tile holds no water"


@pytest.mark.parametrize("chunk_size", [1, 3, 100])
def test_a_separator_that_is_a_map_character_does_not_hide_a_map_row(chunk_size):
    dots = Notation.from_table("dots", {"directions": "UDLR", "actions": {"+": "+n", "-": "-n"},
                                        "separators": " .\n"})
    desert = DesertMap.parse(".S.E\n")
    verdict = judge_bytes(desert, b"\n.S#E\nR+0.R+0\n", chunk_size=chunk_size, notation=dots, order="map-first")
    assert verdict.accepted, verdict.message
    verdict = judge_bytes(desert, b"R+0. R+0\n.S#E\n", chunk_size=chunk_size, notation=dots)
    assert verdict.accepted, verdict.message
    verdict = judge_bytes(desert, b"\n.S.E\n", chunk_size=chunk_size, notation=dots)
    assert verdict.message.startswith("output line 2: attempt 1 prints a map before any move")


@settings(deadline=None, max_examples=30)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=20))
def test_custom_notation_chunking(sizes):
    desert = DesertMap.parse("S1111E\n")
    output = b" RXLY\nS3111E\nR RRRR\nS####E\n"
    judge = DesertJudge(desert, notation=LRUD_XY)
    position, index = 0, 0
    while position < len(output):
        judge.feed(output[position:position + sizes[index % len(sizes)]])
        position, index = position + sizes[index % len(sizes)], index + 1
    assert judge.finish().accepted


# ---------------------------------------------------------------- end to end against the engine

def _random_attempt(desert, moves):
    """Play random turns until the attempt ends (or a turn is refused): the text an honest entry would print."""
    from verify.contests.desert.engine import Crossing, IllegalTurn, Outcome, Turn
    game, written = Crossing(desert), []
    for direction, action, amount in moves:
        turn = Turn(direction, action, amount)
        try:
            game.push(turn)
        except IllegalTurn:
            continue
        written.append(f"{direction}{'-' if action == 'drop' else '+'}{amount}\n")
        if game.outcome is not Outcome.ALIVE:
            break
    return game, "".join(written).encode() + game.render_bytes()


@settings(deadline=None, max_examples=80)
@given(st.sampled_from(["S.1..2\n..9...\n8....E\n", "S5555E\n", "E\n.\n3\nS\n", "...\n.S.\n.2E\n"]),
       st.lists(st.tuples(st.sampled_from("UDLR"), st.sampled_from(["pick", "drop"]), st.integers(0, 3)),
                max_size=80))
def test_any_honest_transcript_of_an_ended_attempt_is_judged_by_its_outcome(text, moves):
    desert = DesertMap.parse(text)
    game, output = _random_attempt(desert, moves)
    verdict = judge_bytes(desert, output, chunk_size=7)
    if game.outcome.value == "won":
        assert verdict.accepted, verdict.message
        assert verdict.stats["winning_turns"] == game.turns
    elif game.outcome.value == "dead":
        assert verdict.message == "the output ends with no winning attempt (1 attempt, 1 death)"
    elif game.turns == 0:
        assert verdict.status is Status.PRESENTATION    # a map with no moves before it
    else:
        row, col = game.position
        assert verdict.message.startswith(f"attempt 1 ends after turn {game.turns} at ({row},{col})")
