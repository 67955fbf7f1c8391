"""``verify koth maze`` (the tournament) and ``verify maze show`` (replay a match log)."""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from verify.cli.options import cluster_option, format_option, runner_option, settings_of
from verify.errors import VerifyError

DEFAULT_SIZES = "15,20"
DEFAULT_SEEDS = "1,2"


def _int_list(option: str, text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise VerifyError(f"{option}: expected comma-separated integers, not {text!r}") from None
    if not values:
        raise VerifyError(f"{option}: empty")
    return values


def _size_range(text: str) -> range:
    low, sep, high = text.partition("..")
    try:
        lo, hi = int(low), int(high)
    except ValueError:
        raise VerifyError(f"--size-range: expected LOW..HIGH, not {text!r}") from None
    if not sep or not 2 <= lo <= hi:
        raise VerifyError(f"--size-range: expected LOW..HIGH with 2 <= LOW <= HIGH, not {text!r}")
    return range(lo, hi + 1)


def default_log_dir(cache: Path) -> Path:
    """Where a tournament writes its match logs without --logs: in the cache (the settings'), never
    the current folder."""
    return cache / "maze-logs" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


@click.command("maze")
@click.argument("entries", nargs=-1, type=click.Path(path_type=Path))
@click.option("--sizes", default=DEFAULT_SIZES, show_default=True, help="Maze sizes, comma-separated.")
@click.option("--seeds", default=DEFAULT_SEEDS, show_default=True,
              help="Seeds given to the architects, comma-separated.")
@click.option("-j", "--jobs", default=2, show_default=True, type=click.IntRange(1, 64), help="Runs in parallel.")
@format_option("table", "markdown", "json")
@click.option("--logs", type=click.Path(path_type=Path), default=None,
              help="Folder for the match logs [default: the cache's maze-logs/<UTC time>; "
                   "`verify cache prune` removes old ones].")
@click.option("--step-timeout", default=2.0, show_default=True, type=click.FloatRange(0.01),
              help="Seconds a solver may take per step.")
@click.option("--patience", default=None, type=click.IntRange(0),
              help="Abandon a solver after this many failed steps in a row (0: never) [default: 20].")
@click.option("--size-range", default="15..50", show_default=True,
              help="Sizes allowed (the contest's 15..50; smaller for quick trials).")
@click.option("-q", "--quiet", is_flag=True, help="No progress lines on stderr.")
@click.option("--html", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Also write a static site to DIR: the leaderboards, the matrix as a heat map, a replay per match.")
@runner_option
@cluster_option
def koth_maze(entries: tuple[Path, ...], sizes: str, seeds: str, jobs: int, output_format: str,
              logs: Path | None, step_timeout: float, patience: int | None, size_range: str, quiet: bool,
              html: Path | None, runner: Any, cluster: str | None) -> None:
    """Every architect against every solver of the other entries, on every size and seed.

    ENTRIES are entry folders (default: every entry under submissions/maze/).
    Each maze is built once and walked by every solver. Per-step solvers start
    one process per step, so bigger sizes cost much more time (size^3 steps at
    most): the defaults take a few minutes on 2 cores. With --cluster the mazes and
    matches run on the cluster's workers (--logs on a filesystem they share).
    """
    from verify.challenges.maze.match import DEFAULT_PATIENCE
    from verify.challenges.maze.play import MazeLimits
    from verify.challenges.maze.tournament import Contestant, run_tournament
    from verify.entries import find_entries, load_entry
    from verify.executors import open_executor
    from verify.files import make_output_folder
    from verify.grading import Grader
    from verify.reports.tournament import RENDERERS

    folders = list(entries) or find_entries(Path("submissions"), "maze")
    if not folders:
        raise VerifyError("no maze entries (give entry folders, or run from the project's root)")
    contestants = []
    for folder in folders:
        entry = load_entry(folder)
        if entry.challenge.name != "maze":
            raise VerifyError(f"{entry.label}: a {entry.challenge.name} entry, not a maze entry")
        contestants.append(Contestant(entry.name, entry.options))
    limits = MazeLimits(step_timeout=step_timeout, sizes=_size_range(size_range))
    log_dir = make_output_folder(logs or default_log_dir(settings_of(click.get_current_context()).cache),
                                 "match logs")
    if html is not None:
        make_output_folder(html, "site")
    with open_executor(cluster, runner) as executor:
        def progress(message: str) -> None:
            if not quiet:
                workers = executor.workers() if executor is not None else None
                where = f"{workers} worker{'' if workers == 1 else 's'} " if workers is not None else ""
                click.echo(f"{where}{message}", err=True)

        result = run_tournament(Grader(runner, executor), contestants, _int_list("--sizes", sizes),
                                _int_list("--seeds", seeds), jobs=jobs, limits=limits, log_dir=log_dir,
                                patience=DEFAULT_PATIENCE if patience is None else patience, progress=progress)
        isolation = (runner.isolation if executor is None
                     else executor.isolation(runner.isolation) or "the cluster's workers differ")
    click.echo(RENDERERS[output_format](result, isolation), nl=False)
    if html is not None:
        from verify.challenges.maze.presenter import PRESENTER
        from verify.reports.isolation import differences_of
        from verify.site import write_koth_site
        write_koth_site(html, PRESENTER, result, isolation=isolation, differences=differences_of(isolation))
    if not quiet:
        click.echo(f"match logs: {log_dir} (replay one with: verify maze show LOG)", err=True)


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
    from verify.challenges.maze.matchlog import ReplayedMatch, read_log, show

    click.echo(show(log, step, fog), nl=False)
    if svg_path is not None:
        from verify.challenges.maze.presenter import maze_svg
        from verify.files import write_output
        from verify.site import draw

        match = read_log(log)
        if not isinstance(match, ReplayedMatch):
            raise VerifyError(f"{log}: an architect's log has no match to draw")
        write_output(svg_path, draw(maze_svg(match, step, fog)), "SVG")


@maze_group.command("check")
@click.argument("maze_file", type=click.Path(path_type=Path))
@click.option("--size-range", default="15..50", show_default=True, help="Sizes accepted.")
def maze_check(maze_file: Path, size_range: str) -> None:
    """Validate a maze file (at most 4 MiB; - for stdin) and draw it."""
    from verify.challenges.maze.model import MAX_MAZE_BYTES, parse_maze
    from verify.challenges.maze.render import draw
    from verify.files import read_input

    maze = parse_maze(read_input(str(maze_file), MAX_MAZE_BYTES, "maze"), _size_range(size_range))
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
    from verify.challenges.maze.generate import generate_maze
    from verify.challenges.maze.render import draw

    if not 2 <= size <= 1000:
        raise VerifyError(f"--size: {size} is outside 2..1000")
    maze = generate_maze(size, seed)
    click.echo(draw(maze) if drawing else maze.to_text(), nl=False)
