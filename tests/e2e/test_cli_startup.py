"""What the cheap paths of the command line leave unimported: a help page, or a check without
--fuzz, does not pay for the modules only another command or option uses
(tests/benchmarks/bench_cli.py measures the time)."""
from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("tabulate", "concurrent.futures", "verify.fuzz", "verify.grading", "verify.commands", "verify.runner.selftest",
         "pyseccomp", "verify.runner.build", "verify.runner.process", "verify.runner.isolation")


def _modules_after(code: str, *arguments: str) -> set[str]:
    """The modules a fresh interpreter holds after ``code`` (run with ``arguments`` as argv[1:])."""
    script = ("import atexit, json, sys\n"
              "atexit.register(lambda: sys.__stdout__.write('\\nMODULES ' + json.dumps(sorted(sys.modules))))\n"
              + code)
    done = subprocess.run([sys.executable, "-c", script, *arguments], capture_output=True, text=True, cwd=ROOT)
    marker = done.stdout.rpartition("\nMODULES ")
    assert marker[1], f"exit {done.returncode}: {done.stderr}"
    return set(json.loads(marker[2]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules for heavy in HEAVY if m == heavy or m.startswith(heavy + "."))


def test_the_help_page_imports_no_command_runner():
    modules = _modules_after("from verify.cli import run; run()", "--help")
    assert "verify.cli.langs" in modules and "verify.cli.speed" in modules   # listed: their modules are read
    assert _heavy(modules) == []


def test_the_help_of_check_imports_no_contest():
    modules = _modules_after("from verify.cli import run; run()", "check", "--help")
    assert _heavy(modules) == []
    assert not any(m.startswith(("verify.contests", "importlib.metadata")) for m in modules)


def test_the_contests_package_looks_up_installed_contests_only_when_asked(tmp_path):
    assert "importlib.metadata" not in _modules_after("import verify.contests")
    # where no distribution on sys.path declares a contest, naming them needs no importlib.metadata
    assert "importlib.metadata" not in _modules_after("import verify.contests as c; c.names()")
    declared = tmp_path / "declares_one-1.0.dist-info"
    declared.mkdir()
    (declared / "METADATA").write_text("Metadata-Version: 2.1\nName: declares-one\nVersion: 1.0\n")
    (declared / "entry_points.txt").write_text("[verify.contests]\nelsewhere = no_such_module:CONTEST\n")
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import verify.contests as c; print(c.names())"
    modules = _modules_after(code)
    assert "importlib.metadata" in modules


def test_a_check_of_a_named_notation_imports_no_pattern_engine_tournament_or_xml():
    arguments = ["check", "submissions/desert/reference", "--case", "adjacent-row", "--sandbox", "none",
                 "--format", "json", "-j", "1"]
    modules = _modules_after("from verify.cli import run; run()", *arguments)
    assert "verify.contests.desert.judge" in modules                        # it did judge a desert output
    for unused in ("regex", "verify.pipeline.tournament", "xml.etree", "verify.grading.fake"):
        assert not any(m == unused or m.startswith(unused + ".") for m in modules), unused


def test_a_check_without_fuzz_imports_no_fuzzer():
    arguments = ["check", "submissions/desert/reference", "--case", "adjacent-row", "--sandbox", "none",
                 "--format", "json", "-j", "1"]
    modules = _modules_after("from verify.cli import run; run()", *arguments)
    assert "verify.commands.jobs" in modules and "verify.results" in modules     # it did check
    assert not any(m.startswith("verify.fuzz") for m in modules)
    fuzzed = _modules_after("from verify.cli import run; run()", *arguments[:-4], "--fuzz", "1", *arguments[-4:])
    assert "verify.fuzz.cases" in fuzzed


def test_the_runner_package_imports_a_name_s_module_when_the_name_is_used():
    modules = _modules_after("from verify.runner import Limits, Program")
    assert {"verify.runner.limits", "verify.runner.program"} <= modules
    assert _heavy(modules) == []
    assert "verify.runner.build" in _modules_after("from verify.runner import prepare")


def test_every_public_name_of_the_runner_package_resolves_to_what_it_names():
    """Even after every submodule is imported: a submodule becomes an attribute of its
    package, so a public name may not be a submodule's name."""
    import pkgutil
    import types

    import verify.runner as runner
    for module in pkgutil.iter_modules(runner.__path__):
        importlib.import_module(f"verify.runner.{module.name}")
    for name in runner.__all__:
        assert not isinstance(getattr(runner, name), types.ModuleType), name
    try:
        runner.no_such_name  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name of verify.runner resolved")
