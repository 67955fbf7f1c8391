"""The site without a browser: the bounded output copy, the bounded desert replay, escaping,
the SVG pictures and their commands, and --html's bad folder (one line, exit 2)."""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from verify.contests.arrows.model import parse_text
from verify.contests.arrows.presenter import arrows_svg
from verify.contests.contract import BatchTask
from verify.contests.desert.engine import Crossing, GameOver, IllegalTurn, Turn
from verify.contests.desert.judge import DesertJudge, judge_bytes
from verify.contests.desert.map import DesertMap
from verify.contests.desert.presenter import desert_svg
from verify.contests.desert.replay import EDGE_TURNS, attempt_start_in, desert_replay
from verify.site.capture import OutputCapture, capturing
from verify.site.render import draw, render, slug

ROOT = Path(__file__).resolve().parents[2]


SPEC_MAP = b".....S.\n.......\n.......\nE......\n....8..\n"


SPEC_OUTPUT = (b"D+0\nD+0\nD+0\nD+0\nL+5\nL+0\nL+0\nL+0\nL+0\nU+0\n"
               b".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n")


# a 1-row map, S at the left, E 5 squares right: five units just reach it
ROW_MAP = b"S....E\n"


def _captured(data: bytes, head: int = 1 << 20, tail: int = 1 << 20, chunk: int = 4096) -> OutputCapture:
    capture = OutputCapture(head, tail)
    for start in range(0, len(data), chunk):
        capture.add(data[start:start + chunk])
    return capture


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400), st.integers(0, 64), st.integers(0, 64), st.integers(1, 50))
def test_the_capture_keeps_exactly_the_head_and_the_tail(data, head, tail, chunk):
    capture = _captured(data, head, tail, chunk)
    assert capture.total == len(data)
    assert bytes(capture.head) == data[:head]
    kept_tail = data[head:][-tail:] if tail else b""
    assert capture.tail == kept_tail
    assert capture.whole == (len(data) <= head + tail)
    assert capture.output() == (data if capture.whole else None)
    assert capture.tail_offset == len(data) - len(kept_tail)


def test_a_captured_task_feeds_the_same_chunks_to_its_judge():
    desert = DesertMap.parse(SPEC_MAP)
    capture = OutputCapture()
    task = BatchTask("spec", None, b"", lambda: DesertJudge(desert))  # type: ignore[arg-type]
    wrapped = capturing(task, capture)
    judge = wrapped.judge()
    for start in range(0, len(SPEC_OUTPUT), 7):
        assert judge.feed(SPEC_OUTPUT[start:start + 7]) is None
    assert judge.finish().accepted
    assert capture.output() == SPEC_OUTPUT
    wrapped.judge()                     # a second run starts a fresh copy
    assert capture.total == 0


def test_the_replay_follows_the_transcript_turn_by_turn():
    desert = DesertMap.parse(SPEC_MAP)
    replay = desert_replay(desert, _captured(SPEC_OUTPUT), {"attempts": 1})
    (attempt,) = replay["attempts"]
    assert attempt["outcome"] == "won" and attempt["turns"] == 10 and attempt["failure"] is None
    turns = attempt["sections"][0]["turns"]
    assert [t[:3] for t in turns[:5]] == [[1, 5, 4], [2, 5, 3], [3, 5, 2], [4, 5, 1], [4, 4, 5]]
    assert turns[4][3:] == [4 * 7 + 4, 8, 3]           # the 8 keeps 3
    assert turns[-1][:2] == list(desert.end)


def test_a_rejected_turn_is_named_with_its_square():
    desert = DesertMap.parse(SPEC_MAP)
    replay = desert_replay(desert, _captured(b"D+0\nD+9\n"), {"attempts": 0})
    failure = replay["attempts"][0]["failure"]
    assert failure["square"] == [2, 5] and failure["turn"] == 2
    assert failure["message"] == "attempt 1, turn 2 at (2,5): pick up 9 but the tile holds no water"


def _long_attempt(ferries: int) -> bytes:
    """One winning attempt on ROW_MAP of 2 * ferries + 5 turns: out and back to S (refilling), then across."""
    return b"R+0\nL+2\n" * ferries + b"R+0\n" * 5 + b"S####E\n"


def _deaths() -> list[bytes]:
    """Every distinct death on ROW_MAP: five moves right or left, never off the grid nor onto E."""
    found = []
    for moves in itertools.product("RL", repeat=5):
        col, seen = 0, set()
        for move in moves:
            col += 1 if move == "R" else -1
            if col < 0 or col == 5:
                break
            seen.add(col)
        else:
            row = "".join("S" if c == 0 else "E" if c == 5 else "#" if c in seen else "." for c in range(6))
            found.append("".join(f"{m}+0\n" for m in moves).encode() + row.encode() + b"\n")
    return found


