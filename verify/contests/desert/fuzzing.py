"""Random desert maps for ``verify fuzz``, and the steps that shrink one (pure).

Generation covers every shape (one row, one column, square, wide, tall), S and
E in corners, on borders, side by side or far apart, water from none to every
square, and adversarial water: 8s and 9s on and beside both straight routes
and next to S and E (where a careless drop breaks the 9-unit cap). A budget
bounds the side and the S-E distance, since the output of a correct entry
grows quickly with the distance (see docs/fuzz.md).

A failure's class is the rule it breaks (the engine's :class:`IllegalTurn`
subclass, or the transcript's failure: a repeated death, a wrong map...), the
kind of presentation error, or how the run ended (time limit, crash).
"""
from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from verify.contests.contract import Fuzzer, TestCase
from verify.contests.desert.case import DesertCase, case_map
from verify.contests.desert.judge import DesertJudge
from verify.contests.desert.map import DesertMap, Square
from verify.contests.desert.options import DesertOptions
from verify.contests.desert.transcript import IllegalTurnError, TranscriptError
from verify.verdict import Status, Verdict

SHAPES = ("row", "column", "square", "wide", "tall", "any")
PLACEMENTS = ("corners", "borders", "adjacent", "far", "anywhere")
DENSITIES = (0.0, 0.05, 0.2, 0.5, 0.8, 1.0)


@dataclass(frozen=True)
class DesertBudget:
    """The largest maps generated: ``max_side`` squares a side, S and E at most ``max_distance`` apart."""

    max_side: int = 10
    max_distance: int = 10

    def describe(self) -> str:
        return (f"maps up to {self.max_side}x{self.max_side}, S-E distance at most {self.max_distance} "
                "(larger maps are not generated: --max-size)")


def for_size(max_size: int | None) -> DesertBudget:
    if max_size is None:
        return DesertBudget()
    return DesertBudget(max(2, max_size), max(1, max_size))


# ---------------------------------------------------------------- generation

def _shape(rng: random.Random, side: int) -> tuple[int, int]:
    """(height, width) of one of the SHAPES, at least 2 squares."""
    kind = rng.choice(SHAPES)
    if kind == "row":
        return 1, rng.randint(2, side)
    if kind == "column":
        return rng.randint(2, side), 1
    if kind == "square":
        n = rng.randint(2, side)
        return n, n
    if kind in ("wide", "tall"):
        short = rng.randint(1, max(1, side - 1))
        long = rng.randint(short + 1, side)
        return (short, long) if kind == "wide" else (long, short)
    height, width = rng.randint(1, side), rng.randint(1, side)
    return (height, max(width, 2)) if height == 1 else (height, width)


def _distance(a: Square, b: Square) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _places(rng: random.Random, height: int, width: int, max_distance: int) -> tuple[Square, Square]:
    squares = [(r, c) for r in range(height) for c in range(width)]
    corners = sorted({(r, c) for r in (0, height - 1) for c in (0, width - 1)})
    borders = [s for s in squares if s[0] in (0, height - 1) or s[1] in (0, width - 1)]
    placement = rng.choice(PLACEMENTS)
    pool = {"corners": corners, "borders": borders}.get(placement, squares)
    start = rng.choice(pool)
    reachable = [s for s in squares if s != start and _distance(s, start) <= max_distance]
    if placement == "adjacent":
        choices = [s for s in reachable if _distance(s, start) == 1]
    elif placement == "far":
        farthest = max(_distance(s, start) for s in reachable)
        choices = [s for s in reachable if _distance(s, start) == farthest]
    else:
        choices = [s for s in reachable if s in pool] or reachable
    return start, rng.choice(choices)


def _routes(start: Square, end: Square) -> set[Square]:
    """The squares of both straight routes (vertical leg first, horizontal leg first)."""
    (sr, sc), (er, ec) = start, end
    rows = range(min(sr, er), max(sr, er) + 1)
    cols = range(min(sc, ec), max(sc, ec) + 1)
    return {(r, sc) for r in rows} | {(er, c) for c in cols} | {(sr, c) for c in cols} | {(r, ec) for r in rows}


