"""Code-golf scores: exact byte counts, flag penalties, headers, ranking order."""
import pytest

from verify.golf import Score, Standing, flag_penalty, rank_standings, score_source


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
