"""One folder per contest, and a core that names none.

Every file of ``verify/`` outside a contest's folder (``verify/contests/<contest>/``) is the
core. It is searched for the name of each built-in contest, in any case and inside longer
words (``MAZE_LOGS``, ``desert_kernel``), in code, strings, comments and docstrings alike, and
holds none. No exception is made for docstring examples: an example in the core uses a contest
of its own invention (``echo``, the one of tests/fixtures), so that the core reads the same
whichever contests are installed and a contest can be removed by removing its folder.

That the core never imports a contest, and that the contests never import each other, is
import-linter's (``lint-imports``, contracts in pyproject.toml); the tests here check that its
contracts cover every built-in contest, and that what a contest names for the core to load
(its commands, presenter and tournament) lies inside its own folder.
"""
from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

from verify import contests

PACKAGE = Path(contests.__file__).resolve().parent.parent      # verify/
CONTESTS_FOLDER = PACKAGE / "contests"
PYPROJECT = PACKAGE.parent / "pyproject.toml"
CONTESTS = sorted(folder.name for folder in CONTESTS_FOLDER.iterdir() if (folder / "__init__.py").is_file())


def core_files() -> list[Path]:
    """Every text file of verify/ outside the contests' folders."""
    contest_folders = {CONTESTS_FOLDER / name for name in CONTESTS}
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or any(f in path.parents for f in contest_folders):
            continue
        found.append(path)
    return found


def test_the_built_in_contests_are_found():
    assert {"arrows", "desert", "maze"} <= set(CONTESTS)
    assert len(core_files()) > 50 and PACKAGE / "settings.py" in core_files()


def test_the_core_names_no_contest():
    name = re.compile("|".join(map(re.escape, CONTESTS)), re.IGNORECASE)
    named = []
    for path in core_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            named.append(f"{path.relative_to(PACKAGE.parent)}: not UTF-8 text, cannot be searched")
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if name.search(line):
                named.append(f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}")
    assert named == [], "the core names a contest (ask the contest through its contract instead):\n" + \
        "\n".join(named)


def _contracts(kind: str) -> list[dict]:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]
    return [contract for contract in config["contracts"] if contract["type"] == kind]


@pytest.mark.skipif(not PYPROJECT.is_file(), reason="no pyproject.toml beside the package (an installed verify)")
def test_the_contests_are_independent_of_each_other_for_import_linter():
    packages = {f"verify.contests.{name}" for name in CONTESTS}
    assert any(set(contract["modules"]) == packages for contract in _contracts("independence"))


@pytest.mark.skipif(not PYPROJECT.is_file(), reason="no pyproject.toml beside the package (an installed verify)")
def test_no_part_of_the_core_may_import_a_contest_for_import_linter():
    forbidden = _contracts("forbidden")
    packages = {f"verify.contests.{name}" for name in CONTESTS}
    everything = [c for c in forbidden if "verify.*" in c["source_modules"]]
    assert everything and packages <= set(everything[0]["forbidden_modules"])
    own = [c for c in forbidden if {"verify.contests", "verify.contests.contract"} <= set(c["source_modules"])]
    assert own and own[0].get("as_packages") is False
    assert {module for name in packages for module in (name, f"{name}.**")} <= set(own[0]["forbidden_modules"])


@pytest.mark.parametrize("name", CONTESTS)
def test_what_a_contest_names_for_the_core_lies_in_its_folder(name):
    contest = contests.get(name)
    paths = [*contest.commands.values(), contest.presenter, contest.tournament]
    for path in filter(None, paths):
        module = path.partition(":")[0]
        assert module.startswith(f"verify.contests.{name}."), path
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None, path
        assert CONTESTS_FOLDER / name in Path(spec.origin).resolve().parents, path
