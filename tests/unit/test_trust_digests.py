"""Digests of trees never collide: the result cache's key, the entry-folder digest a worker
checks, and the source digest all encode each item with its kind and every field with
its length (verify.files.TreeDigest).

The collision found by an attack: an entry whose ``data.txt`` is a link to ``real.txt``
(reading "good") and the same entry with ``data.txt`` a file holding ``->real.txt`` were
one key, so ``verify rank`` ranked the broken second version from the first one's pass.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.commands.cache import check_key
from verify.commands.jobs import load_checks
from verify.files import TreeDigest, folder_digest, source_tree_digest
from verify.runner import Limits

ROOT = Path(__file__).resolve().parents[2]


# few symbols, so that byte strings meeting at a boundary (a NUL, "->") are likely
SYMBOLS = st.binary(max_size=4).map(lambda raw: bytes(b"a\0->"[byte % 4] for byte in raw))


ITEMS = st.lists(st.tuples(st.sampled_from([TreeDigest.FILE, TreeDigest.LINK, TreeDigest.FOLDER]),
                           st.lists(SYMBOLS, max_size=3)), max_size=4)


def encoded(items: list[tuple[bytes, list[bytes]]]) -> str:
    digest = TreeDigest("test")
    for kind, fields in items:
        digest.item(kind, *fields)
    return digest.hexdigest()


@given(ITEMS, ITEMS)
@settings(max_examples=500)
def test_two_different_sequences_of_items_never_give_one_digest(first, second):
    assert (encoded(first) == encoded(second)) == (first == second)


NAMES = st.sampled_from(["a", "b", "-", "->a", "ab", "data.txt"])


CONTENTS = st.binary(max_size=6).map(lambda raw: bytes(b"ab\0->"[byte % 5] for byte in raw))


NODES = st.one_of(
    st.tuples(st.just("file"), CONTENTS, st.booleans()),
    st.tuples(st.just("link"), NAMES),
    st.tuples(st.just("folder")),
)


TREES = st.dictionaries(st.tuples(st.sampled_from(["", "sub/"]), NAMES).map("".join), NODES, max_size=5)


def materialise(tree: dict[str, tuple], folder: Path) -> None:
    """The tree on disk; a link leads to a file of the tree's top level (a link to nothing is refused)."""
    folder.mkdir()
    (folder / "anchor").write_bytes(b"")
    for relative, node in sorted(tree.items()):
        path = folder / relative
        path.parent.mkdir(exist_ok=True)
        if path.exists() or path.is_symlink():
            continue
        if node[0] == "file":
            path.write_bytes(node[1])
            path.chmod(0o755 if node[2] else 0o644)
        elif node[0] == "link":
            target = node[1] if (folder / node[1]).is_file() and "/" not in relative else "anchor"
            path.symlink_to(target if "/" not in relative else "../anchor")
        else:
            path.mkdir()


def seen(folder: Path) -> dict[str, tuple]:
    """The tree as a program would see its copy: every item with its kind, mode and bytes or link text."""
    found: dict[str, tuple] = {}
    for directory, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(directory) / name
            relative = str(path.relative_to(folder))
            info = path.lstat()
            if path.is_symlink():
                found[relative] = ("link", os.readlink(path))
            elif path.is_dir():
                found[relative] = ("folder", info.st_mode & 0o777)
            else:
                found[relative] = ("file", info.st_mode & 0o777, path.read_bytes())
    return found


@given(TREES, TREES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_two_different_entry_folders_never_give_one_digest(first, second):
    with tempfile.TemporaryDirectory() as scratch:
        one, two = Path(scratch) / "one", Path(scratch) / "two"
        materialise(first, one)
        materialise(second, two)
        assert (folder_digest(one) == folder_digest(two)) == (seen(one) == seen(two))


def test_the_link_and_the_file_holding_its_arrow_are_two_digests(tmp_path):
    link, file = tmp_path / "link", tmp_path / "file"
    for folder in (link, file):
        folder.mkdir()
        (folder / "real.txt").write_text("good")
    (link / "data.txt").symlink_to("real.txt")
    (file / "data.txt").write_bytes(b"->real.txt")
    (file / "data.txt").chmod((link / "real.txt").stat().st_mode & 0o777)
    assert folder_digest(link) != folder_digest(file)


def test_bytes_moved_from_one_file_to_the_next_change_the_digest(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    (one / "a").write_bytes(b"x\0b\0y")     # the old encoding: "a\0x\0b\0y\0" for both folders
    (two / "a").write_bytes(b"x")
    (two / "b").write_bytes(b"y")
    assert folder_digest(one) != folder_digest(two)
    for folder in (one, two):
        (folder / "a.py").write_bytes((folder / "a").read_bytes())
        (folder / "a").unlink()
    (two / "b.py").write_bytes(b"y")
    assert source_tree_digest(one) != source_tree_digest(two)


def test_an_empty_folder_changes_the_digest(tmp_path):
    (tmp_path / "x").write_text("1")
    before = folder_digest(tmp_path)
    (tmp_path / "cache").mkdir()
    assert folder_digest(tmp_path) != before


def test_every_file_of_the_test_case_folder_is_in_the_check_key(tmp_path):
    """A judge may read more than each case's input (an expected output beside it)."""
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(ROOT / "testcases" / "arrows" / "g03-3x3.txt", cases)
    entry = ROOT / "submissions" / "arrows" / "python-golf"

    def key() -> str | None:
        (check,) = load_checks([entry], cases)
        return check_key(check, Limits(), "test isolation", cases)

    first = key()
    (cases / "g03-3x3.expected").write_text("what a judge may compare with\n")
    second = key()
    assert first is not None and second is not None and first != second
