"""The map parser: strict, and every error names line, column and what was expected."""
import pytest

from verify.contests.desert.map import DesertMap, MapError
from verify.errors import InputError

SPEC_EXAMPLE = ".....S.\n.......\n.......\nE......\n....8..\n"


def test_spec_example_parses():
    desert = DesertMap.parse(SPEC_EXAMPLE)
    assert (desert.width, desert.height) == (7, 5)
    assert desert.start == (0, 5) and desert.end == (3, 0)
    assert desert.water[4][4] == 8 and desert.water[0][5] == 0
    assert desert.text() == SPEC_EXAMPLE
    assert desert.distance == 8


@pytest.mark.parametrize("text, message", [
    ("", "line 1: the map is empty"),
    ("S.E", "line 1, column 4: the last line does not end with a newline"),
    ("S.E\n.x.\n", "line 2, column 2: 'x' is not a map character (expected S, E, 1-9 or .)"),
    ("S.E\n..\n", "line 2, column 3: this row has 2 characters, the first row has 3"),
    ("S.E\n....\n", "line 2, column 4: this row has 4 characters, the first row has 3"),
    ("S.E\n\n", "line 2, column 1: empty line"),
    ("S.E\nS..\n", "line 2, column 1: a second S (the first is at line 1, column 1; expected exactly one)"),
    ("S.E\n..E\n", "line 2, column 3: a second E"),
    ("S..\n...\n", "line 2: no E in the map"),
    ("...\n...\n", "no S and E in the map"),
    ("S0E\n", "line 1, column 2: '0' is not a map character"),
    ("S.E\r\n", "line 1, column 4: byte 0x0d is not a map character"),
    ("S.E\n\x00..\n", "line 2, column 1: byte 0x00 is not a map character"),
])
def test_malformed_maps_name_line_column_and_expectation(text, message):
    with pytest.raises(MapError) as caught:
        DesertMap.parse(text)
    assert message in str(caught.value)
    assert isinstance(caught.value, InputError)
    assert "\n" not in str(caught.value)


def test_one_row_and_one_column_maps():
    assert DesertMap.parse("S..9.E\n").height == 1
    column = DesertMap.parse("S\n.\n9\nE\n")
    assert (column.width, column.height, column.end) == (1, 4, (3, 0))


def test_map_is_immutable():
    desert = DesertMap.parse("SE\n")
    with pytest.raises(AttributeError):
        desert.width = 3
