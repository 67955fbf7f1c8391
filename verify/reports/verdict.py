"""One verdict, as a text block or JSON (the offline ``verify judge`` commands)."""
from __future__ import annotations

import json

from verify.report_escape import one_line, visible
from verify.verdict import Verdict


def render_verdict(verdict: Verdict, output_format: str) -> str:
    if output_format == "json":
        return json.dumps(verdict.to_dict(), indent=2)
    lines = [f"verdict: {verdict.status.value} ({verdict.status.short})"]
    if verdict.message:
        message = one_line(verdict.message)
        lines.append(f"reason: {message}" if not verdict.accepted else f"result: {message}")
    for name, value in verdict.stats.items():
        lines.append(f"{one_line(name.replace('_', ' '))}: {one_line(str(value))}")
    if verdict.detail:
        lines.append("")
        lines.append(visible(verdict.detail, lines=True))
    for warning in verdict.warnings:
        lines.append(f"warning: {one_line(warning)}")
    return "\n".join(lines)
