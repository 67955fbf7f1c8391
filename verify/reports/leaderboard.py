"""Code-golf leaderboards: table, JSON, Markdown (the contest's answer headers); the
overall board, and with `boards` one per language (code.golf's way) beside it.

Each names the isolation its checks ran under, and which verdicts may differ where some
may: the last lines of the table and of Markdown, JSON's ``isolation`` and ``differences``.
Comparing a leaderboard file with a fresh one (``verify rank --check``) leaves those lines
aside (:func:`standings_text`): a file written on a laptop stays current on a CI runner whose
kernel names its isolation otherwise."""
from __future__ import annotations

import json
import re
from collections.abc import Sequence

from tabulate import tabulate

from verify.golf import BoardKey, Standing
from verify.report_escape import markdown, one_line, visible
from verify.reports.formats import RANK, render
from verify.reports.isolation import DIFFERENCES_LABEL, isolation_fields, isolation_lines

Boards = Sequence[tuple[BoardKey, Sequence[Standing]]]


def code_span(text: str) -> str:
    """`text` as a Markdown code span that no backtick inside it can close early."""
    text = visible(text)
    run, longest = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def board_title(key: BoardKey, language_names: dict[str, str]) -> str:
    language, flags = key
    return " ".join([language_names.get(language, language), *flags])


def rank_report(contest: str, standings: Sequence[Standing], fmt: str, language_names: dict[str, str],
                by: str = "bytes", boards: Boards | None = None, isolation: str = "") -> str:
    """The leaderboard of `contest` in `fmt`, a format of the registry (:mod:`verify.reports.formats`);
    `isolation`: the one its checks ran under."""
    return render(RANK, fmt, contest, standings, language_names, by, boards, isolation)


def rank_json(contest: str, standings: Sequence[Standing], language_names: dict[str, str], by: str,
              boards: Boards | None, isolation: str) -> str:
    data: dict[str, object] = {"contest": contest, "by": by, **isolation_fields(isolation),
                               "standings": [s.to_dict() for s in standings]}
    if boards is not None:
        data["languages"] = [{"language": key[0], "flags": list(key[1]),
                              "standings": [s.to_dict() for s in board]} for key, board in boards]
    return json.dumps(data, indent=2)


def rank_markdown(contest: str, standings: Sequence[Standing], language_names: dict[str, str], by: str,
                  boards: Boards | None, isolation: str) -> str:
    board_text = _rank_markdown(contest, standings, language_names, by, boards)
    return "\n\n".join([board_text.rstrip("\n"), *map(markdown, isolation_lines(isolation))]) + "\n"


def rank_table(contest: str, standings: Sequence[Standing], language_names: dict[str, str], by: str,
               boards: Boards | None, isolation: str) -> str:
    title = f"Leaderboard: {one_line(contest)}" + (" (by chars)" if by == "chars" else "")
    parts = [f"{title}\n{_table(standings, language_names, by)}"]
    for key, board in boards or ():
        parts.append(f"{one_line(contest)}, {one_line(board_title(key, language_names))}\n"
                     f"{_table(board, language_names, by)}")
    return "\n\n".join(parts + ["\n".join(map(one_line, isolation_lines(isolation)))] if isolation else parts)


# the lines naming the isolation: the last lines of the table and Markdown, the two top-level fields of JSON
_ISOLATION_LINE = re.compile(rf'^(?:isolation|{DIFFERENCES_LABEL}): |^  "(?:isolation|differences)": ')


def standings_text(report: str) -> str:
    """A leaderboard without the lines naming its isolation (and the blank lines before them):
    what ``verify rank --check`` compares."""
    kept: list[str] = []
    for line in report.splitlines():
        if _ISOLATION_LINE.match(line):
            while kept and not kept[-1].strip():
                kept.pop()
            continue
        kept.append(line)
    return "\n".join(kept).rstrip("\n") + "\n"


def _table(standings: Sequence[Standing], language_names: dict[str, str], by: str) -> str:
    rows = []
    for s in standings:
        score = s.score
        language = " ".join([language_names.get(s.language, s.language), *(score.flags if score else ())])
        rows.append([s.rank or "-", one_line(s.label), one_line(language),
                     score.source_bytes if score else "", f"+{score.penalty}" if score and score.penalty else "",
                     score.total_by(by) if score else "", score.chars if score else "",
                     "" if s.passed and score else one_line(s.why_not)])
    if not rows:
        return "(no entries)"
    return tabulate(rows, ["rank", "entry", "language", "bytes", "flags", "score", "chars", "not ranked because"],
                    tablefmt="simple")


def _rank_markdown(contest: str, standings: Sequence[Standing], language_names: dict[str, str], by: str,
                   boards: Boards | None) -> str:
    measure = " by chars" if by == "chars" else ""
    parts = [f"Leaderboard: **{markdown(contest)}**{measure} (entries that pass every case; ties: the earlier "
             "entry)", ""]
    if not standings:
        parts.append("(no entries)")
    for s in standings:
        if not s.passed or s.score is None:
            continue
        parts.append(s.score.header(language_names.get(s.language, s.language), by, text=markdown, code=code_span))
        parts.append("")
        other = f"{s.score.source_bytes} bytes" if by == "chars" else f"{s.score.chars} chars"
        parts.append(f"{s.rank}. **{markdown(s.name)}** ({markdown(s.label)}), {other}")
        parts.append("")
    unranked = [s for s in standings if not s.passed or s.score is None]
    if unranked:
        parts.append("## Not ranked")
        parts.append("")
        parts.extend(f"- {markdown(s.label)}: {markdown(s.why_not)}" for s in unranked)
        parts.append("")
    if boards:
        parts.append("## Per language")
        parts.append("")
        unit = "chars" if by == "chars" else "bytes"
        for key, board in boards:
            parts.append(f"### {markdown(board_title(key, language_names))}")
            parts.append("")
            parts.extend(f"{s.rank}. {markdown(s.name)} ({markdown(s.label)}): "
                         f"{s.score.total_by(by) if s.score else ''} {unit}" for s in board)
            parts.append("")
    return "\n".join(parts).rstrip() + "\n"
