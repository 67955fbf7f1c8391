"""Generated maps are reproducible from their recorded seed; the transcript's memory stays bounded."""
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from verify.cli import main
from verify.contests.desert.generate import generate
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import LRUD_XY
from verify.contests.desert.transcript import LONG_LINE, Transcript

CASES = Path(__file__).resolve().parents[2] / "testcases" / "desert"
COMMANDS = re.findall(r"\| (generated-seed\d+\.txt) \| `verify (gen desert [^`]+)` \|",
                      (CASES / "README.md").read_text())


def test_the_readme_records_a_command_for_every_generated_case():
    assert sorted(name for name, _ in COMMANDS) == sorted(p.name for p in CASES.glob("generated-*.txt"))
    assert len(COMMANDS) >= 10


@pytest.mark.parametrize("name, command", COMMANDS)
def test_each_generated_case_is_reproduced_by_its_command(name, command):
    result = CliRunner().invoke(main, shlex.split(command))
    assert result.exit_code == 0, result.output
    assert result.output == (CASES / name).read_text()


def test_same_seed_same_map_and_bounds_respected():
    first = generate(5, 9, 7, 0.4, max_distance=8, min_distance=6)
    assert first == generate(5, 9, 7, 0.4, max_distance=8, min_distance=6)
    assert 6 <= first.distance <= 8
    assert DesertMap.parse(first.text()) == first


def test_memory_does_not_grow_with_the_output():
    desert = DesertMap.parse("S" + "9" * 9 + "E\n")
    transcript = Transcript(desert, LRUD_XY)
    transcript.feed(b" ")
    cycle = b"RL RYL " * 10_000                    # one endless line: no newline for 3.5 MB
    for _ in range(50):
        transcript.feed(cycle)
        assert len(transcript._pending) <= LONG_LINE + len(cycle)
    assert transcript.current_turn >= 50 * 40_000 - 1     # the last token waits for the next byte
    transcript.feed(b"\nRRRRRRRRRR\nS888888888E\n")
    transcript.finish()
    assert transcript.winning_turns == 2_000_010
