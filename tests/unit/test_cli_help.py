"""Every subcommand's --help works; `import verify.cli` loads no command, contest or runner."""
from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from verify.cli import main


def _walk(group: click.Group, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    context = click.Context(group, info_name=path[-1] if path else "verify")
    found = [path]
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None, f"{' '.join(path + (name,))} is listed but does not load"
        if isinstance(command, click.Group):
            found += _walk(command, path + (name,))
        else:
            found.append(path + (name,))
    return found


COMMANDS = _walk(main, ())


def test_every_contest_contributes_its_commands():
    names = {" ".join(path) for path in COMMANDS}
    assert {"check", "rank", "langs", "speed", "judge desert", "judge arrows", "solve arrows", "gen desert",
            "gen arrows", "gen maze", "koth maze", "maze show", "maze check", "desert nontrivial",
            "desert notations"} <= names


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: " ".join(path) or "verify")
def test_help_of_every_command(path):
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Usage: ") and "--help" in result.output


@pytest.mark.parametrize("path", [p for p in COMMANDS if p in (("check",), ("rank",), ("langs",))
                                  or (len(p) == 2 and p[0] in ("judge", "solve", "koth"))],
                         ids=lambda path: " ".join(path))
def test_judging_and_solving_commands_offer_json(path):
    assert "json" in CliRunner().invoke(main, [*path, "--help"]).output
