"""The check report's table against tabulate's own layouts, which it replaces there."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tabulate import tabulate

from verify.reports.colour import paint_status
from verify.reports.text_table import table, width
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
