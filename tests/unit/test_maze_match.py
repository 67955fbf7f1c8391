"""One walk: answers, failed steps, the step limit and the scores (no process is run)."""
import pytest

from verify.contests.maze.match import (
    BadAnswer,
    Match,
    Reply,
    architect_score,
    parse_answer,
    solver_score,
    step_limit,
)
from verify.contests.maze.model import ANY_SIZE, Maze, parse_maze

SPEC_5X5 = parse_maze("5\n4 2\n0 2\n00001011101110001100\n10100110000100010010\n", ANY_SIZE)
SHORTEST = SPEC_5X5.shortest_path()


def walker(path):
    """A reply function following ``path`` (the cells after the start)."""
    moves = iter(path[1:])
    return lambda state: Reply(" ".join(map(str, next(moves))))


def test_score_formula_hand_computed():
    # spec 5x5: Manhattan 4, 16 walls -> denominator 16; 14 steps on the shortest path
    assert architect_score(SPEC_5X5, 14) == 14 / 16
    assert solver_score(SPEC_5X5, 14) == 16 / 14
    # a wall-less 4x4 maze corner to corner: 0 walls, Manhattan 6 -> denominator 6
    open_maze = Maze(4, (0, 0), (3, 3), "0" * 12, "0" * 12)
    assert open_maze.score_denominator == 6
    assert architect_score(open_maze, 6) == 1.0 and solver_score(open_maze, 9) == 6 / 9


def test_shortest_walk_arrives_with_its_length():
    result = Match(SPEC_5X5).play(walker(SHORTEST))
    assert result.arrived and result.steps == 14 and result.failed_steps == 0
    assert result.architect_score == pytest.approx(14 / 16)
    assert result.solver_score == pytest.approx(16 / 14)


@pytest.mark.parametrize("line, problem", [
    ("4 3", "is not one of the valid moves 4 1"),      # through a wall
    ("3 2", "is not one of the valid moves"),          # through a wall (up)
    ("4,1", "is not 'row column'"),
    ("left", "is not 'row column'"),
    ("", "is not 'row column'"),
    ("4 1 0", "is not 'row column'"),
    ("-4 1", "is not 'row column'"),
])
def test_bad_answers_are_named(line, problem):
    with pytest.raises(BadAnswer, match=problem):
        parse_answer(line, SPEC_5X5.moves_from((4, 2)))


def test_blanks_and_cr_around_an_answer_are_fine():
    assert parse_answer("  4\t1 \r", [(4, 1)]) == (4, 1)


def test_failed_step_stays_counts_and_is_recorded():
    match = Match(SPEC_5X5)
    record = match.apply(Reply("9 9"))
    assert record.failure and "not one of the valid moves" in record.failure
    assert (match.position, match.steps, match.failed_steps) == ((4, 2), 1, 1)
    record = match.apply(Reply(failure="timeout"))
    assert record.failure == "timeout" and record.at == (4, 2) and match.steps == 2
    assert match.apply(Reply("4 1")).failure is None
    assert match.position == (4, 1) and match.failures_in_a_row == 0
    assert record.to_json() == {"type": "step", "n": 2, "at": [4, 2], "failure": "timeout"}


def test_step_limit_charges_size_cubed():
    assert step_limit(5) == 125 and step_limit(15) == 3375
    log = []
    back_and_forth = iter(["4 1", "4 2"] * 100)
    result = Match(SPEC_5X5).play(lambda state: Reply(next(back_and_forth)), log.append)
    assert not result.arrived and result.steps == result.steps_taken == 125
    assert result.ended == "step limit"
    assert result.architect_score == 125 / 16
    assert sum(1 for r in log if r["type"] == "step") == 125 and log[-1]["type"] == "result"


def test_arriving_on_the_last_allowed_step_counts_as_arrived():
    result = Match(SPEC_5X5, limit=14).play(walker(SHORTEST))
    assert result.arrived and result.steps == 14
    result = Match(SPEC_5X5, limit=13).play(walker(SHORTEST))
    assert not result.arrived and result.steps == 13


def test_patience_gives_up_and_charges_the_limit():
    log = []
    result = Match(SPEC_5X5).play(lambda state: Reply(failure="timeout"), log.append, patience=3)
    assert result.steps_taken == 3 and result.steps == 125 and not result.arrived
    assert result.ended == "gave up after 3 failed steps in a row"
    assert any(r.get("event") == result.ended for r in log)


def test_no_patience_plays_to_the_limit():
    result = Match(SPEC_5X5).play(lambda state: Reply("nonsense"), patience=0)
    assert result.steps_taken == 125 and result.failed_steps == 125


def test_states_follow_the_walk():
    match = Match(SPEC_5X5)
    assert match.state().decode().splitlines()[5:] == ["4 2", "4 1"]
    match.apply(Reply("4 1"))
    assert match.state().decode().splitlines()[5:] == ["4 1", "4 0,4 2"]
