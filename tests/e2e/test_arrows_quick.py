"""``verify gen arrows`` the quick way (verify/__main__.py, verify.contests.quick, the contest's
quick module) against the click command: the same output, errors and exit code for every option
and every bad input; the quick way imports neither click nor the contests' discovery; it gives
way to the full command line wherever another contest could be called arrows."""
from __future__ import annotations

import ast
import importlib.machinery
import json
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from verify.contests import quick as registry
from verify.contests.arrows import generation, generator, kernel, kernel_build, library, quick
from verify.contests.arrows.generation import seed_text
from verify.contests.arrows.model import NOTATIONS
from verify.contests.arrows.text import NOTATIONS as TEXT_NOTATIONS

ROOT = Path(__file__).resolve().parents[2]
QUICK = "from verify.__main__ import run; run()"
FULL = "from verify.cli import run; run()"
ELAPSED = re.compile(r", \d+ ms$", re.M)     # --stats ends with the time taken

AGREEING = [
    # taken the quick way
    ["--size", "6"], ["--size=6"], ["--size", "7", "--seed", "12"], ["--seed=-3", "--size", "5"],
    ["--rows", "3", "--cols", "8"], ["--rows", "4"], ["--size", "5", "--cols", "9"],
    ["--size", "6", "--arrows", "dutch"], ["--size", "6", "--arrows=english", "--solution"],
    ["--size", "6", "--stats"], ["--size", "7", "--hard", "--stats", "--solution"],
    ["--size", "6", "--hard", "--max-nodes", "3", "--stats"], ["--size", "6", "--max-nodes", "99999999999999999999999"],
    ["--rows", "1", "--cols", "2"], ["--rows", "2", "--cols", "1"], ["--size", "12", "--stats"],
    # given way: the click command's help and errors
    [], ["--help"], ["-h"], ["--size"], ["--size", "x"], ["--size", "+6"], ["--size", " 6"], ["--size", "6_0"],
    ["--size", "0"], ["--size", "1"], ["--size", "51"], ["--size", "-4"], ["--rows", "3", "--cols", "0"],
    ["--cols", "5"], ["--seed", "4"], ["--size", "6", "--size", "7"], ["--size", "6", "--arrows", "Dutch"],
    ["--size", "6", "--arrows"], ["--size", "6", "--max-nodes", "0"], ["--size", "6", "--hard=1"],
    ["--size", "6", "--stats=yes"], ["--size", "6", "--sizes", "7"], ["--size", "6", "extra"], ["--size", "6", "--"],
    ["--siz", "6"], ["--size", "--stats"], ["--seed", "--size", "6"], ["--size", "\u0666"],
]


def verify(code: str, *arguments: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-c", code, "gen", "arrows", *arguments], capture_output=True,
                          text=True, cwd=ROOT, env=env)
    return done.returncode, done.stdout, ELAPSED.sub(", ms", done.stderr)


@pytest.mark.parametrize("arguments", AGREEING, ids=lambda arguments: " ".join(arguments) or "none")
def test_the_quick_way_and_the_click_command_agree(arguments):
    assert verify(QUICK, *arguments) == verify(FULL, *arguments)


def _modules_after(*arguments: str) -> set[str]:
    script = ("import atexit, json, sys\n"
              "atexit.register(lambda: sys.__stderr__.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
              + QUICK)
    done = subprocess.run([sys.executable, "-c", script, "gen", "arrows", *arguments], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.rpartition("\nMODULES ")[2]))


def test_the_quick_way_imports_neither_click_nor_the_discovery_nor_the_model():
    modules = _modules_after("--size", "8", "--stats")
    assert "verify.contests.arrows.quick" in modules
    for heavy in ("click", "importlib.metadata", "verify.cli", "verify.contests.contract", "verify.contests.arrows.model",
                  "verify.contests.arrows.solver", "verify.contests.arrows.generator", "hashlib"):
        assert heavy not in modules, heavy


