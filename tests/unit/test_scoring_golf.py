"""Code-golf scores: exact byte counts, flag penalties, headers, ranking order."""
import importlib.util
import json
from pathlib import Path

import pytest

from verify.entries import load_entry
from verify.errors import EntryError
from verify.golf import (
    NotInCodePage,
    Score,
    Standing,
    count_bytes,
    count_chars,
    flag_penalty,
    per_language,
    rank_standings,
    score_entry,
    score_source,
)
from verify.report_escape import markdown
from verify.reports.leaderboard import code_span, rank_report
from verify.runner.languages import codepage, languages


@pytest.mark.parametrize("flag, penalty", [
    ("-n", 1), ("-p", 1), ("-l", 1), ("-F,", 2), ("-lane", 4), ("-M5.010", 6),
    ("--harmony", 10), ("--stack-size=65500", 19), ("-x y", 5), ("-O2=3", 6),
])
def test_flag_penalties(flag, penalty):
    assert flag_penalty(flag) == penalty


def test_bytes_are_utf8_octets_and_chars_are_code_points():
    score = score_source("print('é→')\n".encode())
    assert (score.source_bytes, score.chars, score.penalty, score.total) == (15, 12, 0, 15)


def test_a_trailing_newline_counts():
    assert score_source(b"print(1)").total + 1 == score_source(b"print(1)\n").total


def test_non_utf8_source_counts_each_byte_as_a_char():
    score = score_source(b"\xff\xfeab")
    assert (score.source_bytes, score.chars) == (4, 4)


def test_perl_n_header_matches_the_contest_convention():
    score = score_source(b"x" * 254, ("-n",))
    assert score.total == 255
    assert score.header("Perl") == "# Perl -n, 254 + 1 = 255 bytes"
    assert score_source(b"x" * 42).header("Python") == "# Python, 42 bytes"
    assert score_source(b"x" * 10, ("-n", "-l")).header("Perl") == "# Perl -n -l, 10 + 2 = 12 bytes"


def standing(label, total, passed=True, added=None):
    return Standing(label, label, "python", Score(total, 0, total), passed, "" if passed else "failed", added)


def test_ranking_by_score_then_earliest_then_name():
    ranked = rank_standings([
        standing("late-tie", 50, added=200), standing("long", 90, added=1), standing("early-tie", 50, added=100),
        standing("broken", 10, passed=False), standing("b-untracked", 50), standing("a-untracked", 50)])
    assert [(s.rank, s.label) for s in ranked] == [
        (1, "early-tie"), (2, "late-tie"), (3, "a-untracked"), (4, "b-untracked"), (5, "long"), (None, "broken")]


def test_a_vyxal_program_counts_one_byte_per_character_of_its_code_page():
    vyxal = languages()["vyxal"]
    source = "`hi`†ƛ₀+;\n".encode()
    score = score_source(source, (), vyxal)
    assert (score.source_bytes, score.chars) == (10, 10)
    assert len(source) > 10                      # in UTF-8 it would cost more
    assert score.header("Vyxal") == "# Vyxal, 10 bytes"


def test_a_character_outside_the_code_page_is_an_error_naming_it():
    with pytest.raises(NotInCodePage, match=r"^'é' \(U\+00E9\) at line 2, column 3 is not in Vyxal's code page"):
        count_bytes("1\nabé\n".encode(), languages()["vyxal"])
    with pytest.raises(NotInCodePage, match=r"^byte 2 is not UTF-8"):
        count_bytes(b"a\xff", languages()["vyxal"])


def test_an_entry_with_a_character_outside_its_code_page_is_not_ranked(tmp_path):
    (tmp_path / "p.vy").write_text("ä")
    (tmp_path / "entry.toml").write_text('contest = "desert"\nlanguage = "vyxal"\nsource = "p.vy"\n'
                                         '[desert]\ndemo = "d.txt"\n')
    (tmp_path / "d.txt").write_text("S.E\n")
    entry = load_entry(tmp_path)
    with pytest.raises(EntryError, match=r"source: 'ä' \(U\+00E4\) at line 1, column 1 is not in Vyxal's code page"):
        score_entry(entry)