def test_a_long_attempt_keeps_its_first_and_last_turns_and_the_state_between():
    desert = DesertMap.parse(ROW_MAP)
    output = _long_attempt(5 * EDGE_TURNS)
    assert judge_bytes(desert, output).accepted
    replay = desert_replay(desert, _captured(output), {"attempts": 1})
    (attempt,) = replay["attempts"]
    first, last = attempt["sections"]
    assert attempt["turns"] == 10 * EDGE_TURNS + 5
    assert len(first["turns"]) == len(last["turns"]) == EDGE_TURNS
    assert last["first"] == attempt["turns"] - EDGE_TURNS + 1
    assert last["turns"][-1][:2] == [0, 5]
    # the state where the kept end starts: what the turns before it left (an odd number: the last R+0)
    assert last["state"]["at"] == [0, 1] and last["state"]["carried"] == 4
    assert last["state"]["visited"] == "010000" and last["state"]["water"] == "000000"
    assert any("first and the last" in note for note in replay["notes"])


def test_a_huge_output_is_replayed_from_its_head_and_tail_within_bounds():
    """Thousands of deaths, then a win: only the head and tail are kept; the attempts that start in
    the tail are numbered as the judge counted them."""
    desert = DesertMap.parse(ROW_MAP)
    deaths = _deaths() * 1
    output = b"".join(deaths) + _long_attempt(30_000)
    verdict = judge_bytes(desert, output)
    assert verdict.accepted, verdict.message
    capture = _captured(output, head=4096, tail=8192)
    assert not capture.whole
    replay = desert_replay(desert, capture, verdict.stats)
    numbers = [a["number"] for a in replay["attempts"]]
    assert numbers[:len(deaths)] == list(range(1, len(deaths) + 1)) and numbers[-1] == len(deaths) + 1
    assert len(json.dumps(replay)) < 1 << 20
    assert any("first 4,096 and last 8,192 bytes" in note for note in replay["notes"])


def test_an_attempt_starts_after_a_whole_map_block():
    desert = DesertMap.parse(SPEC_MAP)
    block = b".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n"
    data = b"0\nD+0\n" + block + b"D+0\n"
    start = attempt_start_in(data, desert, "moves-first")
    assert data[start:] == b"D+0\n"
    assert attempt_start_in(data, desert, "map-first") == data.index(block)
    assert attempt_start_in(b"D+0\nD+0\n", desert, "moves-first") is None


def test_templates_escape_everything_and_slugs_are_safe_file_names():
    hostile = "<script>alert(1)</script>\"'&\x1b[31m"
    page = render("entry.html", root="", entry={
        "label": hostile, "name": hostile, "contest": "desert", "language": hostile, "score": hostile,
        "source": hostile, "source_name": hostile, "source_bytes": 1, "passed": False, "why_not": hostile,
        "error": hostile, "cases": [{"name": hostile, "passed": False, "status": "wrong", "message": hostile,
                                      "time": 0.1, "memory": 0, "page": None}],
        "isolation": hostile, "differences": hostile})
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&#39;&amp;" in page
    assert "\x1b" not in page and "\\x1b[31m" in page
    replay = render("verify.contests.desert:templates/desert.html", root="", title=hostile, back="x", back_name=hostile, passed=False,
                    status="wrong", message=hostile, detail=hostile, unit="turn",
                    replay={"notes": [hostile], "attempts": [], "rows": None, "bad": hostile})
    data = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', replay, re.S)
    assert data and "<" not in data.group(1) and json.loads(data.group(1))["bad"] == hostile
    assert "<script>alert" not in replay
    for text in (hostile, "../../etc/passwd", "a/b", ""):
        name = slug(text)
        assert re.fullmatch(r"[A-Za-z0-9_-]+", name)
    assert slug("a/b") != slug("a-b")


def test_the_arrows_picture_draws_the_path_and_marks_the_givens_and_the_broken_rule():
    puzzle = parse_text("3\n1SE 0SW 0S\n0S 0N 0N\n0E 0NE 9\n")
    solved = [1, 3, 8, 4, 2, 7, 5, 6, 9]
    svg = draw(arrows_svg(puzzle, solved))
    assert svg.count('class="segment"') == 8
    assert svg.count('class="cell given') == 2          # 1 and 9
    wrong = [1, 3, 8, 4, 2, 7, 6, 5, 9]
    svg = draw(arrows_svg(puzzle, wrong, "6 at (2,1) is not on the SE ray of 5 at (2,0)"))
    assert svg.count("flagged") >= 2 and ">!</text>" in svg


