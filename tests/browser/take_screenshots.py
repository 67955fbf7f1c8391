"""The screenshots of docs/images/: the index and the three replay types, in headless Chromium.

Builds a site from the bundled entries (``verify check`` of the desert and arrows entries, a
small ``verify koth maze``), opens four pages, sets each at a telling moment and saves them.

    python3 tests/browser/take_screenshots.py [--into docs/images]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[2]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _verify(*args: str) -> None:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *args], cwd=REPO, env=environment,
                   stdout=subprocess.DEVNULL, check=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--into", type=Path, default=REPO / "docs" / "images")
    into = parser.parse_args().into
    with tempfile.TemporaryDirectory() as scratch:
        site, maze = Path(scratch) / "site", Path(scratch) / "maze"
        entries = sorted(str(p) for pattern in ("desert/*", "arrows/*") for p in (REPO / "submissions").glob(pattern))
        _verify("check", "-j", "2", *entries, "--html", str(site))
        _verify("koth", "maze", "submissions/maze/theseus", "submissions/maze/minotaur", "submissions/maze/drunkard",
                "--sizes", "10", "--seeds", "1", "--size-range", "5..20", "--html", str(maze), "-q",
                "--logs", str(Path(scratch) / "logs"))
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(Path(scratch) / "profile"), executable_path="/usr/bin/chromium", headless=True, args=ARGS,
                viewport={"width": 1100, "height": 820})
            page = context.new_page()
            page.goto((site / "index.html").as_uri())
            page.screenshot(path=str(into / "site-index.png"))
            page.goto(next((site / "replays").glob("desert-perl-deaths-*/demo-*.html")).as_uri())
            page.select_option("#attempt", "3")
            for _ in range(9):
                page.keyboard.press("ArrowRight")
            page.screenshot(path=str(into / "site-desert.png"))
            page.goto(next((site / "replays").glob("arrows-c-gaps-*/g07-7x7-a-*.html")).as_uri())
            page.screenshot(path=str(into / "site-arrows.png"))
            page.goto(next((maze / "matches").glob("*--drunkard-*.html")).as_uri())
            page.check("#fog")
            for _ in range(40):
                page.keyboard.press("ArrowRight")
            page.screenshot(path=str(into / "site-maze.png"))
            context.close()


if __name__ == "__main__":
    main()
