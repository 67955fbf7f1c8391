"""The rules engine, read like the spec: order of a turn, limits, outcome, final map."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.desert.engine import (
    DROP,
    FILL,
    PICK,
    CarryOverFive,
    Crossing,
    DropExceedsCarried,
    GameOver,
    IllegalTurn,
    OffGrid,
    Outcome,
    PickupExceedsTile,
    TileOverNine,
    Turn,
)
from verify.contests.desert.map import DesertMap

SPEC_EXAMPLE = DesertMap.parse(".....S.\n.......\n.......\nE......\n....8..\n")
SPEC_WIN = "D+0 D+0 D+0 D+0 L+5 L+0 L+0 L+0 L+0 U+0".split()
SPEC_FINAL_MAP = ".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n"


def turn(text: str) -> Turn:
    if text.endswith("*"):
        return Turn(text[0], FILL, 0)
    return Turn(text[0], PICK if text[1] == "+" else DROP, int(text[2:]))


def play(desert, texts, attempt=1):
    game = Crossing(desert, attempt)
    for text in texts:
        game.push(turn(text))
    return game


def test_worked_example_wins_and_renders_the_final_map():
    game = play(SPEC_EXAMPLE, SPEC_WIN)
    assert game.outcome is Outcome.WON and game.carried == 0 and game.turns == 10
    assert game.render() == SPEC_FINAL_MAP


def test_turn_five_arrives_on_the_eight_with_one_unit_consumes_it_and_picks_up_five():
    game = play(SPEC_EXAMPLE, SPEC_WIN[:4])
    assert game.carried == 1
    game.push(turn("L+5"))
    assert game.carried == 5 and game.tile(4, 4) == 3 and game.outcome is Outcome.ALIVE


def test_death_is_checked_after_the_water_action():
    desert = DesertMap.parse("S.1...E\n")
    game = play(desert, ["R+0", "R+0", "L+0", "R+0"])
    assert game.carried == 1 and game.outcome is Outcome.ALIVE
    game.push(turn("R+0"))            # arrives on '.' with 0: dead
    assert game.outcome is Outcome.DEAD and game.ended_on == 5


def test_arriving_with_nothing_and_picking_up_survives():
    desert = DesertMap.parse("S..1..E\n")
    game = play(desert, ["R+0", "R+0", "R+0", "L+0", "R+1"])
    assert game.carried == 1 and game.outcome is Outcome.ALIVE and game.tile(0, 3) == 0
    game = play(desert, ["R+0", "R+0", "R+0", "L+0", "R+0"])
    assert game.carried == 0 and game.outcome is Outcome.DEAD


def test_reaching_e_with_the_last_unit_wins():
    game = play(DesertMap.parse("S....E\n"), ["R+0"] * 5)
    assert game.outcome is Outcome.WON and game.carried == 0


def test_action_on_the_winning_turn_is_not_applied_but_warned():
    game = play(DesertMap.parse("SE\n"), ["R-3"])
    assert game.outcome is Outcome.WON and game.carried == 4
    assert game.warnings == ["attempt 1, turn 1 at (0,1): the water action 'drop 3' of the winning turn is not applied"]
    assert play(DesertMap.parse("SE\n"), ["R+0"]).warnings == []


def test_s_is_infinite_and_dropping_there_returns_water_to_the_well():
    desert = DesertMap.parse(".S..E\n")
    game = play(desert, ["R+0", "L+1", "R+0", "L+2", "R+0", "L-1"])
    assert game.carried == 1 and game.drawn == 5 + 2  # started with 5, picked 1 + 2, dropped 1
    assert game.render() == ".S#.E\n"


def test_fill_takes_what_is_missing_on_s_and_what_the_tile_has_elsewhere():
    desert = DesertMap.parse("S2..E\n")
    game = play(desert, ["R*"])
    assert (game.carried, game.tile(0, 1)) == (5, 1)
    game = play(desert, ["R+0", "R+0", "L*"])  # 2 carried, 3 missing, the tile has 2: takes 2
    assert (game.carried, game.tile(0, 1)) == (4, 0)
    game = play(desert, ["R+0", "R+0", "R*"])  # on '.', fill takes nothing, never fails
    assert game.carried == 2
    game = play(desert, ["R+0", "L*"])
    assert game.carried == 5 and game.drawn == 5 + 2


@pytest.mark.parametrize("text, moves, error, message", [
    ("S2.6..E\n", ["U+0"], OffGrid, "attempt 1, turn 1 at (0,0): moving U would leave the grid"),
    ("S2.6..E\n", ["R+0", "R+0", "D+0"], OffGrid, "attempt 1, turn 3 at (0,2): moving D would leave the grid"),
    ("S2.6..E\n", ["R+3"], PickupExceedsTile, "attempt 1, turn 1 at (0,1): pick up 3 but the tile holds 2 units"),
    ("S2.6..E\n", ["R+0", "R+1"], PickupExceedsTile,
     "attempt 1, turn 2 at (0,2): pick up 1 but the tile holds no water"),
    ("S2.6..E\n", ["R+2"], CarryOverFive, "attempt 1, turn 1 at (0,1): pick up 2 would make 6 units carried (at most 5)"),
    ("S2.6..E\n", ["R+0", "L+3"], CarryOverFive,
     "attempt 1, turn 2 at (0,0): pick up 3 would make 6 units carried (at most 5)"),
    ("S2.6..E\n", ["R-5"], DropExceedsCarried, "attempt 1, turn 1 at (0,1): drop 5 but only 4 units carried"),
    ("S8....E\n", ["R+0", "R+0", "L-2"], TileOverNine,
     "attempt 1, turn 3 at (0,1): drop 2 would leave 10 units on the tile (at most 9)"),
    ("S......E\n", ["R+0", "R+0", "R+0", "L+0", "R+0", "R+0"], GameOver,
     "attempt 1, turn 6 at (0,3): the traveller died on turn 5; no turn may follow"),
])
def test_each_rule_has_its_own_error_naming_attempt_turn_square_and_numbers(text, moves, error, message):
    game = Crossing(DesertMap.parse(text))
    for move in moves[:-1]:
        game.push(turn(move))
    with pytest.raises(error) as caught:
        game.push(turn(moves[-1]))
    assert isinstance(caught.value, IllegalTurn)
    assert str(caught.value) == message


def test_a_refused_turn_names_its_attempt_turn_square_and_numbers():
    desert = DesertMap.parse("......\n......\n.....8\nS....E\n")
    game = Crossing.from_state(desert, position=(2, 4), carried=3, water=desert.flat_water(),
                               visited=[(2, 4)], turns=16, attempt=3)
    with pytest.raises(TileOverNine) as caught:
        game.push(Turn("R", DROP, 2))
    assert str(caught.value) == "attempt 3, turn 17 at (2,5): drop 2 would leave 10 units on the tile (at most 9)"
    assert (caught.value.tile, caught.value.turn, caught.value.square) == (8, 17, (2, 5))


def test_turn_after_a_win_is_refused():
    game = play(DesertMap.parse("SE.\n"), ["R+0"])
    with pytest.raises(GameOver, match=r"turn 2 at \(0,1\): the traveller reached E on turn 1; no turn may follow"):
        game.push(turn("R+0"))


def test_a_refused_turn_changes_nothing():
    desert = DesertMap.parse("S2.6..E\n")
    game = play(desert, ["R+1"])
    before = (game.position, game.carried, bytes(game.water), bytes(game.visited), game.turns, game.drawn)
    with pytest.raises(PickupExceedsTile):
        game.play([turn("R+0"), turn("R+0"), turn("L+1")])
    # the legal turns before the refused one stay played, the refused one changes nothing
    assert game.turns == 3 and game.position == (0, 3) and game.carried == 3
    game2 = play(desert, ["R+1"])
    with pytest.raises(CarryOverFive):
        game2.push(turn("L+2"))
    assert before == (game2.position, game2.carried, bytes(game2.water), bytes(game2.visited), game2.turns,
                      game2.drawn)


def test_from_state_continues_exactly_like_the_original():
    desert = DesertMap.parse("S....\n..5..\n....E\n")
    moves = ["R+0", "R+0", "D+3", "L+0", "R+1", "R+0"]
    whole = play(desert, moves)
    half = play(desert, moves[:3])
    resumed = Crossing.from_state(desert, position=half.position, carried=half.carried, water=half.water,
                                  visited=half.visited, turns=half.turns)
    for text in moves[3:]:
        resumed.push(turn(text))
    assert resumed.render() == whole.render()
    assert (resumed.carried, resumed.drawn, resumed.consumed, resumed.turns) == \
        (whole.carried, whole.drawn, whole.consumed, whole.turns)


# ---------------------------------------------------------------- properties

maps = st.builds(
    lambda width, height, cells, s, e: _make_map(width, height, cells, s, e),
    st.integers(1, 5), st.integers(1, 5),
    st.lists(st.integers(0, 9), min_size=25, max_size=25), st.integers(0, 24), st.integers(0, 24))


def _make_map(width, height, cells, s, e):
    size = width * height
    if size < 2:
        width, size = 2, 2 * height
    s, e = s % size, e % size
    if s == e:
        e = (s + 1) % size
    chars = ["." if not cells[i % 25] else str(cells[i % 25]) for i in range(size)]
    chars[s], chars[e] = "S", "E"
    return DesertMap.parse("".join("".join(chars[r * width:(r + 1) * width]) + "\n" for r in range(size // width)))


turns = st.lists(st.tuples(st.sampled_from("UDLR"), st.sampled_from([PICK, DROP, FILL]), st.integers(0, 6)),
                 max_size=60)


@settings(deadline=None, max_examples=300)
@given(maps, turns)
def test_accepted_turns_keep_the_invariants_and_conserve_water(desert, attempts):
    game = Crossing(desert)
    initial = sum(desert.flat_water())
    for direction, action, amount in attempts:
        try:
            game.push(Turn(direction, action, amount))
        except IllegalTurn:
            continue
        assert 0 <= game.carried <= 5
        assert all(0 <= units <= 9 for units in game.water)
        assert game.water[desert.start[0] * desert.width + desert.start[1]] == 0
        assert initial + game.drawn == game.carried + sum(game.water) + game.consumed
        assert game.consumed == game.turns
        if game.outcome is Outcome.DEAD:
            assert game.carried == 0 and game.position != desert.end
        rendered = game.render()
        assert len(rendered) == (desert.width + 1) * desert.height
        assert game.render_bytes() == rendered.encode()


@settings(deadline=None, max_examples=100)
@given(maps, turns)
def test_batch_play_and_push_agree(desert, attempts):
    moves = [Turn(*t) for t in attempts]
    one_by_one, batch = Crossing(desert), Crossing(desert)
    first_error = None
    for move in moves:
        try:
            one_by_one.push(move)
        except IllegalTurn as error:
            first_error = str(error)
            break
    try:
        batch.play(moves)
    except IllegalTurn as error:
        assert str(error) == first_error
    else:
        assert first_error is None
    assert one_by_one.render() == batch.render() and one_by_one.carried == batch.carried