def _around(square: Square) -> set[Square]:
    r, c = square
    return {(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)}


def random_input(rng: random.Random, budget: DesertBudget = DesertBudget()) -> DesertMap:
    """One valid map within ``budget`` (deterministic for the state of ``rng``)."""
    height, width = _shape(rng, budget.max_side)
    start, end = _places(rng, height, width, budget.max_distance)
    density = rng.choice(DENSITIES)
    values = rng.choice(((1, 9), (7, 9), (1, 2)))
    water = [[rng.randint(*values) if rng.random() < density else 0 for _ in range(width)]
             for _ in range(height)]
    if rng.random() < 0.5:       # adversarial: 8s and 9s where a route and its caches go
        near = sorted((_routes(start, end) | _around(start) | _around(end)) - {start, end})
        for r, c in near:
            if 0 <= r < height and 0 <= c < width and rng.random() < 0.5:
                water[r][c] = rng.choice((8, 9))
    for r, c in (start, end):
        water[r][c] = 0
    return DesertMap(width, height, start, end, tuple(tuple(row) for row in water))


# ---------------------------------------------------------------- shrinking

def _with(desert: DesertMap, **changes: Any) -> DesertMap:
    fields = {"width": desert.width, "height": desert.height, "start": desert.start, "end": desert.end,
              "water": desert.water, **changes}
    r0, c0 = fields["start"]
    r1, c1 = fields["end"]
    water = [list(row) for row in fields["water"]]
    water[r0][c0] = water[r1][c1] = 0
    fields["water"] = tuple(tuple(row) for row in water)
    return DesertMap(**fields)


def _without_row(desert: DesertMap, row: int) -> DesertMap:
    def shifted(square: Square) -> Square:
        return (square[0] - (square[0] > row), square[1])
    water = desert.water[:row] + desert.water[row + 1:]
    return _with(desert, height=desert.height - 1, start=shifted(desert.start), end=shifted(desert.end),
                 water=water)


def _without_column(desert: DesertMap, col: int) -> DesertMap:
    def shifted(square: Square) -> Square:
        return (square[0], square[1] - (square[1] > col))
    water = tuple(row[:col] + row[col + 1:] for row in desert.water)
    return _with(desert, width=desert.width - 1, start=shifted(desert.start), end=shifted(desert.end),
                 water=water)


def _toward(origin: Square, target: Square) -> Square:
    """One square from ``origin`` toward ``target``, rows first."""
    (r, c), (tr, tc) = origin, target
    if r != tr:
        return (r + (1 if tr > r else -1), c)
    return (r, c + (1 if tc > c else -1))


def _set_water(desert: DesertMap, square: Square, units: int) -> DesertMap:
    r, c = square
    water = list(desert.water)
    water[r] = water[r][:c] + (units,) + water[r][c + 1:]
    return _with(desert, water=tuple(water))


def _strip(desert: DesertMap, rows_first: bool) -> DesertMap:
    """A one-row map of a straight route from S to E (its vertical leg first, or its horizontal
    leg first), each square with its water: what an entry that walks that route meets."""
    squares = [desert.start]
    while squares[-1] != desert.end:
        r, c = squares[-1]
        if rows_first and r != desert.end[0] or c == desert.end[1]:
            squares.append(_toward((r, c), (desert.end[0], c)))
        else:
            squares.append(_toward((r, c), (r, desert.end[1])))
    water = (tuple(desert.water[r][c] for r, c in squares),)
    return _with(desert, width=len(squares), height=1, start=(0, 0), end=(0, len(squares) - 1), water=water)


