"""The platforms table of docs/platforms.md, from the records measure.sh wrote.

    python3 ci/platforms/table.py OUT [--command TEXT] [--update docs/platforms.md] [--passed PLATFORM]...

OUT holds a folder per platform (WORK/out of container.sh, user.sh and all.sh), each with
its records (PLATFORM-root.json, PLATFORM-user.json, ...) and, for a container, the
`podman run` flags it was started with (flags). Prints the Markdown: a row per platform
and user with the isolation in force, the conformance verdicts per mode, the survivors
and the wall time of `verify check submissions/*/*`; then the flags of each container.
With --update FILE, the text between the table's two marker lines in FILE is replaced.
With --passed PLATFORM (CI), exit 1 unless every record of PLATFORM installed verify,
passed the conformance suite and passed `verify check submissions/*/*`, with a line for
each that did not. Exit 2, one line, for an OUT with no records or a FILE without the
markers.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

START = "<!-- platforms table: made by ci/platforms/table.py -->"
END = "<!-- platforms table: end -->"

# the platforms in the table's order, with what each one is
PLATFORMS = {
    "host-root": "this machine (Debian 12, kernel 6.18, cgroup v1)",
    "host-user": "this machine, a normal user",
    "podman-rootful-default": "rootful Podman, default settings",
    "podman-rootful-recommended": "rootful Podman, recommended flags",
    "podman-rootless-default": "rootless Podman, default settings",
    "podman-rootless-recommended": "rootless Podman, recommended flags",
    "podman-recipe": "the Containerfile's image, rootful Podman, recommended flags",
    "vm": "Debian 12 VM, systemd + cgroup v2 (qemu TCG)",
}


class TableError(Exception):
    """The table cannot be made (exit 2, one line)."""


def load_records(out: Path) -> list[tuple[str, dict, str]]:
    """(platform, record, flags) for every record under OUT, in the table's order."""
    found = []
    for path in sorted(out.glob("*/*.json")):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise TableError(f"{path}: not a record ({error})") from None
        if not isinstance(record, dict) or "platform" not in record:
            continue
        flags_file = path.parent / "flags"
        flags = flags_file.read_text().strip() if flags_file.exists() else ""
        found.append((path.parent.name, record, flags))
    if not found:
        raise TableError(f"{out}: no platform records (run ci/platforms/all.sh first)")
    order = list(PLATFORMS)
    return sorted(found, key=lambda item: (order.index(item[0]) if item[0] in order else len(order), item[0],
                                          item[1].get("uid", 0) != 0))