def test_the_quick_way_imports_nothing_costly_beyond_the_interpreter_s_start():
    """Without a site (whose hooks may import anything), the modules of the quick way's start:
    none of the costly ones (re, typing, dataclasses, pathlib, enum, importlib, threading,
    collections), no ctypes and no random (the generator's program is started instead)."""
    script = ("import atexit, sys\n"        # (json would import re: the names are written as a repr)
              "atexit.register(lambda: sys.__stderr__.write('\\nMODULES ' + repr(sorted(sys.modules))))\n"
              + QUICK)
    done = subprocess.run([sys.executable, "-S", "-c", script, "gen", "arrows", "--size", "8", "--stats"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    modules = set(ast.literal_eval(done.stderr.rpartition("\nMODULES ")[2]))
    assert "verify.contests.arrows.quick" in modules
    costly = ("re", "typing", "dataclasses", "pathlib", "enum", "importlib", "threading", "collections", "functools",
              "ctypes", "random", "signal", "verify.settings", "verify.errors", "verify.contests.arrows.library")
    assert sorted(modules & set(costly)) == []


def test_the_quick_way_reads_the_cache_and_the_contest_folders_as_the_settings_do(tmp_path):
    from verify.environment import cache_folder, contest_folders
    from verify.settings import Settings
    for env in ({"HOME": str(tmp_path)}, {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "x")},
                {"HOME": str(tmp_path), "XDG_CACHE_HOME": "", "VERIFY_CACHE": str(tmp_path / "v")},
                {"HOME": str(tmp_path), "VERIFY_CONTEST_PATH": f"{tmp_path}/a::{tmp_path}/b:"},
                {"HOME": str(tmp_path), "VERIFY_CONTEST_PATH": ""}):
        settings = Settings.from_environment(env)
        assert settings.cache == Path(cache_folder(env))
        assert settings.contest_path == tuple(Path(folder) for folder in contest_folders(env))


def test_without_the_generator_s_program_or_its_answer_the_quick_way_gives_way(monkeypatch, capsys):
    monkeypatch.setattr(kernel_build, "program_path", lambda: None)
    assert quick.gen(["--size", "6"]) is False
    for program in ("/bin/false", "/bin/true"):        # fails; or exits 0 having written nothing
        monkeypatch.setattr(kernel_build, "program_path", lambda program=program: program)
        assert quick.gen(["--size", "6"]) is False
    assert capsys.readouterr() == ("", "")


def test_a_bad_option_leaves_the_quick_way_having_written_nothing(capsys):
    for arguments in (["--size", "x"], ["--help"], ["--size", "6", "--size", "6"], ["--size", "60"], []):
        assert quick.gen(arguments) is False
    assert capsys.readouterr() == ("", "")


def test_the_options_are_read_as_given():
    assert quick.read_options(["--size=5", "--hard", "--seed", "-2"]) == {"--size": "5", "--hard": True, "--seed": "-2"}
    assert quick.read_options(["--size", "--stats"]) == {"--size": "--stats"}       # (a value, as click takes it)
    assert quick.read_options(["--stats=1"]) is None
    assert quick.read_options(["--size"]) is None


def test_the_quick_way_shares_the_generator_s_limits_and_names():
    assert (quick.MAX_GENERATION_CELLS, quick.DEFAULT_MAX_NODES) == (generator.MAX_GENERATION_CELLS,
                                                                      generator.DEFAULT_MAX_NODES)
    assert TEXT_NOTATIONS is NOTATIONS
    assert generation.MAX_GENERATION_CELLS == 2500


def test_a_contest_folder_or_an_installed_contest_leaves_it_to_the_discovery(tmp_path):
    assert registry.find("gen", "arrows", ()) is quick.gen
    assert registry.find("gen", "arrows", (tmp_path,)) is None
    assert registry.find("judge", "arrows", ()) is None
    for name in ("desert-x", "../arrows", "Arrows", "nothing"):
        assert registry.find("gen", name, ()) is None


def test_only_a_finder_beyond_the_path_ones_counts_as_listing_distributions(monkeypatch):
    """The backport importlib_metadata (imported by Dask) puts a MetadataPathFinder on
    sys.meta_path that lists what sys.path holds: the quick way stays; any other finder that
    lists distributions leaves the name to the discovery."""
    def finder(name: str, module: str) -> object:
        kind = type(name, (), {"find_distributions": lambda self, context=None: iter(())})
        kind.__module__ = module
        return kind()

    meta_path = [finder_ for finder_ in sys.meta_path if not hasattr(finder_, "find_distributions")]
    meta_path.append(importlib.machinery.PathFinder)
    monkeypatch.setattr(sys, "meta_path", meta_path)
    assert not registry.installed_contests_may_exist()
    for module in ("importlib_metadata", "setuptools._vendor.importlib_metadata"):
        sys.meta_path.append(finder("MetadataPathFinder", module))
        assert not registry.installed_contests_may_exist(), module
    sys.meta_path.append(finder("MetadataPathFinder", "elsewhere"))
    assert registry.installed_contests_may_exist()
    sys.meta_path[-1] = finder("ZipFinder", "importlib_metadata")
    assert registry.installed_contests_may_exist()


def _declaring(folder: Path, name: str) -> Path:
    """A folder holding an installed distribution's metadata that declares a contest ``name``."""
    info = folder / "elsewhere_contest-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: elsewhere-contest\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[verify.contests]\n{name} = elsewhere_contest:CONTEST\n")
    return folder


