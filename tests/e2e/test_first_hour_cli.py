"""A new user's first commands: plain `verify` shows the help and succeeds."""
from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from verify.cli import main


def test_verify_alone_prints_the_help_and_exits_0():
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: ") and "Commands:" in done.stdout and "check" in done.stdout
    assert done.stderr == ""


def test_verify_help_still_exits_0():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0 and result.output.startswith("Usage: ")
