"""Fuzzing desert entries: the maps generated, the shrink steps, and flawed entries found and shrunk."""
from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.desert import fuzzing
from verify.contests.desert.map import DesertMap
from verify.entries import load_entry
from verify.fuzz import fuzz, target_for
from verify.grading import LocalRunner
from verify.runner import Limits

FLAWED = Path(__file__).parents[1] / "fixtures" / "flawed"


LIMITS = Limits(wall_time=10, cpu_time=10)


def maps(count: int, budget: fuzzing.DesertBudget | None = None) -> list[DesertMap]:
    return [fuzzing.random_input(random.Random(f"t{i}"), budget or fuzzing.DesertBudget()) for i in range(count)]


def test_generated_maps_are_valid_and_within_the_budget():
    budget = fuzzing.DesertBudget(max_side=7, max_distance=5)
    for desert in maps(400, budget):
        assert DesertMap.parse(desert.text()) == desert
        assert desert.width <= 7 and desert.height <= 7 and 1 <= desert.distance <= 5


def test_generation_covers_every_shape_placement_and_density():
    found = maps(600)
    assert any(d.height == 1 for d in found) and any(d.width == 1 for d in found)
    assert any(d.width > d.height > 1 for d in found) and any(d.height > d.width > 1 for d in found)
    assert any(d.width == d.height for d in found)
    assert any(d.distance == 1 for d in found) and any(d.distance == 10 for d in found)
    corners = [d for d in found if d.start[0] in (0, d.height - 1) and d.start[1] in (0, d.width - 1)]
    assert len(corners) > 100 and any(d.start[0] not in (0, d.height - 1) for d in found)
    tiles = [sum(1 for row in d.water for u in row if u) for d in found]
    assert 0 in tiles and any(t == d.width * d.height - 2 for t, d in zip(tiles, found, strict=True))
    # 8s and 9s next to S, where a careless drop breaks the cap
    assert any(d.water[r][c] >= 8 for d in found for r, c in fuzzing._around(d.start) if d.contains(r, c))


def test_generation_is_deterministic_for_the_seed():
    assert maps(30) == maps(30)


def area(desert: DesertMap) -> tuple[int, int, int]:
    units = sum(u for row in desert.water for u in row)
    return desert.width * desert.height, desert.distance, units


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_every_shrink_step_is_a_valid_and_smaller_map(seed):
    desert = fuzzing.random_input(random.Random(seed))
    for variant in fuzzing.shrink_steps(desert):
        assert DesertMap.parse(variant.text()) == variant
        assert area(variant) < area(desert) or (area(variant)[0] == area(desert)[0] and area(variant) != area(desert))
        assert all(v <= 9 for row in variant.water for v in row)


def test_the_failure_class_names_the_rule_broken():
    from verify.verdict import Status, Verdict
    assert fuzzing.failure_kind(Verdict(Status.WRONG, "x", stats={"failure": "IllegalTurnError",
                                                                   "rule": "TileOverNine"})) == "wrong: TileOverNine"
    assert fuzzing.failure_kind(Verdict(Status.TIME_LIMIT, "slow")) == "time limit"
    assert fuzzing.DesertFuzzer(None, None).kind_slug("wrong: TileOverNine") == "tile-over-nine"
    assert fuzzing.DesertFuzzer(None, None).kind_slug("time limit") == "time-limit"


def found(fixture: str, runs: int = 200):
    target = target_for(load_entry(FLAWED / fixture), LocalRunner(), LIMITS)
    result = fuzz(target, seed=0, runs=runs, jobs=2)
    assert result.finding is not None, f"{fixture} survived {runs} inputs"
    return result.finding


def test_a_map_shrinks_to_a_straight_route_laid_out_as_one_row():
    desert = DesertMap.parse("....E\n7....\nS....\n")
    strips = [d.text() for d in fuzzing.shrink_steps(desert)][1:3]
    assert strips == ["S7....E\n", "S.....E\n"]
