"""The tournament report counts its matches in words that agree with the number."""
from verify.contests.contract import Reply
from verify.contests.maze.match import Match
from verify.contests.maze.model import Maze
from verify.contests.maze.play import BuiltMaze
from verify.contests.maze.tournament import MatchOutcome, TournamentResult, board_of
from verify.reports.tournament import render_markdown, render_table


def _result(matches: int) -> TournamentResult:
    maze = Maze(4, (0, 0), (0, 1), "0" * 12, "0" * 12)
    outcomes = []
    for solver in ["X", "Y"][:matches]:
        match = Match(maze)
        match.apply(Reply(" ".join(map(str, maze.shortest_path()[1]))))
        outcomes.append(MatchOutcome("A", solver, 4, 1, match.result()))
    return TournamentResult([4], [1], ["A"], ["A", "X", "Y"][:matches + 1], {("A", 4, 1): BuiltMaze(4, 1, maze)},
                            outcomes)


def test_one_match_is_singular():
    assert "; 1 match\n" in render_markdown(board_of(_result(1))) and "1 matches" not in render_markdown(board_of(_result(1)))
    assert render_table(board_of(_result(1))).startswith("Maze tournament: sizes 4; seeds 1; 1 match\n")


def test_several_matches_are_plural():
    assert "; 2 matches\n" in render_markdown(board_of(_result(2)))
