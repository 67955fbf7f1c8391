"""What the site shows of the desert: a case's replay page, and the final state of each attempt
as SVG, drawn from the engine's state (read only): nothing here decides a rule.

The replay (:mod:`.replay`) is the case's job, done in a helper process while the other cases
run when it can be (the site's pool); the page shows it. Marks as well as colours: every square
carries its letter or number, so a picture reads in black and white.
"""
from __future__ import annotations

from typing import Any

from verify.contests.contract import Captured, CaseJob, Drawing, Page, Presenter, TestCase
from verify.contests.desert.case import DesertCase, case_map
from verify.contests.desert.engine import Crossing
from verify.contests.desert.map import DesertMap
from verify.contests.desert.notation import Notation
from verify.contests.desert.options import DesertOptions
from verify.contests.desert.replay import desert_replay
from verify.verdict import Verdict

TEMPLATES = f"{__package__}:templates"
TEXT_WIDTH = 7          # pixels a character of the 12-13 px titles takes, about: room for a title
MAX_SVG_ATTEMPTS = 60


def replay_job(captured: Captured, desert: DesertMap, stats: dict[str, Any], notation: Notation, order: str,
               deaths: str) -> dict[str, Any]:
    """A case's replay, as the site's pool runs it (a module-level function over plain data)."""
    return desert_replay(desert, captured, stats, notation, order, deaths)


class DesertPresenter(Presenter[DesertOptions, DesertCase]):
    scripts = (f"{__package__}:static/desert.js",)
    styles = (f"{__package__}:static/desert.css",)

    def case_job(self, options: DesertOptions, case: TestCase[DesertCase], verdict: Verdict) -> CaseJob:
        desert = case_map(case)
        rules = (options.notation, options.order, options.deaths)
        stats = dict(verdict.stats)
        return CaseJob(replay_job, (desert, stats, *rules), key=(desert.text(), stats, rules))

    def case_page(self, options: DesertOptions, case: TestCase[DesertCase], verdict: Verdict, captured: Captured,
                  built: Any) -> Page:
        return Page(f"{TEMPLATES}/desert.html", {"replay": built, "unit": "turn"})


PRESENTER = DesertPresenter()


def desert_final(desert: DesertMap, attempt: dict[str, Any]) -> tuple[Crossing, list[list[tuple[int, int]]]]:
    """The last state of an attempt of a replay (:func:`~verify.contests.desert.replay.desert_replay`)
    and its route, one list of squares per kept run of turns."""
    width = desert.width
    section = attempt["sections"][-1]
    state = section["state"]
    water = bytearray(int(c) for c in state["water"]) if state["water"] else desert.flat_water()
    visited = {divmod(i, width) for i, flag in enumerate(state["visited"]) if flag == "1"}
    at, carried = tuple(state["at"]), state["carried"]
    for turn in section["turns"]:
        at, carried = (turn[0], turn[1]), turn[2]
        visited.add(at)
        if len(turn) > 3:
            water[turn[3]] = turn[5]
    for earlier in attempt["sections"][:-1]:
        visited.update((turn[0], turn[1]) for turn in earlier["turns"])
    game = Crossing.from_state(desert, position=(at[0], at[1]), carried=carried, water=water, visited=visited,
                               turns=attempt["turns"], attempt=attempt["number"])
    routes = [[tuple(s["state"]["at"])] + [(t[0], t[1]) for t in s["turns"]] for s in attempt["sections"]]
    return game, routes


def desert_svg(desert: DesertMap, replay: dict[str, Any]) -> Drawing:
    """The final state of each attempt of ``replay``, one map under the other: the water left, ``#``
    on the squares visited dry, the route as a line (a run of it per part kept), ``@`` where the
    traveller ended, ``!`` the square of a broken rule."""
    cell = 24
    title_height = 22
    attempts = replay["attempts"]
    if len(attempts) > MAX_SVG_ATTEMPTS:
        half = MAX_SVG_ATTEMPTS // 2
        attempts = attempts[:half] + attempts[-half:]
    panels: list[dict[str, Any]] = []
    top = 0
    for attempt in attempts:
        game, routes = desert_final(desert, attempt)
        failure = attempt.get("failure") or {}
        bad = tuple(failure["square"]) if failure.get("square") else None
        squares = []
        for row in range(desert.height):
            for col in range(desert.width):
                mark = game.char(row, col)
                if (row, col) == game.position:
                    mark = "@"
                kind = {"S": "start", "E": "end", "#": "visited", ".": "dry", "@": "traveller"}.get(mark, "water")
                if (row, col) == bad:
                    mark, kind = "!", "illegal"
                squares.append({"x": col * cell, "y": row * cell, "mark": mark, "kind": kind})
        lines = [" ".join(f"{col * cell + cell / 2},{row * cell + cell / 2}" for row, col in route)
                 for route in routes]
        title = (f"attempt {attempt['number']}: {attempt['outcome']}, {attempt['turns']:,} "
                 f"turn{'s' if attempt['turns'] != 1 else ''}")
        if failure:
            title += f" — {failure['message']}"
        panels.append({"top": top, "title": title, "squares": squares, "routes": lines})
        top += title_height + desert.height * cell + 12
    notes = list(replay["notes"])
    if len(attempts) < len(replay["attempts"]):
        notes.append(f"the first and last {MAX_SVG_ATTEMPTS // 2} of {len(replay['attempts'])} attempts are drawn")
    note_top = top
    top += 18 * len(notes)
    longest = max([len(str(p["title"])) for p in panels] + [len(note) for note in notes] + [0])
    return Drawing(f"{TEMPLATES}/desert.svg", {
        "width": max(desert.width * cell, TEXT_WIDTH * longest, 320), "height": max(top, 1), "cell": cell,
        "title_height": title_height, "panels": panels, "notes": notes, "note_top": note_top})
