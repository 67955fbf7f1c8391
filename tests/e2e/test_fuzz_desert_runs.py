"""Fuzzing desert entries: real runs."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_fuzz_desert import LIMITS, found
from verify.contests.desert import fuzzing
from verify.entries import load_entry
from verify.fuzz import fuzz, target_for
from verify.grading import LocalRunner


def test_an_entry_that_ignores_the_tile_cap_is_shrunk_to_one_tile_of_7_beside_s():
    finding = found("desert-tile-cap")
    assert finding.kind == "wrong: TileOverNine"
    # the first cache (a distance above 5) on a tile of 7, the least that 3 more units push over 9
    assert finding.minimal.text() == "S7....E\n"


def test_an_entry_that_repeats_a_death_is_shrunk_to_a_three_square_line():
    finding = found("desert-repeated-death")
    assert finding.kind == "wrong: RepeatedDeath"
    desert = finding.minimal
    assert sorted((desert.width, desert.height)) == [1, 3] and fuzzing.size(desert)["units"] == 0


def test_an_entry_that_fails_on_one_row_maps_is_shrunk_to_se():
    finding = found("desert-one-row")
    assert finding.kind == "runtime error" and finding.minimal.text() in ("SE\n", "ES\n")


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["reference", "python-golf", "javascript", "perl-deaths", "awk", "tcl",
                                   "perl-golf", "recursive-c"])
def test_the_bundled_entries_survive_200_maps(entry):
    root = Path(__file__).parents[2] / "submissions" / "desert"
    target = target_for(load_entry(root / entry), LocalRunner(), LIMITS)
    result = fuzz(target, seed=0, runs=200, jobs=2)
    assert result.finding is None, (result.finding.kind, target.show(result.finding.minimal),
                                    result.finding.verdict.summary())
