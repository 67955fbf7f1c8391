"""Notations are data: the standard one, the spec's L/R/U/D + X/Y/space one, and declared ones."""
import pytest

from verify.contests.desert.engine import DROP, FILL, PICK, Turn
from verify.contests.desert.notation import LRUD_XY, NOTATIONS, STANDARD, NotationDefinitionError, TokenError, resolve


def test_standard_notation_is_whitespace_tolerant():
    turns, stop = STANDARD.tokenizer().tokenize(b"D+0\n  L-12 \r\n\nR+3 U+1\n", 0, True)
    assert turns == [Turn("D", PICK, 0), Turn("L", DROP, 12), Turn("R", PICK, 3), Turn("U", PICK, 1)]
    assert stop == 22


def test_a_partial_chunk_keeps_the_last_token_back():
    turns, stop = STANDARD.tokenizer().tokenize(b"D+0\nL-1", 0, False)
    assert turns == [Turn("D", PICK, 0)] and stop == 4


def test_a_bad_token_gives_its_offset_what_was_found_and_what_was_expected():
    with pytest.raises(TokenError) as caught:
        STANDARD.tokenizer().tokenize(b"D+0\nL*2\n", 0, True)
    assert caught.value.offset == 4 and caught.value.found == "'L*2'"
    assert "a direction U, D, L, R then '+' and a number or '-' and a number" in caught.value.expected


def test_the_spec_custom_notation():
    turns, _ = LRUD_XY.tokenizer().tokenize(b"RRXL UY\n", 0, True)
    assert turns == [Turn("R", PICK, 1), Turn("R", DROP, 2), Turn("L", FILL, 0), Turn("U", DROP, 1)]
    assert LRUD_XY.prefix == " "


def test_notation_tables_for_a_compiled_replayer():
    assert STANDARD.direction_bytes == {ord("U"): "U", ord("D"): "D", ord("L"): "L", ord("R"): "R"}
    assert STANDARD.modifier_actions == {b"+": (PICK, None), b"-": (DROP, None)}
    assert STANDARD.numbers_follow and STANDARD.table_driven
    assert LRUD_XY.modifier_actions == {b"": (PICK, 1), b"X": (DROP, 2), b"Y": (DROP, 1), b" ": (FILL, 0)}
    assert not LRUD_XY.numbers_follow and LRUD_XY.separator_bytes == b"\r\n" and LRUD_XY.prefix_bytes == b" "
    assert set(NOTATIONS) >= {"standard", "lrud-xy"}


def test_a_declared_notation_with_a_custom_pattern():
    notation = resolve({"directions": {"n": "U", "s": "D", "w": "L", "e": "R"},
                        "actions": {"+": "+n", "-": "-n", "!": "fill"},
                        "pattern": r"(?P<dir>[nswe])(?P<act>[+-]|!)(?P<n>\d*)"})
    turns, _ = notation.tokenizer().tokenize(b"n+1 s! e-2\n", 0, True)
    assert turns == [Turn("U", PICK, 1), Turn("D", FILL, 0), Turn("R", DROP, 2)]
    assert not notation.table_driven


@pytest.mark.parametrize("table, field", [
    ({"actions": {"+": "+n"}, "directions": {"S": "U"}}, "directions.'S'"),
    ({"actions": {"+": "+n"}, "directions": {"u": "north"}}, "directions.'u'"),
    ({"actions": {"+": "plus"}}, "actions.'+'"),
    ({"actions": {"+": "+n"}, "separators": " "}, "separators"),
    ({"actions": {"+": "+n"}, "pattern": "(?P<dir>[UDLR]"}, "pattern"),
    ({"actions": {"+": "+n"}, "pattern": "(?P<dir>[UDLR])\\+"}, "pattern"),
    ({"actions": {"+": "+n"}, "colour": "red"}, "colour"),
    ({}, "actions"),
])
def test_broken_notation_tables_name_the_field(table, field):
    with pytest.raises(NotationDefinitionError) as caught:
        resolve(table)
    assert caught.value.field == field


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(NotationDefinitionError, match="known: standard, lrud-xy"):
        resolve("klingon")


def test_notation_from_a_toml_file(tmp_path):
    (tmp_path / "arrows.toml").write_text('[notation]\ndirections = {"^" = "U", "v" = "D", "<" = "L", ">" = "R"}\n'
                                          'actions = {"" = "+0", "*" = "fill"}\n')
    notation = resolve("arrows.toml", tmp_path)
    assert notation.tokenizer().tokenize(b"^v*<\n", 0, True)[0] == [
        Turn("U", PICK, 0), Turn("D", FILL, 0), Turn("L", PICK, 0)]


def test_notations_compare_and_hash_by_value():
    again = resolve(LRUD_XY.to_table())
    assert again.modifier_actions == LRUD_XY.modifier_actions
    assert hash(resolve(LRUD_XY.to_table())) == hash(again)
    assert len({STANDARD, resolve("standard")}) == 1
