"""Digests of what is judged, through the installed command."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.test_trust_digests import ROOT

VERIFY = Path(sys.executable).parent / "verify"


SANDBOX = "bwrap" if shutil.which("bwrap") else "none"


def rank(contest: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(VERIFY), "rank", "arrows", "--submissions", "submissions", "--testcases", "cases",
                           "--sandbox", SANDBOX], cwd=contest, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "VERIFY_CACHE": str(cache)})


@pytest.fixture
def contest(tmp_path: Path) -> Path:
    """An arrows contest of one entry whose source main.py is a link to its solver (an entry's
    program runs on its source alone: no other file of its folder changes a run)."""
    root = tmp_path / "contest"
    entry = root / "submissions" / "arrows" / "linky"
    entry.mkdir(parents=True)
    (root / "cases").mkdir()
    for name in ("g03-3x3.txt", "g04-4x4.txt"):
        shutil.copy(ROOT / "testcases" / "arrows" / name, root / "cases")
    shutil.copy(ROOT / "submissions" / "arrows" / "python-golf" / "golf.py", entry / "real.py")
    (entry / "entry.toml").write_text('name = "linky"\ncontest = "arrows"\nlanguage = "python"\n'
                                      'source = "main.py"\n[arrows]\narrows = "english"\n')
    (entry / "main.py").symlink_to("real.py")
    return root


def test_rank_never_ranks_a_broken_entry_from_the_pass_of_its_linked_twin(contest, tmp_path):
    cache = tmp_path / "cache"
    good = rank(contest, cache)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "1  arrows/linky" in good.stdout
    source = contest / "submissions" / "arrows" / "linky" / "main.py"
    source.unlink()
    source.write_bytes(b"->real.py")         # the bytes the old key hashed for the link
    broken = rank(contest, cache)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "-       arrows/linky" in broken.stdout and "g03-3x3:" in broken.stdout, broken.stdout
