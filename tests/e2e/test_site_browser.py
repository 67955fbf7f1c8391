"""The HTML site in a real browser: Debian's Chromium driven by Playwright (no browser download).

One browser for the whole module; the sites are built once: the bundled arrows entries checked
on the spec's two puzzles (a real ``verify check --html``), a tiny maze tournament (a real
``verify koth maze --html``), and desert pages made from known outputs (the spec's example, a
rejected output, a hostile entry) without running anything. Skipped, with the reason, only
where Chromium is absent; .ci/run installs it, so CI always runs these.
"""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from verify.contests.contract import TestCase
from verify.contests.desert import DesertCase, DesertOptions
from verify.contests.desert.judge import judge_bytes
from verify.contests.desert.map import DesertMap
from verify.contests.desert.presenter import PRESENTER as DESERT
from verify.entries import load_entry
from verify.golf import score_entry
from verify.results import CaseResult
from verify.site import CaseRun, EntryPage, OutputCapture, write_check_site

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine (apt-get install chromium; "
                                                         ".ci/run installs it)")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra)")

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

SPEC_MAP = b".....S.\n.......\n.......\nE......\n....8..\n"
SPEC_OUTPUT = (b"D+0\nD+0\nD+0\nD+0\nL+5\nL+0\nL+0\nL+0\nL+0\nU+0\n"
               b".....S.\n.....#.\n.....#.\nE....#.\n####3#.\n")
# turn 2 moves to (2,5) and picks up 9 from a dry tile: rejected there
REJECTED_OUTPUT = b"D+0\nD+9\n"
HOSTILE = "<script>window.pwned = 1</script>\"'&"


