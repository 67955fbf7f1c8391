"""An entry's configuration files as the sandbox runs them."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402

from verify.entries import load_entry  # noqa: E402
from verify.runner import CompileError, Limits, Program, SandboxUnavailable, get_language, run_program  # noqa: E402
from verify.runner.languages import find_program  # noqa: E402

HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"


LIMITS = Limits(wall_time=20.0, cpu_time=10.0, memory=512 << 20)


POLICIES = ["bwrap", "none"] if shutil.which("bwrap") else ["none"]


SOURCES = {
    "python": "main.py", "vyxal": "main.vy", "perl": "main.pl", "php": "main.php", "r": "main.r",
    "ruby": "main.rb", "scheme": "main.scm", "forth": "main.fs", "elixir": "main.exs", "zsh": "main.zsh",
    "bash": "main.sh", "dash": "main.dash", "tcl": "main.tcl", "bc": "main.bc", "go": "main.go",
    "haskell": "main.hs", "rust": "main.rs", "java": "Main.java", "ocaml": "main.ml",
}


def available(language: str) -> bool:
    table = get_language(language)
    try:
        table.check_requires()
    except Exception:
        return False
    return find_program(table.compiler or table.interpreter) is not None


@pytest.fixture(params=POLICIES)
def policy(request, use_isolation, monkeypatch, tmp_path):
    """Each policy's isolation (and a cache of the test's own)."""
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    return use_isolation(request.param, cgroups=False)


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_no_configuration_file_of_the_folder_or_its_home_is_read(policy, language):
    if not available(language):
        pytest.skip(f"{language} is not installed")
    folder = HOSTILE / f"config-{language}"
    try:
        result = run_program(Program(language, folder / SOURCES[language]), limits=LIMITS, isolation=policy)
    except SandboxUnavailable as error:
        # A toolchain out of the run's reach (rustc under a 0700 /root, as a fresh uid sees
        # it without bubblewrap's mounts) runs nothing, so no config file can take effect:
        # what must hold then is that it is the judge's failure, with the fix, not the entry's.
        assert "verify-init: cannot run" in str(error) and "install that tool" in str(error), error
        return
    assert (result.exit_code, result.stdout) == (0, b"plain\n"), result.stderr_tail


def test_a_c_build_sees_no_header_of_the_folder(policy):
    if not available("c"):
        pytest.skip("c is not installed")
    with pytest.raises(CompileError, match="local.h"):
        run_program(Program("c", HOSTILE / "config-c" / "main.c"), limits=LIMITS, isolation=policy)


def test_node_reads_the_package_json_of_a_role_s_folder_but_a_golf_run_has_none(policy, monkeypatch):
    """A contest role's folder is all its program's (docs/entries.md): there node's package.json
    "type" makes main.js an ES module; an entry's own program runs on its source alone."""
    if not available("javascript"):
        pytest.skip("javascript is not installed")
    folder = HOSTILE / "config-javascript"
    in_folder = run_program(Program("javascript", folder / "main.js"), limits=LIMITS, isolation=policy)
    assert in_folder.exit_code != 0 and b"require is not defined" in in_folder.stderr_tail.encode()
    echo_contest.install(monkeypatch)
    entry = load_entry(folder)
    assert entry.program is not None
    alone = run_program(entry.program, limits=LIMITS, isolation=policy)
    assert (alone.exit_code, alone.stdout) == (0, b"plain\n"), alone.stderr_tail