def test_the_code_page_is_the_installed_vyxal_s():
    """Read from the package languages.toml runs (its encoding.py needs nothing but `string`)."""
    path = Path(languages()["vyxal"].requires[0]).with_name("encoding.py")
    if not path.exists():
        pytest.skip(f"vyxal is not installed ({path})")
    spec = importlib.util.spec_from_file_location("vyxal_encoding", path)
    assert spec is not None and spec.loader is not None
    encoding = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(encoding)
    assert codepage("vyxal") == encoding.codepage


def test_chars_count_code_points_and_every_language_but_vyxal_counts_utf8():
    source = "print('é→')\n".encode()
    assert count_bytes(source, languages()["python"]) == 15 and count_chars(source) == 12


def test_under_the_language_rule_flags_cost_nothing_and_are_shown_as_code():
    score = score_source(b"x" * 57, ("-n",), flag_rule="language")
    assert (score.penalty, score.total) == (0, 57)
    assert score.header("Perl 5") == "# Perl 5 `-n`, 57 bytes"
    assert score_source(b"x" * 57, ("-n",)).header("Perl 5") == "# Perl 5 -n, 57 + 1 = 58 bytes"


def test_headers_by_chars():
    score = score_source("é".encode() * 3, ("-l",))
    assert score.header("Perl", "chars") == "# Perl -l, 3 + 1 = 4 chars"
    assert score.total_by("chars") == 4 and score.total_by("bytes") == 7


def test_ranking_by_chars_can_differ_from_bytes():
    def scored(label, source):
        return Standing(label, label, "python", score_source(source), True, "", None)
    wide, narrow = scored("wide", "ééé".encode()), scored("narrow", b"abcd")
    assert [s.label for s in rank_standings([wide, narrow])] == ["narrow", "wide"]
    assert [s.label for s in rank_standings([wide, narrow], by="chars")] == ["wide", "narrow"]


def test_per_language_boards_rank_each_language_alone_and_flags_split_them_under_the_language_rule():
    def scored(label, language, size, flags=(), rule="penalty"):
        return Standing(label, label, language, score_source(b"x" * size, flags, flag_rule=rule), True, "", None)
    standings = rank_standings([scored("p1", "perl", 50), scored("p2", "perl", 40, ("-n",)), scored("py", "python", 30),
                                Standing("bad", "bad", "perl", None, False, "failed")])
    assert [(key, [(s.rank, s.label) for s in board]) for key, board in per_language(standings)] == [
        (("perl", ()), [(1, "p2"), (2, "p1")]), (("python", ()), [(1, "py")])]
    assert [s.rank for s in standings if s.passed] == [1, 2, 3]      # the overall board is untouched
    split = rank_standings([scored("p1", "perl", 50, (), "language"), scored("p2", "perl", 40, ("-n",), "language")])
    assert [key for key, _ in per_language(split)] == [("perl", ()), ("perl", ("-n",))]


def test_a_hostile_flag_cannot_break_out_of_its_code_span_in_markdown():
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x") == "`` `x ``"
    score = score_source(b"x", ("-F`",), flag_rule="language")
    assert score.header("Perl", text=markdown, code=code_span) == "# Perl `` -F` ``, 1 bytes"


def test_reports_show_the_per_language_boards_after_the_overall_one():
    standings = rank_standings([Standing("a", "a", "perl", score_source(b"xx"), True, "", None),
                                Standing("b", "b", "python", score_source(b"x"), True, "", None)])
    boards = per_language(standings)
    names = {"perl": "Perl", "python": "Python"}
    table = rank_report("desert", standings, "table", names, boards=boards)
    assert table.index("Leaderboard: desert") < table.index("desert, Perl") < table.index("desert, Python")
    text = rank_report("desert", standings, "markdown", names, by="chars", boards=boards)
    assert "# Python, 1 chars" in text and "## Per language" in text and "### Perl\n\n1. a (a): 2 chars" in text
    data = json.loads(rank_report("desert", standings, "json", names, boards=boards))
    assert data["by"] == "bytes" and [b["language"] for b in data["languages"]] == ["perl", "python"]
