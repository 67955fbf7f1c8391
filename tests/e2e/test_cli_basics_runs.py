"""The installed `verify` command's basics."""
import subprocess
import sys


def test_unknown_command_is_a_usage_error():
    result = subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", "nonsense"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