class Notes:
    """verify's one-line messages, numbered once each, for the lines below the table."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def ref(self, line: str) -> str:
        if line not in self.lines:
            self.lines.append(line)
        return f"[{self.lines.index(line) + 1}]"


def conformance_text(conformance: dict, notes: Notes) -> tuple[str, int]:
    """The conformance cell (per mode: cells as expected, documented differences, failures,
    or why the mode is unavailable) and the number of survivors."""
    report = conformance.get("report")
    if not isinstance(report, dict):
        return f"did not run {notes.ref(conformance.get('error') or 'no report')}", 0
    parts, survivors = [], 0
    modes: dict[str, list[dict]] = {}
    for cell in report.get("cells", []):
        modes.setdefault(cell["mode"], []).append(cell)
        survivors += len(cell.get("survivors", []))
    for mode, cells in modes.items():
        matched = sum(cell["outcome"] == "match" for cell in cells)
        documented = sum(cell["outcome"] == "differs (documented)" for cell in cells)
        failed = [cell for cell in cells if cell["outcome"] == "mismatch"]
        words = f"{mode} {matched}/{len(cells)}"
        if documented:
            words += f", {documented} differ (documented)"
        if failed:
            named = ", ".join(f"{cell['fixture']}: {cell['status'] or 'no verdict'}" for cell in failed)
            words += f", **{named}**"
        parts.append(words)
    for mode, line in report.get("unavailable", {}).items():
        parts.append(f"{mode} unavailable {notes.ref(line)}")
    return "; ".join(parts) or "no mode ran", survivors


def check_text(check: dict, notes: Notes, rlimits: dict | None = None) -> str:
    """The check's outcome and wall time; where it was refused, also the run asked for
    with --accounting rlimits, and the isolation that one had."""
    if check.get("rc", -1) < 0:
        return "left out (VERIFY_PLATFORM_CHECK=no)" if check.get("skipped") else "not run"
    if check.get("summary"):
        summary = check["summary"].split(" (isolation:")[0]
        failed = check.get("failed") or []
        named = f" {notes.ref('not accepted: ' + '; '.join(failed[:5]))}" if failed else ""
        return f"{summary}: {check['wall_seconds']} s{named}"
    text = f"exit {check['rc']} {notes.ref(check.get('error') or 'no report')}"
    if rlimits:
        isolation = f" (`{rlimits['isolation']}`)" if rlimits.get("isolation") else ""
        text += f"; with `--accounting rlimits`{isolation}: {check_text(rlimits, notes)}"
    return text


def isolation_text(record: dict, notes: Notes) -> str:
    check = record.get("check", {})
    if check.get("isolation"):
        return f"`{check['isolation']}`"
    report = record.get("conformance", {}).get("report")
    if check.get("skipped") and isinstance(report, dict) and report.get("cells"):
        return f"`{report['cells'][0]['isolation']}` (the suite's first mode; no check)"
    if record.get("install", {}).get("rc"):
        return f"install failed {notes.ref(record['install'].get('error', ''))}"
    return f"refused {notes.ref(check.get('error') or 'no report')}"


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def make_table(records: list[tuple[str, dict, str]], command: str) -> str:
    commits = sorted({record.get("commit", "")[:7] for _, record, _ in records if record.get("commit")})
    dates = sorted({record["conformance"]["report"]["date"] for _, record, _ in records
                    if isinstance(record.get("conformance", {}).get("report"), dict)})
    when = f", {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "") if dates else ""
    lines = [f"Made by `{command}`" + (f" at commit {', '.join(commits)}" if commits else "") + when + ".",
             "",
             "| platform | user | isolation in force (`verify check`) | conformance: per mode, cells as expected "
             "| survivors | `verify check submissions/*/*` |",
             "|---|---|---|---|---|---|"]
    notes = Notes()
    for platform, record, _ in records:
        conformance, survivors = conformance_text(record.get("conformance", {}), notes)
        user = "root" if record.get("uid") == 0 else f"normal user ({record.get('user', '?')})"
        lines.append("| " + " | ".join(cell(text) for text in (
            PLATFORMS.get(platform, platform), user, isolation_text(record, notes), conformance, str(survivors),
            check_text(record.get("check", {}), notes, record.get("check_rlimits")))) + " |")
    if notes.lines:
        lines += ["", "verify's own lines, as it printed them, and the cases `verify check` did not accept:", ""]
        lines += [f"{number}. {cell(line)}" for number, line in enumerate(notes.lines, 1)]
    flags = {platform: text for platform, _, text in records if text}
    if flags:
        lines += ["", "The containers' flags:", ""]
        lines += [f"- {PLATFORMS.get(platform, platform)}: `{text}`" for platform, text in flags.items()]
    return "\n".join(lines)


def update(document: Path, table: str) -> None:
    text = document.read_text()
    if START not in text or END not in text:
        raise TableError(f"{document}: no table markers ({START} ... {END})")
    before, rest = text.split(START, 1)
    after = rest.split(END, 1)[1]
    document.write_text(f"{before}{START}\n{table}\n{END}{after}")


def failures(records: list[tuple[str, dict, str]], platform: str) -> list[str]:
    """Why PLATFORM's records did not pass, one line each (none: it passed)."""
    mine = [record for name, record, _ in records if name == platform]
    if not mine:
        return [f"{platform}: no record"]
    lines = []
    for record in mine:
        who = f"{platform} as {record.get('user', '?')}"
        for part in ("install", "conformance", "check"):
            step = record.get(part, {})
            if step.get("rc") != 0:
                lines.append(f"{who}: {part} exit {step.get('rc')}: {step.get('error') or step.get('summary', '')}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="The platforms table of docs/platforms.md.")
    parser.add_argument("out", type=Path, help="the folder of platform records (WORK/out)")
    parser.add_argument("--command", default="sudo bash ci/platforms/all.sh", help="the command that made the records")
    parser.add_argument("--update", type=Path, metavar="FILE", help="replace the table between FILE's markers")
    parser.add_argument("--passed", action="append", default=[], metavar="PLATFORM",
                        help="exit 1 unless every record of PLATFORM passed (repeatable)")
    arguments = parser.parse_args(argv)
    try:
        records = load_records(arguments.out)
        table = make_table(records, arguments.command)
        if arguments.update is not None:
            update(arguments.update, table)
    except TableError as error:
        print(f"table: {error}", file=sys.stderr)
        return 2
    print(table)
    failed = [line for platform in arguments.passed for line in failures(records, platform)]
    for line in failed:
        print(f"table: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
