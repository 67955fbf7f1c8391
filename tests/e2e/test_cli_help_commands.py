"""Help and usage lines of the installed `verify` command."""
from __future__ import annotations

import json
import subprocess
import sys


def test_an_unknown_command_is_one_line_and_exit_2():
    done = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "nonsense"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "No such command 'nonsense'" in done.stderr


def test_importing_the_cli_loads_no_command_contest_or_runner():
    code = ("import sys, json, verify.cli; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('verify', 'tabulate', 'numpy')))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout)
    assert loaded == ["verify", "verify.cli", "verify.errors", "verify.report_escape"]