def test_an_arrows_page_shows_the_puzzle_beside_a_board_that_changed_a_given(tmp_path):
    """A flawed board prints 4 where the puzzle gave 6: the page draws the puzzle (its givens
    only) beside the board printed, where that cell is not marked given but reads "given 6,
    printed 4", and the only cells marked given there are the givens the board kept."""
    from verify.contests.arrows import ArrowsOptions
    from verify.contests.arrows.judge import ArrowsJudge
    from verify.contests.arrows.presenter import PRESENTER
    from verify.contests.contract import TestCase
    from verify.results import CaseResult
    from verify.site import CaseRun, EntryPage, write_check_site

    text = "3\n1SE 0SW 0S\n0S 0N 0N\n0E 6NE 9\n"
    puzzle = parse_text(text)
    printed = b"3\n1SE 3SW 8S\n6S 2N 7N\n5E 4NE 9\n"          # the path of a solution, 6 and 4 swapped
    judge = ArrowsJudge(puzzle)
    verdict = judge.feed(printed) or judge.finish()
    assert verdict.message == "the given 6 at (2,1) was changed to 4"
    capture = OutputCapture()
    capture.add(printed)
    case = TestCase("changed-given", text.encode(), payload=puzzle)
    run = CaseRun(CaseResult("arrows/flawed", "changed-given", verdict, 0.01, 1 << 20), case, capture)
    entry = EntryPage("arrows/flawed", "flawed", "arrows", ArrowsOptions(), PRESENTER, runs=[run])
    site = write_check_site(tmp_path / "site", [], [entry])
    [page] = [p for p in site.pages if "replays" in p.parts]
    html = page.read_text()
    puzzle_svg, board_svg = html.split('<svg xmlns="http://www.w3.org/2000/svg" class="')[1:]
    assert puzzle_svg.startswith("arrows-puzzle") and board_svg.startswith("arrows-board")
    given = r'<g class="cell given[^"]*" data-row="(\d)" data-col="(\d)"'
    assert re.findall(given, puzzle_svg) == [("0", "0"), ("2", "1"), ("2", "2")]   # the puzzle's 1, 6, 9
    assert 'class="segment"' not in puzzle_svg
    assert re.findall(given, board_svg) == [("0", "0"), ("2", "2")]                # 1 and 9 kept; not the 4
    changed = re.search(r'<g class="cell changed flagged" data-row="2" data-col="1">\s*<title>([^<]*)</title>',
                        board_svg)
    assert changed and changed.group(1) == "(2,1) NE, given 6, printed 4"
    assert ">4</text>" in board_svg and ">4*</text>" not in board_svg and ">(6*)</text>" in board_svg
    assert "<li>(2,1): given 6, printed 4</li>" in html
    assert board_svg.count('class="segment"') == 8