def _verify(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def _desert_run(name: str, output: bytes, stderr_note: str = "") -> CaseRun:
    desert = DesertMap.parse(SPEC_MAP)
    verdict = judge_bytes(desert, output)
    if stderr_note:
        verdict.detail = stderr_note
    capture = OutputCapture()
    capture.add(output)
    case = TestCase(name, SPEC_MAP, payload=DesertCase(desert))
    return CaseRun(CaseResult("desert/x", name, verdict, time=0.01, memory=1 << 20), case, capture)


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    root = tmp_path_factory.mktemp("sites")
    arrows = root / "arrows"
    entries = sorted(str(p) for p in (ROOT / "submissions" / "arrows").iterdir() if (p / "entry.toml").exists())
    done = _verify("check", *entries, "--case", "spec-*", "--html", str(arrows))
    assert done.returncode == 0, done.stdout + done.stderr
    maze = root / "maze"
    done = _verify("koth", "maze", "submissions/maze/theseus", "submissions/maze/drunkard", "--sizes", "4",
                   "--seeds", "1", "--size-range", "3..10", "--html", str(maze), "--logs", str(root / "logs"), "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    desert = root / "desert"
    good = EntryPage("desert/good", "good", "desert", DesertOptions(), DESERT, language="python", passed=True,
                     source="print('hi')\n", source_name="a.py", source_bytes=12,
                     runs=[_desert_run("spec-example", SPEC_OUTPUT)])
    bad = EntryPage("desert/bad", "bad", "desert", DesertOptions(), DESERT, passed=False, why_not="rejected",
                    runs=[_desert_run("spec-example", REJECTED_OUTPUT)])
    row_map = b"S....E\n"
    long_output = b"R+0\nL+2\n" * 3000 + b"R+0\n" * 5 + b"S####E\n"
    long_capture = OutputCapture()
    long_capture.add(long_output)
    long_case = TestCase("long", row_map, payload=DesertCase(DesertMap.parse(row_map)))
    long = EntryPage("desert/long", "long", "desert", DesertOptions(), DESERT, passed=True, runs=[CaseRun(
        CaseResult("desert/long", "long", judge_bytes(DesertMap.parse(row_map), long_output)), long_case,
        long_capture)])
    hostile = EntryPage("desert/" + HOSTILE, HOSTILE, "desert", DesertOptions(), DESERT, passed=False,
                        why_not=HOSTILE,
                        source=HOSTILE, source_name=HOSTILE, source_bytes=len(HOSTILE),
                        runs=[_desert_run(HOSTILE, HOSTILE.encode() + b"\n", stderr_note=HOSTILE)])
    site = write_check_site(desert, [], [good, bad, long, hostile])
    pages = {p.relative_to(desert).as_posix(): p for p in site.pages}
    return {"arrows": arrows, "maze": maze, "desert": desert, "desert_pages": pages}


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield context
        finally:
            context.close()


class Page:
    """A page opened from the file system, with every console error, page error and failed request."""

    def __init__(self, context, path: Path):
        self.problems: list[str] = []
        self.page = context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.problems.append(f"console: {m.text}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"failed: {r.url}"))
        self.page.goto(path.as_uri())
        self.page.wait_for_load_state("load")

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text()

    def close(self) -> None:
        assert self.problems == []
        self.page.close()


def _open(browser, path: Path) -> Page:
    return Page(browser, path)


def _distinct_pixels_bytes(png: bytes) -> int:
    """How many distinct byte values the image's decompressed rows hold: a blank page has a handful."""
    position, data = 8, b""
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        if kind == b"IDAT":
            data += png[position + 8:position + 8 + length]
        position += 12 + length
    return len(set(zlib.decompress(data)))


def _screenshot(page: Page, name: str, tmp_path: Path) -> None:
    shot = page.page.screenshot(full_page=True)
    (tmp_path / f"{name}.png").write_bytes(shot)
    assert _distinct_pixels_bytes(shot) > 40, f"the {name} page looks blank"


def _desert_page(sites, entry: str) -> Path:
    return next(path for relative, path in sites["desert_pages"].items()
                if relative.startswith(f"replays/desert-{entry}-"))


def test_the_blank_check_itself_tells_a_blank_page(browser, tmp_path):
    page = browser.new_page()
    page.set_content("<html><body></body></html>")
    assert _distinct_pixels_bytes(page.screenshot()) <= 40
    page.close()


def test_the_index_lists_the_bundled_entries_in_rank_order(browser, sites, tmp_path):
    page = _open(browser, sites["arrows"] / "index.html")
    rows = page.page.locator("table.leaderboard[data-contest=arrows] tbody tr")
    names = [rows.nth(i).locator("td.entry-name").inner_text() for i in range(rows.count())]
    ranks = [rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())]
    folders = [p for p in (ROOT / "submissions" / "arrows").iterdir() if (p / "entry.toml").exists()]
    expected = sorted((score_entry(load_entry(p)).total, load_entry(p).name) for p in folders)
    assert names == [name for _, name in expected]
    assert ranks == [str(i) for i in range(1, len(names) + 1)]
    _screenshot(page, "index", tmp_path)
    page.close()


def test_an_entry_page_shows_its_source_and_cases(browser, sites, tmp_path):
    entry = next((sites["arrows"] / "entries").glob("arrows-python-golf-*.html"))
    page = _open(browser, entry)
    source = (ROOT / "submissions" / "arrows" / "python-golf").glob("*.py")
    assert f"{len(next(source).read_bytes())} bytes" in page.text("main h2:has-text('Source')")
    assert page.page.locator("table.cases tbody tr").count() == 2
    page.page.locator("table.cases a", has_text="replay").first.click()
    page.page.wait_for_load_state("load")
    assert page.page.locator("svg.arrows-board").count() == 1
    _screenshot(page, "entry", tmp_path)
    page.close()


def test_an_arrows_page_draws_n_minus_1_segments(browser, sites, tmp_path):
    replay = next((sites["arrows"] / "replays").glob("arrows-python-golf-*/spec-puzzle-2-*.html"))
    page = _open(browser, replay)
    cells = page.page.locator("svg.arrows-board g.cell").count()
    assert cells == 25
    assert page.page.locator("svg.arrows-board line.segment").count() == cells - 1
    assert page.page.locator("svg.arrows-board g.given").count() >= 2      # the givens, marked
    assert page.page.locator("svg.arrows-board g.flagged").count() == 0
    assert page.page.locator("svg.arrows-puzzle g.cell").count() == cells      # the puzzle beside it
    assert page.page.locator("svg.arrows-puzzle line.segment").count() == 0
    _screenshot(page, "arrows", tmp_path)
    page.close()


def test_desert_step_moves_the_traveller_and_the_water(browser, sites, tmp_path):
    page = _open(browser, _desert_page(sites, "good"))
    p = page.page
    assert page.text("#turn") == "0" and page.text("#position") == "(0,5)" and page.text("#carried") == "5"
    p.click("#step")
    # turn 1 of the transcript: D+0 from (0,5): (1,5), 4 units
    assert page.text("#turn") == "1" and page.text("#position") == "(1,5)" and page.text("#carried") == "4"
    assert p.locator("#grid td.traveller").get_attribute("data-row") == "1"
    for _ in range(4):
        p.keyboard.press("ArrowRight")
    # turn 5: L+5 onto the 8 at (4,4): carries 5, the tile keeps 3
    assert page.text("#position") == "(4,4)" and page.text("#carried") == "5"
    p.keyboard.press("ArrowLeft")
    assert page.text("#position") == "(4,5)" and page.text("#carried") == "1"
    assert p.locator("#grid td[data-row='4'][data-col='4']").inner_text() == "8"
    p.keyboard.press("ArrowRight")
    assert p.locator("#grid td[data-row='4'][data-col='4']").inner_text() == "@"
    p.keyboard.press("ArrowRight")
    assert p.locator("#grid td[data-row='4'][data-col='4']").inner_text() == "3"
    # the scrubber reaches the last turn: the win on E
    p.locator("#scrubber").focus()
    p.keyboard.press("End")
    assert page.text("#turn") == "10" and page.text("#turns") == "10" and page.text("#position") == "(3,0)"
    assert page.text("#outcome") == "✓ the traveller reaches E"
    assert p.locator("#scrubber").input_value() == p.locator("#scrubber").get_attribute("max") == "10"
    _screenshot(page, "desert", tmp_path)
    page.close()


def test_desert_play_runs_to_the_end(browser, sites):
    page = _open(browser, _desert_page(sites, "good"))
    page.page.select_option("#speed", "1000")
    page.page.click("#play")
    page.page.wait_for_function("document.getElementById('turn').textContent === '10'", timeout=10_000)
    assert page.text("#play").endswith("play")          # stopped by itself at the end
    page.close()


def test_a_long_attempt_jumps_over_the_turns_not_kept(browser, sites):
    """6,005 turns: the first and the last 2,000 are kept; the scrubber runs over those 4,000."""
    page = _open(browser, _desert_page(sites, "long"))
    p = page.page
    assert p.locator("#scrubber").get_attribute("max") == "4000"
    p.locator("#scrubber").fill("2000")
    assert page.text("#turn") == "2000" and not p.locator("#gap").is_visible()
    p.keyboard.press("ArrowRight")
    # turn 4,006 (even: L+2 back on S, 5 units), after the note on the turns not kept
    assert page.text("#turn") == "4006" and page.text("#position") == "(0,0)" and page.text("#carried") == "5"
    assert p.locator("#gap").is_visible() and page.text("#gap") == "turns 2001 to 4005 are not shown"
    p.keyboard.press("End")
    assert page.text("#turn") == "6005" and page.text("#position") == "(0,5)"
    assert page.text("#outcome") == "✓ the traveller reaches E"
    page.close()


def test_a_rejected_desert_case_shows_the_rule_and_the_square(browser, sites):
    page = _open(browser, _desert_page(sites, "bad"))
    p = page.page
    message = "attempt 1, turn 2 at (2,5): pick up 9 but the tile holds no water"
    assert message in page.text("p.verdict")
    p.keyboard.press("End")
    assert p.locator("#failure").is_visible() and message in page.text("#failure")
    illegal = p.locator("#grid td.illegal")
    assert illegal.count() == 1
    assert (illegal.get_attribute("data-row"), illegal.get_attribute("data-col")) == ("2", "5")
    assert illegal.inner_text() == "!"
    page.close()


def test_hostile_names_and_output_show_escaped_and_run_nothing(browser, sites):
    hostile_pages = [path for relative, path in sites["desert_pages"].items() if "script" in relative
                     or relative == "index.html"]
    assert len(hostile_pages) >= 2
    for path in hostile_pages:
        raw = path.read_text()
        assert "<script>window" not in raw
        page = _open(browser, path)
        assert page.page.evaluate("typeof window.pwned") == "undefined"
        page.close()
    entry = next(path for relative, path in sites["desert_pages"].items()
                 if relative.startswith("entries/") and "script" in relative)
    page = _open(browser, entry)
    assert page.text("h1") == HOSTILE
    assert page.text("pre.source") == HOSTILE
    assert page.page.evaluate("typeof window.pwned") == "undefined"
    page.page.locator("table.cases a", has_text="replay").click()
    page.page.wait_for_load_state("load")
    assert HOSTILE in page.page.locator("pre.detail").inner_text()
    assert page.page.evaluate("typeof window.pwned") == "undefined"
    page.close()


def test_the_maze_fog_toggle_hides_unseen_walls(browser, sites, tmp_path):
    index = _open(browser, sites["maze"] / "index.html")
    assert index.page.locator("table.heatmap td.heat a").count() >= 1
    index.close()
    match = next((sites["maze"] / "matches").glob("*.html"))
    page = _open(browser, match)
    p = page.page
    walls = "#grid td.wall-s, #grid td.wall-e"
    unknown = "#grid td.unknown-s, #grid td.unknown-e"
    shown = p.locator(walls).count()
    assert shown > 0 and p.locator(unknown).count() == 0
    p.check("#fog")
    assert p.locator(walls).count() < shown and p.locator(unknown).count() > 0
    p.keyboard.press("End")
    seen_at_end = p.locator(walls).count()
    assert seen_at_end >= p.locator(walls).count()
    p.uncheck("#fog")
    assert p.locator(walls).count() == shown
    assert page.text("#turn") == page.text("#turns")
    _screenshot(page, "maze", tmp_path)
    page.close()