def test_an_installed_contest_of_the_same_name_is_the_discovery_s_error_both_ways(tmp_path, monkeypatch):
    site = _declaring(tmp_path / "site", "arrows")
    monkeypatch.syspath_prepend(str(site))
    assert registry.installed_contests_may_exist()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    quick_way, full = verify(QUICK, "--size", "5", env=env), verify(FULL, "--size", "5", env=env)
    assert quick_way == full
    assert quick_way[0] == 2 and "two contests are called 'arrows'" in quick_way[2]


def test_another_installed_contest_leaves_the_same_output(tmp_path):
    site = _declaring(tmp_path / "site", "elsewhere")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    quick_way, full = verify(QUICK, "--size", "5", env=env), verify(FULL, "--size", "5", env=env)
    assert quick_way == full and quick_way[0] == 0


def test_a_contest_folder_in_the_environment_leaves_the_same_output(tmp_path):
    env = {**os.environ, "VERIFY_CONTEST_PATH": str(tmp_path)}
    assert verify(QUICK, "--size", "5", env=env) == verify(FULL, "--size", "5", env=env)


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_ends_the_quick_way_as_the_reaper_ends_the_full_command_line(signal_name):
    ended = []
    for install in ("import verify.__main__ as entry; entry._signals_to_the_reaper()",
                    "from verify.runner import reaper; reaper.install_signal_handlers()"):
        code = f"import os, signal, time\n{install}\nos.kill(os.getpid(), signal.{signal_name})\ntime.sleep(30)\n"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
        ended.append((done.returncode, done.stdout, done.stderr))
    assert ended[0] == ended[1]
    assert ended[0][0] == 128 + getattr(signal, signal_name) and "verify: " in ended[0][2]


def test_the_quick_way_hands_the_reaper_s_signals_over():
    import verify.__main__ as entry
    from verify.runner import reaper
    assert entry.SIGNALS == reaper.HANDLED_SIGNALS


@pytest.mark.parametrize("rows, cols, seed, hard, max_nodes", [
    (1, 2, 0, False, 20), (2, 1, 5, True, 1), (3, 3, 1, False, 20), (10, 10, 1000, False, 20), (7, 9, -3, True, 30),
    (6, 6, 2, True, 10**25), (12, 5, 8, False, 1),
])
def test_the_generator_s_program_gives_what_the_library_gives(rows, cols, seed, hard, max_nodes):
    """The program the quick command starts (generate_main.c) against the library's one call."""
    lib = kernel.library()
    assert lib is not None
    state = random.Random(seed_text(rows, cols, seed)).getstate()[1]
    expected = library.generate(lib, rows, cols, state, 0, True, hard, max_nodes)
    found = quick._generated(rows, cols, seed, hard, max_nodes)
    assert found is not None
    assert (list(found[0]), list(found[1]), list(found[2]), found[3], found[4]) == expected


@pytest.mark.parametrize("arguments", [
    [], ["10", "10", "0", "1", "0", "20"], ["10", "10", "0", "1", "0", "20", ""], ["10", "10", "0", "1", "0", "20", "abc"],
    ["10", "10", "0", "1", "0", "20", "0000000g"], ["10", "10", "0", "1", "0", "20", "+0000001"],
    ["1", "1", "0", "1", "0", "20", "00000001"], ["51", "50", "0", "1", "0", "20", "00000001"],
    ["10", "x", "0", "1", "0", "20", "00000001"], ["10", "10", "0", "2", "0", "20", "00000001"],
    ["10", "10", "0", "1", "0", "0", "00000001"], ["10", "10", "101", "1", "0", "20", "00000001"],
    ["10", "10", "0", "1", "0", "20", "0" * 8 * 65], ["10", " 10", "0", "1", "0", "20", "00000001"],
])
def test_the_generator_s_program_refuses_what_it_does_not_take_and_writes_nothing(arguments):
    program = kernel_build.program_path()
    assert program is not None
    done = subprocess.run([program, *arguments], capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, b"", b"")


def test_the_console_script_is_the_entry_point_and_imports_no_re():
    """scripts/verify, what an installation puts on PATH as `verify` (pyproject's script-files)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ROOT / "scripts" / "verify"), "gen", "arrows",
                           "--size", "6", "--seed", "4"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert (done.returncode, done.stdout) == verify(QUICK, "--size", "6", "--seed", "4")[:2]
    imported = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "verify.contests.arrows.quick" in imported and "re" not in imported
    assert "script-files = [\"scripts/verify\"]" in (ROOT / "pyproject.toml").read_text()
