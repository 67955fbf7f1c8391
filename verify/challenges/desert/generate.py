"""Random desert maps from a recorded seed (``verify gen desert``): same seed, same map, on any machine."""
from __future__ import annotations

import random
from pathlib import Path

import click

from verify.challenges.desert.map import DesertMap


def generate(seed: int, width: int, height: int, density: float = 0.2, max_distance: int | None = None,
             min_distance: int = 1) -> DesertMap:
    """A valid map: S and E at random (Manhattan distance within the bounds), each other square
    holding water with probability ``density`` (1-9 units, uniform)."""
    if width * height < 2:
        raise click.BadParameter("the map needs at least 2 squares")
    rng = random.Random(seed)
    squares = [(r, c) for r in range(height) for c in range(width)]
    pairs = [(s, e) for s in squares for e in squares if s != e
             and min_distance <= abs(s[0] - e[0]) + abs(s[1] - e[1]) <= (max_distance or width + height)]
    if not pairs:
        raise click.BadParameter(f"no S/E placement within distance {min_distance}..{max_distance} "
                                 f"on a {width}x{height} map")
    start, end = rng.choice(pairs)
    lines = []
    for r in range(height):
        row = []
        for c in range(width):
            if (r, c) == start:
                row.append("S")
            elif (r, c) == end:
                row.append("E")
            elif rng.random() < density:
                row.append(str(rng.randint(1, 9)))
            else:
                row.append(".")
        lines.append("".join(row) + "\n")
    return DesertMap.parse("".join(lines))


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
        output.write_text(text)
