"""Random desert maps from a recorded seed (``verify gen desert``): same seed, same map, on any machine."""
from __future__ import annotations

import random

from verify.contests.desert.map import DesertMap
from verify.errors import InputError


def generate(seed: int, width: int, height: int, density: float = 0.2, max_distance: int | None = None,
             min_distance: int = 1) -> DesertMap:
    """A valid map: S and E at random (Manhattan distance within the bounds), each other square
    holding water with probability ``density`` (1-9 units, uniform)."""
    if width * height < 2:
        raise InputError("the map needs at least 2 squares")
    rng = random.Random(seed)
    squares = [(r, c) for r in range(height) for c in range(width)]
    pairs = [(s, e) for s in squares for e in squares if s != e
             and min_distance <= abs(s[0] - e[0]) + abs(s[1] - e[1]) <= (max_distance or width + height)]
    if not pairs:
        raise InputError(f"no S/E placement within distance {min_distance}..{max_distance} "
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
