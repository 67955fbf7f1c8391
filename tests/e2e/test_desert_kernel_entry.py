"""The benchmark entry (submissions/desert/recursive-c) is a real entry: it solves any map,
in the spec's format, and both judging paths accept its output."""
from __future__ import annotations

import random
import shutil
import subprocess
from itertools import pairwise
from pathlib import Path

import pytest

from verify.contests.desert.judge import DesertJudge
from verify.contests.desert.map import DesertMap
from verify.contests.desert.nontrivial import violations

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "submissions" / "desert" / "recursive-c"
TESTCASES = ROOT / "testcases" / "desert"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the C entry")


@pytest.fixture(scope="module")
def entry(tmp_path_factory) -> Path:
    binary = tmp_path_factory.mktemp("recursive-c") / "desert"
    subprocess.run(["gcc", "-O2", "-std=gnu17", "-o", str(binary), str(ENTRY / "desert.c")], check=True)
    return binary


def run(binary: Path, map_text: bytes) -> bytes:
    return subprocess.run([str(binary)], input=map_text, capture_output=True, check=True, timeout=60).stdout


def judged(map_text: bytes, output: bytes, fast: bool):
    judge = DesertJudge(DesertMap.parse(map_text), fast=fast)
    for start in range(0, len(output), 1 << 16):
        if judge.feed(output[start:start + (1 << 16)]) is not None:
            break
    return judge.finish()


def distance(desert: DesertMap) -> int:
    return abs(desert.start[0] - desert.end[0]) + abs(desert.start[1] - desert.end[1])


def test_its_demo_map_is_non_trivial_and_solved(entry):
    demo = (ENTRY / "demo.txt").read_bytes()
    desert = DesertMap.parse(demo)
    assert violations(desert) == []
    assert distance(desert) >= 10
    verdict = judged(demo, run(entry, demo), fast=True)
    assert verdict.accepted, verdict.message
    assert verdict.stats["deaths"] == 1


def test_the_test_cases_up_to_distance_20_are_accepted_on_both_paths(entry):
    checked = 0
    for path in sorted(TESTCASES.glob("*.txt")):
        map_text = path.read_bytes()
        if distance(DesertMap.parse(map_text)) > 20:
            continue                       # 2^(d+1) turns: the benchmark's business
        output = run(entry, map_text)
        fast = judged(map_text, output, fast=True)
        assert fast.accepted, (path.name, fast.message)
        if distance(DesertMap.parse(map_text)) <= 14:
            assert judged(map_text, output, fast=False).to_dict() == fast.to_dict(), path.name
        checked += 1
    assert checked >= 10


def test_random_maps_with_water_everywhere_are_solved(entry):
    rng = random.Random(2026)
    for _ in range(40):
        height, width = rng.randint(1, 6), rng.randint(1, 9)
        if height * width < 2:
            continue
        cells = [rng.choice(".....123456789") for _ in range(height * width)]
        start, end = rng.sample(range(height * width), 2)
        cells[start], cells[end] = "S", "E"
        map_text = "".join("".join(cells[r * width:(r + 1) * width]) + "\n" for r in range(height)).encode()
        output = run(entry, map_text)
        assert output.split(b"\n")[0][:1] in b"UDLR"            # moves first, one per line
        verdict = judged(map_text, output, fast=True)
        assert verdict.accepted, (map_text, verdict.message)


def test_output_doubles_with_distance(entry):
    turns = []
    for d in (8, 9, 10, 11):
        map_text = b"S" + b"." * (d - 1) + b"E\n"
        verdict = judged(map_text, run(entry, map_text), fast=True)
        assert verdict.accepted
        turns.append(verdict.stats["total_turns"])
    assert all(1.9 < later / earlier < 2.1 for earlier, later in pairwise(turns))
