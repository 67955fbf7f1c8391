"""Desert commands: ``verify judge desert``, ``gen desert``, ``desert nontrivial``, ``desert notations``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from verify.cli.options import format_option
from verify.contests.desert.generate import generate
from verify.contests.desert.judge import DesertJudge
from verify.contests.desert.map import MAX_MAP_BYTES, DesertMap
from verify.contests.desert.nontrivial import MAX_VIOLATIONS, violations
from verify.contests.desert.notation import NOTATIONS, load_for_cli
from verify.contests.desert.transcript import DEATH_RULES, ORDERS
from verify.files import input_stream, iter_chunks, read_input, write_output
from verify.report_escape import one_line
from verify.reports.verdict import render_verdict

CHUNK = 1 << 20


def read_map(path: str) -> DesertMap:
    """The map file ``path`` (``-``: standard input), at most ``MAX_MAP_BYTES``, parsed."""
    return DesertMap.parse(read_input(path, MAX_MAP_BYTES, "map"), source=path)


@click.command("desert")
@click.argument("map_path", metavar="MAP")
@click.argument("output", metavar="OUTPUT")
@click.option("--notation", default="standard", show_default=True, metavar="NAME|FILE.toml",
              help="How the turns are written: a named notation (see `verify desert notations`) or a TOML file.")
@click.option("--order", type=click.Choice(ORDERS), default="moves-first", show_default=True,
              help="moves-first (the spec's) or map-first (lenient, when the entry declares it).")
@click.option("--deaths", type=click.Choice(DEATH_RULES), default="turns", show_default=True,
              help="When two deaths are the same: same turns, or (stricter) same squares.")
@format_option("table", "json")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Also draw the final state of each attempt (route, water left, the broken rule's square) "
                   "as SVG in FILE.")
def judge_desert(map_path: str, output: str, notation: str, order: str, deaths: str, output_format: str,
                 svg_path: Path | None) -> None:
    """Judge a saved OUTPUT of a program on MAP (OUTPUT may be - for stdin).

    MAP holds at most 1 MiB; OUTPUT may be of any size (it is judged as it is read; --svg draws
    from its first and last few hundred KiB, docs/site.md).
    Exit 0 when accepted, 1 when rejected, 2 for bad usage or an unreadable map, output or notation.
    """
    desert = read_map(map_path)
    rules = load_for_cli(notation)
    judge = DesertJudge(desert, rules, order, deaths)
    capture = None
    if svg_path is not None:
        from verify.site import OutputCapture
        capture = OutputCapture()
    with input_stream(output, "output") as stream:     # any size: judged chunk by chunk
        for chunk in iter_chunks(stream, output, "output", CHUNK):
            if capture is not None:
                capture.add(chunk)
            if judge.feed(chunk) is not None:
                break
    verdict = judge.finish()
    if svg_path is not None and capture is not None:
        from verify.contests.desert.presenter import desert_svg
        from verify.contests.desert.replay import desert_replay
        from verify.site import draw
        write_output(svg_path, draw(desert_svg(desert, desert_replay(desert, capture, verdict.stats, rules, order,
                                                                     deaths))), "SVG")
    click.echo(render_verdict(verdict, output_format))
    sys.exit(0 if verdict.accepted else 1)


@click.group("desert")
def desert_group() -> None:
    """Desert crossing tools: demo maps, notations."""


SHOWN = 10     # violations the table lists without --all


@desert_group.command("nontrivial")
@click.argument("map_path", metavar="MAP")
@click.option("--all", "show_all", is_flag=True,
              help=f"List every violation (up to {MAX_VIOLATIONS}), not only the first {SHOWN}.")
@format_option("table", "json")
def nontrivial(map_path: str, show_all: bool, output_format: str) -> None:
    """Check that a desert demo MAP is non-trivial (exit 0), else list the violations (exit 1;
    the table shows the first 10 unless --all; JSON lists the first 1000)."""
    desert = read_map(map_path)
    found = violations(desert, limit=MAX_VIOLATIONS + 1)
    more = len(found) > MAX_VIOLATIONS
    found = found[:MAX_VIOLATIONS]
    if output_format == "json":
        click.echo(json.dumps({"nontrivial": not found, "distance": desert.distance, "more_violations": more,
                               "violations": [
            {"rule": v.rule, "tile": v.tile, "units": v.units, "square": v.square, "what": v.what,
             "message": str(v)} for v in found]}, indent=2))
    elif found:
        count = f"more than {len(found)} violations" if more else \
            f"{len(found)} violation{'s' if len(found) != 1 else ''}"
        shown = found if show_all else found[:SHOWN]
        click.echo(f"{one_line(map_path)}: trivial ({count})")
        for violation in shown:
            click.echo(f"  {violation}")
        hidden = len(found) - len(shown)
        if hidden:
            click.echo(f"  ... and {'more than ' if more else ''}{hidden} more (--all to list them)")
        elif more:
            click.echo(f"  ... and more (only the first {MAX_VIOLATIONS} are listed)")
    else:
        click.echo(f"{one_line(map_path)}: non-trivial (S and E {desert.distance} moves apart, every border clear)")
    sys.exit(1 if found else 0)


@desert_group.command("notations")
@format_option("table", "json")
def notations(output_format: str) -> None:
    """List the named desert notations (usable as `notation = "NAME"` in entry.toml)."""
    if output_format == "json":
        click.echo(json.dumps({name: {"description": n.description, "directions": "".join(n.directions),
                                      "actions": {m: str(spec) for m, spec in n.actions.items()},
                                      "separators": n.separators, "prefix": n.prefix}
                               for name, n in NOTATIONS.items()}, indent=2))
        return
    for name, notation in NOTATIONS.items():
        actions = ", ".join(f"{modifier!r} -> {spec}" for modifier, spec in notation.actions.items())
        click.echo(f"{name}: {notation.description}")
        click.echo(f"    directions {''.join(notation.directions)}; actions {actions}; "
                   f"separators {notation.separators!r}; prefix {notation.prefix!r}")


@click.command("desert")
@click.option("--seed", type=int, required=True, help="Recorded in testcases/desert/README.md.")
@click.option("--width", type=click.IntRange(1, 200), default=12, show_default=True)
@click.option("--height", type=click.IntRange(1, 200), default=8, show_default=True)
@click.option("--density", type=click.FloatRange(0, 1), default=0.2, show_default=True,
              help="Chance that a square holds water.")
@click.option("--min-distance", type=click.IntRange(1), default=1, show_default=True)
@click.option("--max-distance", type=click.IntRange(1), default=None,
              help="Bound S-E (Manhattan): the cost of a crossing grows about 5/3 per square.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the map here (default: standard output).")
def gen_desert(seed: int, width: int, height: int, density: float, min_distance: int,
               max_distance: int | None, output: Path | None) -> None:
    """Generate a random desert map from a seed."""
    text = generate(seed, width, height, density, max_distance, min_distance).text()
    if output is None:
        click.echo(text, nl=False)
    else:
        write_output(output, text, "map")
