"""The desert commands: exit 0 accepted, 1 rejected, 2 bad usage or bad input, one line."""
import pytest
from click.testing import CliRunner

from verify.cli import main

SPEC_MAP = ".....S.\n.......\n.......\nE......\n....8..\n"


SPEC_OUTPUT = "D+0\nD+0\nD+0\nD+0\nL+5\nL+0\nL+0\nL+0\nL+0\nU+0\n.....S.\n.....#.\n.....#.\nE....#.\n####3#.\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "map.txt").write_text(SPEC_MAP)
    (tmp_path / "good.out").write_text(SPEC_OUTPUT)
    (tmp_path / "bad.out").write_text(SPEC_OUTPUT.replace("####3", "####4"))
    (tmp_path / "broken.txt").write_text("S.E\n..\n")
    return tmp_path


def test_accepted_output_exits_0(files):
    result = CliRunner().invoke(main, ["judge", "desert", str(files / "map.txt"), str(files / "good.out")])
    assert result.exit_code == 0 and "accepted" in result.output


def test_rejected_output_exits_1_with_the_reason_and_both_maps(files):
    result = CliRunner().invoke(main, ["judge", "desert", str(files / "map.txt"), str(files / "bad.out")])
    assert result.exit_code == 1
    assert "differs at (4,4): expected '3', printed '4'" in result.output
    assert "####3#.    ####4#.  <- first difference" in result.output


def test_nontrivial_exit_codes(files):
    (files / "demo.txt").write_text("........2.\n..........\n..........\nS.1..2....\n..........\n"
                                    "..........\n........1.\n..3.......\n.........E\n")
    ok = CliRunner().invoke(main, ["desert", "nontrivial", str(files / "demo.txt")])
    assert ok.exit_code == 0 and "non-trivial" in ok.output
    bad = CliRunner().invoke(main, ["desert", "nontrivial", str(files / "map.txt")])
    assert bad.exit_code == 1
    assert "tile (4,4) holding 8: square (0,5) within its border of width 8 is S" in bad.output


def test_notations_are_listed():
    result = CliRunner().invoke(main, ["desert", "notations"])
    assert result.exit_code == 0 and "standard" in result.output and "lrud-xy" in result.output


def test_custom_notation_from_a_file(files):
    (files / "arrows.toml").write_text('directions = {"^" = "U", "v" = "D", "<" = "L", ">" = "R"}\n'
                                       'actions = {"" = "+0", "*" = "fill"}\n')
    (files / "line.txt").write_text("S..E\n")
    (files / "line.out").write_text(">>>\nS##E\n")
    result = CliRunner().invoke(main, ["judge", "desert", str(files / "line.txt"), str(files / "line.out"),
                                       "--notation", str(files / "arrows.toml")])
    assert result.exit_code == 0, result.output