def shrink_steps(desert: DesertMap) -> Iterator[DesertMap]:
    """Smaller variants of ``desert``, biggest cut first: no water at all, the map cut down to a
    straight route from S to E laid out as one row (either leg first), a row or a column fewer
    (not those of S and E), S or E one square closer to the other, one water tile fewer, one
    tile one unit lower."""
    tiles = [(r, c) for r in range(desert.height) for c in range(desert.width) if desert.water[r][c]]
    if tiles:
        yield _with(desert, water=tuple((0,) * desert.width for _ in range(desert.height)))
    if desert.width > 1 and desert.height > 1:
        for rows_first in (True, False):
            yield _strip(desert, rows_first)
    for row in range(desert.height):
        if row not in (desert.start[0], desert.end[0]):
            yield _without_row(desert, row)
    for col in range(desert.width):
        if col not in (desert.start[1], desert.end[1]):
            yield _without_column(desert, col)
    if desert.distance > 1:
        yield _with(desert, start=_toward(desert.start, desert.end))
        yield _with(desert, end=_toward(desert.end, desert.start))
    for square in tiles:
        yield _set_water(desert, square, 0)
    for square in tiles:
        units = desert.water[square[0]][square[1]]
        if units > 1:
            yield _set_water(desert, square, units - 1)


def size(desert: DesertMap) -> dict[str, int]:
    """How big a map is, for reports and tests."""
    units = [u for row in desert.water for u in row if u]
    return {"rows": desert.height, "columns": desert.width, "distance": desert.distance,
            "water tiles": len(units), "units": sum(units)}


# ---------------------------------------------------------------- cases and verdicts

def to_case(desert: DesertMap, name: str) -> TestCase[DesertCase]:
    text = desert.text()
    return TestCase(name, text.encode("ascii"), None, (text,), DesertCase(desert))


def show(desert: DesertMap) -> str:
    return desert.text()


def parse(data: bytes, source: str) -> DesertMap:
    return DesertMap.parse(data, source=source)


class RuleNamingJudge(DesertJudge):
    """The contest's judge, whose rejections also name the rule broken (``stats["rule"]``):
    the failure class a shrink keeps."""

    def _rejected(self, failure: TranscriptError) -> Verdict:
        verdict = super()._rejected(failure)
        if isinstance(failure, IllegalTurnError):
            verdict.stats["rule"] = type(failure.error).__name__
        return verdict


def judge(options: DesertOptions | None, case: TestCase[DesertCase]) -> DesertJudge:
    desert = case_map(case)
    if options is None:
        return RuleNamingJudge(desert)
    return RuleNamingJudge(desert, options.notation, options.order, options.deaths)


def failure_kind(verdict: Verdict) -> str:
    """The failure class of a rejected run: ``wrong answer: TileOverNine``, ``time limit``..."""
    if verdict.status in (Status.WRONG, Status.PRESENTATION):
        detail = verdict.stats.get("rule") or verdict.stats.get("failure")
        return f"{verdict.status}: {detail}" if detail else str(verdict.status)
    return str(verdict.status)


class DesertFuzzer(Fuzzer[DesertCase]):
    """Desert maps for one entry (its notation, order and death rule), judged by the rule-naming judge."""

    def __init__(self, options: DesertOptions | None, max_size: int | None):
        self.options, self.limits = options, for_size(max_size)
        self.budget = self.limits.describe()

    def generate(self, rng: random.Random) -> DesertMap:
        return random_input(rng, self.limits)

    def shrink_steps(self, value: DesertMap) -> Iterator[DesertMap]:
        return shrink_steps(value)

    def work(self, value: DesertMap, name: str) -> TestCase[DesertCase]:
        return to_case(value, name)

    def judge(self, case: TestCase[DesertCase]) -> DesertJudge:
        return judge(self.options, case)

    def failure_kind(self, verdict: Verdict) -> str:
        return failure_kind(verdict)

    def show(self, value: DesertMap) -> str:
        return show(value)

    def parse(self, data: bytes, source: str) -> DesertMap:
        return parse(data, source)

    def size(self, value: DesertMap) -> dict[str, int]:
        return size(value)
