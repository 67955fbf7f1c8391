"""`verify desert nontrivial` on a random map: a readable table, every violation with --all."""
from __future__ import annotations

import json

from click.testing import CliRunner

from verify.cli import main
from verify.contests.desert.generate import generate


def _map(tmp_path):
    path = tmp_path / "seed3.txt"
    path.write_text(generate(3, 12, 8, 0.2, None, 1).text())
    return path


def test_the_table_shows_the_first_ten_and_says_how_many_more(tmp_path):
    path = _map(tmp_path)
    result = CliRunner().invoke(main, ["desert", "nontrivial", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    total = int(lines[0].split("(")[1].split()[0])
    assert total > 10
    assert len([line for line in lines if line.startswith("  ") and "..." not in line]) == 10
    assert lines[-1] == f"  ... and {total - 10} more (--all to list them)"


def test_all_lists_every_violation(tmp_path):
    path = _map(tmp_path)
    result = CliRunner().invoke(main, ["desert", "nontrivial", "--all", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    total = int(lines[0].split("(")[1].split()[0])
    assert len(lines) == total + 1 and "--all" not in result.output


def test_json_keeps_its_full_bounded_list(tmp_path):
    path = _map(tmp_path)
    result = CliRunner().invoke(main, ["desert", "nontrivial", "--format", "json", str(path)])
    data = json.loads(result.output)
    assert len(data["violations"]) > 10 and data["more_violations"] is False
