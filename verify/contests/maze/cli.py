"""``verify maze show`` (replay a match log), ``verify maze check`` (a maze file) and ``verify gen maze``;
``verify koth maze`` is the core's tournament command over the maze's Tournament (:mod:`verify.cli.koth`)."""
from __future__ import annotations

from pathlib import Path

import click

from verify.errors import VerifyError


@click.group("maze")
def maze_group() -> None:
    """Inception maze tools."""


@maze_group.command("show")
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--step", type=int, default=None, help="Draw the position after this step (default: the end).")
@click.option("--fog", is_flag=True, help="Draw what the solver saw (unknown walls as ?).")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also draw the same position as SVG in FILE.")
def maze_show(log: Path, step: int | None, fog: bool, svg_path: Path | None) -> None:
    """Replay a match log as a drawing (the end, or --step N).

    Marks: @ the solver, . a visited cell, S start, E end, ? an unknown wall (--fog).
    """
    from verify.contests.maze.matchlog import ReplayedMatch, read_log, show

    click.echo(show(log, step, fog), nl=False)
    if svg_path is not None:
        from verify.contests.maze.presenter import maze_svg
        from verify.files import write_output
        from verify.site import draw

        match = read_log(log)
        if not isinstance(match, ReplayedMatch):
            raise VerifyError(f"{log}: an architect's log has no match to draw")
        write_output(svg_path, draw(maze_svg(match, step, fog)), "SVG")


@maze_group.command("check")
@click.argument("maze_file", type=click.Path(path_type=Path))
@click.option("--size-range", "size_range_text", default="15..50", show_default=True, help="Sizes accepted.")
def maze_check(maze_file: Path, size_range_text: str) -> None:
    """Validate a maze file (at most 4 MiB; - for stdin) and draw it."""
    from verify.contests.maze.model import MAX_MAZE_BYTES, parse_maze
    from verify.contests.maze.render import draw
    from verify.contests.maze.tournament import size_range
    from verify.files import read_input

    maze = parse_maze(read_input(str(maze_file), MAX_MAZE_BYTES, "maze"), size_range(size_range_text))
    click.echo(draw(maze), nl=False)
    path = maze.shortest_path()
    assert path is not None, "parse_maze refuses a maze whose end cannot be reached"
    click.echo(f"valid: {maze.size}x{maze.size}, {maze.wall_count} walls, Manhattan {maze.manhattan}, "
               f"shortest path {len(path) - 1} steps, score denominator {maze.score_denominator}")


@click.command("maze")
@click.option("--size", type=int, required=True, help="Width of the square maze.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--draw", "drawing", is_flag=True, help="Draw it instead of printing the format.")
def gen_maze(size: int, seed: int, drawing: bool) -> None:
    """A reference maze: recursive backtracker, start and end at the ends of its longest path."""
    from verify.contests.maze.generate import generate_maze
    from verify.contests.maze.render import draw

    if not 2 <= size <= 1000:
        raise VerifyError(f"--size: {size} is outside 2..1000")
    maze = generate_maze(size, seed)
    click.echo(draw(maze) if drawing else maze.to_text(), nl=False)
