"""Code golf scores the source alone, so the run sees the source alone: a short source
that runs another file of its folder (a helper, or code hidden in entry.toml's own text)
finds nothing there, fails its cases and is not ranked at its short source's size."""
from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
import echo_contest  # noqa: E402
from echo_contest import write_cases, write_entry  # noqa: E402

from verify.cli import main  # noqa: E402
from verify.commands.cache import check_key  # noqa: E402
from verify.commands.jobs import load_checks  # noqa: E402
from verify.entries import load_entry  # noqa: E402
from verify.errors import VerifyError  # noqa: E402
from verify.runner import Limits  # noqa: E402

CAT = "import sys\nsys.stdout.write(sys.stdin.read())\n"


SOLVER = CAT + "# " + "a long, honest solution " * 40 + "\n"      # the file the short source runs


@pytest.fixture
def contest(tmp_path, monkeypatch):
    echo_contest.install(monkeypatch)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "contest"
    write_cases(root / "testcases" / "echo", {"one": (b"1\n", b"1\n"), "two": (b"2 3\n", b"2 3\n")})
    entries = root / "submissions" / "echo"
    write_entry(entries / "honest", "solve.py", SOLVER)
    helper = write_entry(entries / "helper", "main.py", 'exec(open("solve.py").read())\n')
    (helper / "solve.py").write_text(SOLVER)
    write_entry(entries / "toml", "main.py", "exec(open('entry.toml').read().split('\"\"\"')[1])\n",
                extra=f'description = """{CAT}"""\n')
    monkeypatch.chdir(root)
    return root


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_the_run_sees_the_source_alone_but_the_score_reads_the_entry_s_folder(contest):
    entry = load_entry(contest / "submissions" / "echo" / "helper")
    assert entry.program is not None and entry.source is not None
    assert sorted(p.name for p in entry.program.folder.iterdir()) == ["main.py"]
    assert entry.source == contest / "submissions" / "echo" / "helper" / "main.py"
    assert entry.program.source.read_bytes() == entry.source.read_bytes()


def test_a_stored_source_changed_behind_verify_s_back_is_stored_again(contest):
    folder = contest / "submissions" / "echo" / "honest"
    stored = load_entry(folder).program.source
    stored.chmod(0o644)
    stored.write_text("print('tampered')\n")
    assert load_entry(folder).program.source.read_text() == SOLVER


def test_a_check_s_key_is_of_the_source_its_runs_read(contest):
    """A source changed after the entry loaded (its copy made) and before the runs: the key
    is not that of the changed folder, whose source the runs never read."""
    folder = contest / "submissions" / "echo" / "honest"
    [loaded] = load_checks([folder], None)
    (folder / "solve.py").write_text(CAT)
    [fresh] = load_checks([folder], None)
    keys = [check_key(c, Limits(), "test") for c in (loaded, fresh)]
    assert None not in keys and keys[0] != keys[1]


def test_the_cache_lists_its_entry_sources_as_a_part_of_its_own(contest):
    load_entry(contest / "submissions" / "echo" / "honest")
    info = run("cache", "info", "--format", "json")
    assert info.exit_code == 0, info.output
    parts = {part["name"]: part for part in json.loads(info.stdout)["parts"]}
    assert "entry sources (what a run sees)" in parts and not any(name.startswith("other") for name in parts)


def test_sent_to_another_process_it_is_made_again_from_the_entry_s_folder(contest, tmp_path, monkeypatch):
    """A cluster's worker has a cache of its own: the program it is sent copies the source
    into that cache, from the entry's folder, and refuses a source that changed meanwhile."""
    folder = contest / "submissions" / "echo" / "helper"
    program = load_entry(folder).program
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "worker-cache"))
    there = pickle.loads(pickle.dumps(program))
    assert (there.language, there.flags, there.key) == (program.language, program.flags, program.key)
    assert str(there.source).startswith(str(tmp_path / "worker-cache"))
    assert sorted(p.name for p in there.folder.iterdir()) == ["main.py"]
    (folder / "main.py").write_text("print('changed')\n")
    with pytest.raises(VerifyError, match="differs from the one the check loaded"):
        pickle.loads(pickle.dumps(program))
