"""Arrow path commands: ``verify solve arrows``, ``verify gen arrows``, ``verify judge arrows``."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from verify.cli.options import format_option
from verify.contests.arrows.generator import DEFAULT_MAX_NODES, Difficulty, generate_puzzle
from verify.contests.arrows.judge import ArrowsJudge
from verify.contests.arrows.model import MAX_PUZZLE_BYTES, NOTATIONS, Puzzle, parse_puzzle
from verify.contests.arrows.solver import SolveStats, solutions
from verify.errors import InputError
from verify.files import input_stream, iter_chunks, read_input
from verify.report_escape import one_line
from verify.reports.verdict import render_verdict

_NOTATION = click.Choice(sorted(NOTATIONS))


def _read_puzzle(path: str, notation: str | None = None) -> Puzzle:
    """The puzzle file ``path`` (``-``: standard input), at most ``MAX_PUZZLE_BYTES``, parsed."""
    data = read_input(path, MAX_PUZZLE_BYTES, "puzzle")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    return parse_puzzle(text, notation, where=path)


@click.command("arrows")
@click.argument("puzzle")
@click.option("--count", "count", type=int, default=None, metavar="BOUND",
              help="Count the solutions, up to BOUND (2 proves a puzzle unique).")
@click.option("--lists", is_flag=True, help="Print the spec's list-of-rows form instead of the text format.")
@click.option("--stats", is_flag=True, help="Print search figures and time on stderr.")
@format_option("text", "json", default="text")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also draw the solved board (the path 1..N through the cells, the givens marked) as SVG in FILE.")
def solve_command(puzzle: str, count: int | None, lists: bool, stats: bool, output_format: str,
                  svg_path: Path | None) -> None:
    """Solve PUZZLE (a file, or - for stdin; text or list-of-rows form) and print the board.

    Exit 0 when solved, 1 when the puzzle has no solution (or, with --count, not exactly one)."""
    board = _read_puzzle(puzzle)
    figures = SolveStats()
    started = time.perf_counter()
    found = solutions(board, max(1, count or 1), figures)
    elapsed = time.perf_counter() - started
    if svg_path is not None and found:
        from verify.contests.arrows.presenter import arrows_svg
        from verify.files import write_output
        from verify.site import draw
        write_output(svg_path, draw(arrows_svg(board, found[0].numbers)), "SVG")
    if stats:
        click.echo(f"{elapsed * 1000:.1f} ms, {figures.nodes} nodes, {figures.branches} branches", err=True)
    if output_format == "json":
        shown = found[:1] if count is None else found
        click.echo(json.dumps({"solutions": len(found), "complete": count is None or len(found) < count,
                               "boards": [board.to_text() for board in shown],
                               "nodes": figures.nodes, "branches": figures.branches}, indent=2))
        sys.exit(0 if len(found) == 1 or (count is None and found) else 1)
    if count is not None:
        more = "" if len(found) < count else " or more"
        click.echo(f"{len(found)}{more} solution{'s' if len(found) != 1 or more else ''}")
        sys.exit(0 if len(found) == 1 else 1)
    if not found:
        click.echo("no solution", err=True)
        sys.exit(1)
    click.echo(found[0].to_list_text() if lists else found[0].to_text(), nl=False)


@click.command("arrows")
@click.option("--size", "size", type=int, default=None, help="Square board of SIZE x SIZE.")
@click.option("--rows", type=int, default=None, help="Rows (with --cols, for a non-square board).")
@click.option("--cols", type=int, default=None, help="Columns.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--arrows", "notation", type=_NOTATION, default="english", show_default=True)
@click.option("--hard", is_flag=True,
              help="Fewer givens: keep taking them away while the puzzle stays unique, even when "
                   "solving it then needs search (at most --max-nodes search nodes of the reference solver).")
@click.option("--max-nodes", type=int, default=DEFAULT_MAX_NODES, show_default=True,
              help="With --hard: the most search nodes the reference solver may need.")
@click.option("--solution", is_flag=True, help="Print the solution too (after the puzzle, on stderr).")
@click.option("--stats", is_flag=True,
              help="Print on stderr the givens, the difficulty (search nodes the reference solver needed to "
                   "prove the puzzle unique: 1 means propagation alone) and the time taken.")
def gen_command(size: int | None, rows: int | None, cols: int | None, seed: int, notation: str,
                hard: bool, max_nodes: int, solution: bool, stats: bool) -> None:
    """Generate a puzzle with exactly one solution (deterministic for the options).

    Without --hard, propagation alone (no search) solves it."""
    rows = rows if rows is not None else size
    cols = cols if cols is not None else (size if size is not None else rows)
    if rows is None or cols is None:
        raise InputError("give --size N, or --rows R --cols C")
    if max_nodes < 1:
        raise InputError("--max-nodes must be at least 1")
    started = time.perf_counter()
    generated = generate_puzzle(rows, cols, seed, notation, difficulty=Difficulty(max_nodes=max_nodes, hard=hard))
    elapsed = time.perf_counter() - started
    click.echo(generated.puzzle.to_text(), nl=False)
    if solution:
        click.echo(generated.solution.to_text(), nl=False, err=True)
    if stats:
        click.echo(f"{generated.puzzle.givens} givens of {generated.puzzle.size}, difficulty {generated.nodes} "
                   f"search node{'s' if generated.nodes != 1 else ''} ({generated.branches} branching points), "
                   f"{elapsed * 1000:.0f} ms", err=True)


@click.command("arrows")
@click.argument("puzzle")
@click.argument("output")
@click.option("--arrows", "notation", type=_NOTATION, default=None,
              help="Arrow names of OUTPUT (default: those of PUZZLE).")
@format_option("line", "table", "json", default="line")
def judge_command(puzzle: str, output: str, notation: str | None, output_format: str) -> None:
    """Judge OUTPUT (a saved program output, - for stdin) as the answer to PUZZLE.

    PUZZLE holds at most 1 MiB; OUTPUT is read chunk by chunk (a line longer than a row of
    the board is rejected at once). Exit 0 accepted, 1 rejected (the first error on stdout),
    2 bad input."""
    board = _read_puzzle(puzzle)
    notation = notation or board.notation
    judge = ArrowsJudge(board.in_notation(notation), notation)
    verdict = None
    with input_stream(output, "output") as stream:   # judged chunk by chunk: memory bounded by the board
        for chunk in iter_chunks(stream, output, "output"):
            verdict = judge.feed(chunk)
            if verdict is not None:
                break
    verdict = verdict or judge.finish()
    if output_format == "line":
        click.echo(f"{verdict.status.short} {verdict.status}: {one_line(verdict.message)}" if verdict.message
                   else f"{verdict.status.short} {verdict.status}")
    else:
        click.echo(render_verdict(verdict, output_format))
    sys.exit(0 if verdict.accepted else 1)