def test_the_site_names_no_contest_and_copies_only_the_scripts_of_the_contests_it_shows(tmp_path):
    """The generic site (its code, templates, script and styles) and the command writing it know
    no contest: what a contest shows comes from its presenter, and the static files of a site
    hold the site's own part and those of the presenters whose pages it has."""
    from verify import contests
    from verify.site import EntryPage, write_check_site

    core = [p for p in (ROOT / "verify" / "site").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    core.append(ROOT / "verify" / "commands" / "site.py")
    names = [*contests.names(), "inception"]
    for path in core:
        text = path.read_text(encoding="utf-8").lower()
        assert not [name for name in names if re.search(rf"\b{name}\b", text)], path
        assert not re.search(r"verify\.contests\.(?!contract\b)\w+", text), path
    desert = contests.get("desert").load_presenter()
    site = write_check_site(tmp_path / "site", [], [EntryPage("desert/x", "x", "desert", presenter=desert)])
    script = (site.folder / "static" / "site.js").read_text()
    assert "replays.desert = desertReplay" in script and "mazeReplay" not in script
    assert ".cell.water" in (site.folder / "static" / "site.css").read_text()
    plain = write_check_site(tmp_path / "plain", [], [EntryPage("echo/x", "x", "echo")])
    assert "desertReplay" not in (plain.folder / "static" / "site.js").read_text()


def test_the_desert_picture_shows_each_attempts_end():
    desert = DesertMap.parse(SPEC_MAP)
    svg = draw(desert_svg(desert, desert_replay(desert, _captured(SPEC_OUTPUT), {"attempts": 1})))
    assert "attempt 1: won, 10 turns" in svg
    assert svg.count('class="route"') == 1 and ">3</text>" in svg and ">@</text>" in svg
    rejected = draw(desert_svg(desert, desert_replay(desert, _captured(b"D+0\nD+9\n"), {})))
    assert "sq illegal" in rejected and "pick up 9 but the tile holds no water" in rejected


def test_the_end_of_a_winning_attempt_cut_from_the_head_is_replayed_backwards_exactly():
    """A winning attempt longer than the head and the tail: its last turns, undone from the final
    map, are the very turns a whole replay gives (squares, water carried, tiles)."""
    desert = DesertMap.parse(b"S.3..E\n")
    ferry = b"R+0\nR+1\nL+0\nL+2\n"         # fetch a unit from the 3 and come back: the 3 is never emptied
    output = ferry + b"R+0\nL+2\n" * 20_000 + b"R+0\nR+1\nR+0\nR+0\nR+0\n" + b"S#1##E\n"
    verdict = judge_bytes(desert, output)
    assert verdict.accepted, verdict.message
    whole = desert_replay(desert, _captured(output), verdict.stats)["attempts"][-1]
    cut = desert_replay(desert, _captured(output, head=4096, tail=8192), verdict.stats)
    attempt = cut["attempts"][-1]
    assert attempt["outcome"] == "won" and attempt["turns"] == whole["turns"] == verdict.stats["winning_turns"]
    end, expected = attempt["sections"][-1], whole["sections"][-1]
    assert end["first"] == expected["first"] and end["turns"] == expected["turns"]
    assert end["state"]["at"] == expected["state"]["at"] and end["state"]["carried"] == expected["state"]["carried"]
    assert end["state"]["water"] == expected["state"]["water"]


def _short_deaths(desert: DesertMap, count: int) -> bytes:
    """``count`` distinct deaths of up to 5 turns each (moves and drops), each with its final map."""
    from verify.contests.desert.engine import Crossing, IllegalTurn, Outcome, Turn
    found: list[bytes] = []
    for length in range(1, 6):
        for moves in itertools.product("UDLR", repeat=length):
            for drops in itertools.product(range(4), repeat=length - 1):
                game = Crossing(desert)
                turns = [Turn(m, "drop", d) for m, d in zip(moves[:-1], drops, strict=True)]
                turns.append(Turn(moves[-1], "drop", max(0, 4 - length + 1 - sum(drops))))
                try:
                    game.play(turns)
                except IllegalTurn:
                    continue
                if game.outcome is Outcome.DEAD and game.turns == length:
                    text = "".join(f"{t.direction}-{t.amount}\n" for t in turns)
                    found.append(text.encode() + game.render_bytes())
                    if len(found) == count:
                        return b"".join(found)
    raise AssertionError(f"only {len(found)} deaths")


def test_a_page_of_many_short_attempts_stays_bounded(monkeypatch):
    """600 deaths (and no win), 200 attempts listed at most: the first and last 100 are."""
    from verify.contests.desert import replay as replays
    monkeypatch.setattr(replays, "MAX_ATTEMPTS", 200)
    desert = DesertMap.parse(b"." * 9 + b"\n" + (b"." * 4 + b"S" + b"." * 4 + b"\n") + b"." * 8 + b"E\n")
    output = _short_deaths(desert, 600)
    verdict = judge_bytes(desert, output)
    assert verdict.stats["deaths"] == 600, verdict.message
    replay = desert_replay(desert, _captured(output), verdict.stats)
    assert [a["number"] for a in replay["attempts"]] == [*range(1, 101), *range(501, 601)]
    assert any("400 of the 600 attempts read are not listed" in note for note in replay["notes"])
    assert len(json.dumps(replay)) < 1 << 19


@st.composite
def _maps_and_turns(draw):
    width, height = draw(st.integers(2, 5)), draw(st.integers(1, 4))
    squares = draw(st.lists(st.sampled_from(".123456789"), min_size=width * height, max_size=width * height))
    start, end = draw(st.lists(st.integers(0, width * height - 1), min_size=2, max_size=2, unique=True))
    squares[start], squares[end] = "S", "E"
    text = "".join("".join(squares[r * width:(r + 1) * width]) + "\n" for r in range(height))
    turns = draw(st.lists(st.tuples(st.sampled_from("UDLR"), st.sampled_from(["pick", "drop", "fill"]),
                                    st.integers(0, 6)), max_size=60))
    return DesertMap.parse(text.encode()), turns


@settings(max_examples=300, deadline=None)
@given(_maps_and_turns())
def test_the_engines_frames_are_its_states_turn_by_turn(case):
    """The frames the engine gives as it plays a run of turns (what the replay shows) are the
    states it reaches pushing them one by one, tile changes included."""
    desert, wanted = case
    game = Crossing(desert)
    legal, expected = [], []
    for direction, action, amount in wanted:
        turn = Turn(direction, action, 0 if action == "fill" else amount)
        before = bytes(game.water)
        try:
            game.push(turn)
        except GameOver:
            break
        except IllegalTurn:
            continue
        legal.append(turn)
        frame = [game.row, game.col, game.carried]
        changed = [i for i in range(len(before)) if before[i] != game.water[i]]
        if changed:
            frame += [changed[0], before[changed[0]], game.water[changed[0]]]
        expected.append(frame)
    replayed, frames = Crossing(desert), []
    replayed.play(legal, frames)
    assert frames == expected
    assert replayed.water == game.water and replayed.position == game.position
