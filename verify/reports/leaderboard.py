"""Code-golf leaderboards: table, JSON, Markdown (the contest's answer headers)."""
from __future__ import annotations

import json
from collections.abc import Sequence

from tabulate import tabulate

from verify.golf import Standing
from verify.report_escape import markdown, one_line


def rank_report(challenge: str, standings: Sequence[Standing], fmt: str, language_names: dict[str, str]) -> str:
    if fmt == "json":
        return json.dumps({"challenge": challenge, "standings": [s.to_dict() for s in standings]}, indent=2)
    if fmt == "markdown":
        return _rank_markdown(challenge, standings, language_names)
    rows = []
    for s in standings:
        score = s.score
        language = " ".join([language_names.get(s.language, s.language), *(score.flags if score else ())])
        rows.append([s.rank or "-", one_line(s.label), one_line(language),
                     score.source_bytes if score else "", f"+{score.penalty}" if score and score.penalty else "",
                     score.total if score else "", score.chars if score else "",
                     "" if s.passed and score else one_line(s.why_not)])
    if not rows:
        return f"Leaderboard: {one_line(challenge)}\n(no entries)"
    table = tabulate(rows, ["rank", "entry", "language", "bytes", "flags", "score", "chars", "not ranked because"],
                     tablefmt="simple")
    return f"Leaderboard: {one_line(challenge)}\n{table}"


def _rank_markdown(challenge: str, standings: Sequence[Standing], language_names: dict[str, str]) -> str:
    parts = [f"Leaderboard: **{markdown(challenge)}** (entries that pass every case; ties: the earlier entry)", ""]
    if not standings:
        parts.append("(no entries)")
    for s in standings:
        if not s.passed or s.score is None:
            continue
        header = s.score.header(language_names.get(s.language, s.language))
        parts.append("# " + markdown(header.removeprefix("# ")))
        parts.append("")
        parts.append(f"{s.rank}. **{markdown(s.name)}** ({markdown(s.label)}), {s.score.chars} chars")
        parts.append("")
    unranked = [s for s in standings if not s.passed or s.score is None]
    if unranked:
        parts.append("## Not ranked")
        parts.append("")
        parts.extend(f"- {markdown(s.label)}: {markdown(s.why_not)}" for s in unranked)
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"
