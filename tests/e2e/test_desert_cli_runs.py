"""The desert commands as installed, on real runs."""
import json
import subprocess
import sys

import pytest

from tests.unit.test_desert_cli import SPEC_OUTPUT
from tests.unit.test_desert_cli import files as desert_files_fixture

files = desert_files_fixture         # the unit half's fixture, used here by name


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *map(str, args)],
                          capture_output=True, text=True, input=stdin)


def test_output_from_stdin_and_json(files):
    result = run("judge", "desert", files / "map.txt", "-", "--format", "json", stdin=SPEC_OUTPUT)
    assert result.returncode == 0
    assert json.loads(result.stdout)["stats"]["winning_turns"] == 10


@pytest.mark.parametrize("args, message", [
    (["judge", "desert", "{d}/missing.txt", "{d}/good.out"], "cannot read the map"),
    (["judge", "desert", "{d}/broken.txt", "{d}/good.out"], "line 2, column 3: this row has 2 characters"),
    (["judge", "desert", "{d}/map.txt", "{d}/missing.out"], "cannot read the output"),
    (["judge", "desert", "{d}/map.txt", "{d}/good.out", "--notation", "klingon"], "unknown notation 'klingon'"),
    (["judge", "desert", "{d}/map.txt", "{d}/good.out", "--order", "sideways"], "Invalid value"),
    (["desert", "nontrivial", "{d}/broken.txt"], "line 2, column 3"),
])
def test_bad_input_exits_2_with_one_line(files, args, message):
    result = run(*[a.format(d=files) for a in args])
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
