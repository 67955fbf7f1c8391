"""The solver's view: the spec's fog example and the reveal rule."""
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.maze.fog import FogOfWar
from verify.contests.maze.model import ANY_SIZE, Maze, parse_maze

SPEC_5X5 = "5\n4 2\n0 2\n00001011101110001100\n10100110000100010010\n"

# The spec's example, after one step left from the start. The spec shows
# horizontal wall 15 (above (4,0)) as '0', but no visited cell borders it:
# under the rule it adopts ("exactly the walls bordering visited cells") that
# one character is '?'.
SPEC_VIEW = "5\n4 2\n0 2\n???????????????011??\n????????????????001?\n4 1\n4 0,4 2\n"
RULE_VIEW = SPEC_VIEW.replace("???????????????011??", "????????????????11??")


def test_spec_example_with_the_documented_difference():
    fog = FogOfWar(parse_maze(SPEC_5X5, ANY_SIZE))
    fog.move_to((4, 1))
    view = fog.view().decode()
    assert view == RULE_VIEW
    differences = [i for i, (a, b) in enumerate(zip(view, SPEC_VIEW, strict=False)) if a != b]
    assert len(differences) == 1
    assert SPEC_VIEW.splitlines()[3][15] == "0" and view.splitlines()[3][15] == "?"


def test_first_view_shows_the_start_cell_walls_only():
    fog = FogOfWar(parse_maze(SPEC_5X5, ANY_SIZE))
    assert fog.view().decode().splitlines() == [
        "5", "4 2", "0 2", "?" * 17 + "1??", "?" * 17 + "01?", "4 2", "4 1"]


def test_revealed_walls_stay_and_revisits_change_nothing():
    fog = FogOfWar(parse_maze(SPEC_5X5, ANY_SIZE))
    fog.move_to((4, 1))
    fog.move_to((4, 0))
    after_two = fog.view()
    fog.move_to((4, 1))
    assert fog.horizontal == after_two.decode().splitlines()[3]
    assert fog.view().decode().splitlines()[5:] == ["4 1", "4 0,4 2"]
    assert fog.visited((4, 0)) and not fog.visited((3, 0))
    assert fog.visited_count == 3


def _expected_fog(maze, visited):
    """The rule written the slow way: a wall is shown iff a visited cell borders it."""
    n = maze.size
    h = "".join(maze.horizontal[r * n + c] if ((r, c) in visited or (r + 1, c) in visited) else "?"
                for r in range(n - 1) for c in range(n))
    v = "".join(maze.vertical[r * (n - 1) + c] if ((r, c) in visited or (r, c + 1) in visited) else "?"
                for r in range(n) for c in range(n - 1))
    return h, v


@settings(deadline=None, max_examples=60)
@given(st.integers(3, 9), st.data())
def test_fog_matches_the_rule_along_any_walk(n, data):
    bits = st.text(alphabet="01", min_size=n * (n - 1), max_size=n * (n - 1))
    maze = Maze(n, (0, 0), (n - 1, n - 1), data.draw(bits), data.draw(bits))
    fog = FogOfWar(maze)
    visited = {(0, 0)}
    for _ in range(data.draw(st.integers(0, 30))):
        moves = fog.valid_moves()
        if not moves:
            break
        cell = data.draw(st.sampled_from(moves))
        fog.move_to(cell)
        visited.add(cell)
        assert (fog.horizontal, fog.vertical) == _expected_fog(maze, visited)
    lines = fog.view().decode().splitlines()
    assert lines[5] == f"{fog.position[0]} {fog.position[1]}"
    assert lines[6] == ",".join(f"{r} {c}" for r, c in maze.moves_from(fog.position))
