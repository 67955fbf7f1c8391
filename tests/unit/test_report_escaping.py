"""Reports cannot be injected: whatever an entry prints (or names itself), the terminal
sees no raw control character, a Markdown row keeps its cells, JUnit stays valid XML.

Properties over arbitrary text (hypothesis, surrogates and controls included), every
byte 0x00-0xFF, and the hostile printers of tests/fixtures/hostile/entries/ run end to end.
"""
from __future__ import annotations

import json
import re
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.errors import EntryError, VerifyError
from verify.golf import Score, Standing
from verify.report_escape import markdown, one_line, visible, xml_text
from verify.reports.checks import check_report
from verify.reports.leaderboard import rank_report
from verify.reports.verdict import render_verdict
from verify.results import CaseResult, CheckResult
from verify.verdict import Status, Verdict

ALL_BYTES = bytes(range(256))


NASTY = [
    ALL_BYTES.decode("utf-8", "surrogateescape"),   # every byte; the non-UTF-8 ones as lone surrogates
    ALL_BYTES.decode("latin-1"),                     # every byte as a character: C0, DEL, C1
    "]]>", "a]]>b<![CDATA[x]]>", "\ud800", "\udfff\ud800", "\ufffe\uffff",
    "\x1b[2J\x1b[31mred\x1b[0m | `x` <script>alert(1)</script>\r\n\u202eevil",
]


ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=40)


# what XML 1.0 allows (Char production)
_XML_CHAR = re.compile("[\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")


# what a terminal must never receive raw (the newline is a report's own)
_RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028-\u202e\u2066-\u2069]")


def checks_with(label: str, case: str, message: str, detail: str, error: str) -> list[CheckResult]:
    """A failed case, a passed one and an entry that did not load, all made of ``text``."""
    failed = CaseResult(label, case, Verdict(Status.RUNTIME_ERROR, message, detail, warnings=[detail]),
                        time=0.5, memory=1 << 20)
    passed = CaseResult(label, case + "-2", Verdict.accept(message))
    return [CheckResult(label, results=[failed, passed]),
            CheckResult(label + "x", error="broken: " + error)]


def standings_with(name: str, label: str, why_not: str, flag: str) -> list[Standing]:
    ranked = Standing(label, name, "perl", Score(10, 2, 10, (flag,)), passed=True, rank=1)
    unranked = Standing(label + "y", name, "perl", None, passed=False, why_not=why_not)
    return [ranked, unranked]


def unescaped_pipes(line: str) -> int:
    """``|`` not escaped by a backslash (an even run of backslashes before it escapes nothing)."""
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def markdown_table(report: str) -> list[str]:
    lines = report.split("\n")
    return lines[:lines.index("")]


def test_visible_escapes_what_a_terminal_acts_on():
    assert visible("a\x1b[31mb\x07\x00\x7f\x9b\u202e") == "a\\x1b[31mb\\x07\\x00\\x7f\\x9b\\u202e"
    assert visible("tab\there\nnext\r") == "tab\\there\\nnext\\r"
    assert visible("tab\there\nnext\r", lines=True) == "tab\there\nnext\\r"
    assert visible(b"\xff\xfe ok".decode("utf-8", "surrogateescape")) == "\\xff\\xfe ok"
    assert visible("\ud800") == "\\ud800"
    assert visible("plain text, é, 漢字, C:\\path") == "plain text, é, 漢字, C:\\path"


def test_markdown_escapes_markup_and_keeps_one_line():
    assert markdown("a | b") == "a \\| b"
    assert markdown("<script>alert(1)</script>") == "\\<script\\>alert(1)\\</script\\>"
    assert markdown("`x` *y* _z_ [l](u) ![i](u) #h ~s~ &amp; $m$ \\") == \
        "\\`x\\` \\*y\\* \\_z\\_ \\[l\\](u) \\!\\[i\\](u) \\#h \\~s\\~ \\&amp; \\$m\\$ \\\\"
    assert markdown("one\ntwo\r\nthree") == "one<br>two<br>three"
    assert markdown("\x1b[1m") == "\\\\x1b\\[1m"


def test_verify_errors_are_one_visible_line():
    error = EntryError("desert/\x1b[31mred", "name", "bad\nthing\x07")
    assert str(error) == "desert/\\x1b[31mred: name: bad thing\\x07"
    assert str(VerifyError("a\rb")) == "a\\rb"


@pytest.mark.parametrize("text", NASTY)
def test_every_escape_leaves_only_safe_characters(text):
    assert _XML_CHAR.fullmatch(xml_text(text))
    assert not _RAW_CONTROL.search(visible(text))
    assert not _RAW_CONTROL.search(one_line(text)) and "\n" not in one_line(text)
    assert unescaped_pipes(markdown(text)) == 0 and "\n" not in markdown(text)
    xml_text(text).encode("utf-8")          # no lone surrogate left: it can be written out


