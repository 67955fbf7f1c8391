"""The check report's table against tabulate's own layouts, which it replaces there, and its
wrapping of details against textwrap's, by columns where textwrap counts characters."""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tabulate import tabulate

from verify.reports.colour import paint_status
from verify.reports.text_table import table, width, wrap
from verify.verdict import Status

# what an escaped cell may hold: ASCII, accented and combining Latin, CJK, fullwidth forms,
# Hangul syllables, and the report's own colours
LETTERS = st.sampled_from([*"abc XYZ-./:0129()", "é", "e\u0301", "ß", "日", "本", "ｗ", "한", "Ω"])
CELL = st.one_of(st.lists(LETTERS, max_size=12).map("".join),
                 st.sampled_from(list(Status)).map(lambda status: paint_status(status.short, status, True)))


@settings(max_examples=300, deadline=None)
@given(headers=st.lists(CELL.filter(bool), min_size=1, max_size=6), data=st.data())
def test_the_table_is_tabulates_for_text_cells(headers, data):
    rows = data.draw(st.lists(st.lists(CELL, min_size=len(headers), max_size=len(headers)), max_size=5))
    for layout in ("simple", "github"):
        assert table(rows, headers, layout) == tabulate(rows, headers, tablefmt=layout, disable_numparse=True)


def test_a_check_table_lines_up_its_columns():
    rows = [["desert/recursive-c", "one-row-26", "AC", "1.11s", "2.5 MiB", "won in attempt 2"],
            ["maze/日本", "spec-example", "WA", "0.01s", "", "turn 3"]]
    assert table(rows, ["entry", "case", "verdict", "time", "memory", "detail"]).splitlines() == [
        "entry               case          verdict    time    memory    detail",
        "------------------  ------------  ---------  ------  --------  ----------------",
        "desert/recursive-c  one-row-26    AC         1.11s   2.5 MiB   won in attempt 2",
        "maze/日本           spec-example  WA         0.01s             turn 3"]


def test_widths_count_columns_not_characters():
    assert width("abc") == 3
    assert width("日本") == 4
    assert width("e\u0301") == 1
    assert width(paint_status("AC", Status.ACCEPTED, True)) == 2


def test_an_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="unknown table layout"):
        table([], ["a"], "grid")


# words as a detail has them: single spaces between words of ASCII, or of any of LETTERS
ASCII_WORDS = st.lists(st.text(alphabet="abcdefghij-./:0129()", min_size=1, max_size=30), max_size=12).map(" ".join)
ANY_WORDS = st.lists(st.lists(LETTERS.filter(lambda letter: letter != " "), min_size=1, max_size=30).map("".join),
                     max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=ASCII_WORDS, columns=st.integers(1, 40))
def test_ascii_details_wrap_as_textwrap_wraps_them(text, columns):
    expected = textwrap.wrap(text, columns, break_long_words=True, break_on_hyphens=False) or [""]
    assert wrap(text, columns) == [line.rstrip() for line in expected]     # (no space left at a line's end)


@settings(max_examples=300, deadline=None)
@given(text=ANY_WORDS, columns=st.integers(2, 40))
@example(text="a 日aa", columns=3)          # a wide first character that does not fit after a word
def test_wrapped_lines_fit_their_columns_and_keep_every_character(text, columns):
    lines = wrap(text, columns)
    assert all(width(line) <= columns for line in lines), lines
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_a_wide_detail_wraps_by_columns():
    assert wrap("日本語の説明 です", 8) == ["日本語の", "説明", "です"]