def _parse_junit(report: str) -> ElementTree.Element:
    return ElementTree.fromstring(report.encode("utf-8"))


@pytest.mark.parametrize("text", NASTY)
def test_junit_is_valid_xml_for_every_byte(text):
    root = _parse_junit(check_report(checks_with(text, text, text, text, text), "junit"))
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("message") == xml_text(text) and failure.text == xml_text(text)
    assert root.find("testsuite").get("name") == xml_text(text)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, ANY_TEXT, ANY_TEXT, ANY_TEXT, ANY_TEXT)
def test_junit_always_parses(label, case, message, detail, error):
    root = _parse_junit(check_report(checks_with(label, case, message, detail, error), "junit"))
    assert len(root.findall("testsuite")) == 2
    assert root.find("testsuite/testcase").get("name") == xml_text(case)
    assert root.findall("testsuite")[1].find("testcase/failure").get("message") == xml_text("broken: " + error)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, ANY_TEXT, ANY_TEXT, ANY_TEXT, ANY_TEXT)
def test_markdown_rows_keep_their_cells(label, case, message, detail, error):
    table = markdown_table(check_report(checks_with(label, case, message, detail, error), "markdown"))
    assert len(table) == 2 + 3                         # header, rule, three rows
    for line in table:
        assert unescaped_pipes(line) == 6 + 1          # six columns
        assert "\n" not in line and not _RAW_CONTROL.search(line)
        assert not re.search(r"(?<!\\)(?:\\\\)*[<`]", line.replace("<br>", ""))


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT, ANY_TEXT, ANY_TEXT, ANY_TEXT)
def test_markdown_leaderboard_keeps_its_lines(name, label, why_not, flag):
    report = rank_report("desert", standings_with(name, label, why_not, flag), "markdown", {"perl": "Perl"})
    lines = report.rstrip("\n").split("\n")
    assert [line for line in lines if line.startswith("#")][0].startswith("# Perl ")
    assert sum(line.startswith("1. **") for line in lines) == 1
    assert sum(line.startswith("- ") for line in lines) == 1
    assert not any(_RAW_CONTROL.search(line) for line in lines)
    assert not any(re.search(r"(?<!\\)(?:\\\\)*[<`|]", line.replace("<br>", "")) for line in lines)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, ANY_TEXT, ANY_TEXT, ANY_TEXT, ANY_TEXT)
def test_table_output_holds_no_raw_control_character(label, case, message, detail, error):
    report = check_report(checks_with(label, case, message, detail, error), "table")
    assert not _RAW_CONTROL.search(report)
    ranks = rank_report("desert", standings_with(label, case, message, detail), "table", {"perl": "Perl"})
    assert not _RAW_CONTROL.search(ranks)


def test_json_escapes_control_characters_itself():
    text = NASTY[0] + NASTY[1]
    report = check_report(checks_with(text, text, text, text, text), "json")
    assert not _RAW_CONTROL.search(report)
    assert json.loads(report)["entries"][0]["cases"][0]["verdict"]["message"] == text


def test_desert_verdict_keeps_the_lines_of_its_detail_and_escapes_the_rest():
    verdict = Verdict(Status.WRONG, "turn 3: \x1b[31m", "expected\x1b[0m  printed\nS.#  S.#\x07",
                      warnings=["\x9b2J"])
    shown = render_verdict(verdict, "table")
    assert shown.splitlines()[1] == "reason: turn 3: \\x1b[31m"
    assert "expected\\x1b[0m  printed\nS.#  S.#\\x07" in shown and "warning: \\x9b2J" in shown
    assert not _RAW_CONTROL.search(shown)


def test_maze_show_escapes_what_the_log_quotes(tmp_path):
    from verify.contests.maze.generate import generate_maze
    from verify.contests.maze.matchlog import show
    maze = generate_maze(5, 1)
    log = tmp_path / "m.jsonl"
    records = [{"type": "match", "solver": "\x1b]0;pwned\x07", "architect": "a|b", "mode": "per-step", "seed": 1},
               {"type": "maze", "text": maze.to_text()},
               {"type": "step", "n": 1, "at": list(maze.start), "failure": "answer '\x1b[2J' is not 'row column'"},
               {"type": "event", "step": "\x1b", "event": "gave up\x1b[0m"},
               {"type": "result", "ended": "\x07", "steps": "x", "architect_score": "bad", "solver_score": None}]
    log.write_text("".join(json.dumps(record) + "\n" for record in records))
    text = show(log)
    assert not _RAW_CONTROL.search(text)
    assert "\\x1b]0;pwned\\x07" in text and "answer '\\x1b[2J'" in text
    assert "result: \\x07; x steps charged; architect score ?, solver score ?" in text
