"""`verify cache info|prune|clear` and the automatic bound: least recently used first, nothing
used in the last minute, nothing outside the cache, no link followed, nothing not verify's."""
from __future__ import annotations

import json
import os
import time

import pytest
from click.testing import CliRunner

from verify import contests
from verify.cli import main
from verify.commands.cache import ResultCache
from verify.commands.cache_admin import MIB, OTHER_PART, cache_parts, max_bytes, prune, prune_cache
from verify.contests.arrows import CONTEST as ARROWS
from verify.contests.arrows import kernel_build as arrows_kernel
from verify.contests.contract import Contest, Scoring
from verify.contests.desert import CONTEST as DESERT
from verify.contests.desert import kernel_build as desert_kernel
from verify.errors import VerifyError
from verify.results import CheckResult
from verify.settings import Settings

HOUR = 3600.0


def _file(path, size, age):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    when = time.time() - age
    os.utime(path, (when, when))
    return path


def _age(path, age):
    when = time.time() - age
    for inner in [path, *path.rglob("*")]:
        os.utime(inner, (when, when), follow_symlinks=False)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    outside = tmp_path / "outside"
    _file(outside / "precious", 1000, 10 * HOUR)
    _file(root / "c" / "old" / "main", 300_000, 5 * HOUR)
    _file(root / "c" / "new" / "main", 300_000, 2 * HOUR)
    _file(root / "c" / "running" / "main", 300_000, 10)      # in use: younger than a minute
    _file(root / "results" / "a.json", 10_000, 4 * HOUR)
    _file(root / "maze-logs" / "20260101T000000Z" / "matches" / "x.jsonl", 200_000, 3 * HOUR)
    _file(root / "desert-kernel" / "0123456789abcdef" / "libdesert_replay.so", 50_000, 1 * HOUR)
    _file(root / "notes.txt", 10, 20 * HOUR)                 # not verify's
    (root / "results" / "link").symlink_to(outside)
    os.utime(root / "results" / "link", (time.time() - 20 * HOUR,) * 2, follow_symlinks=False)
    for folder in ("c/old", "c/new", "c/running", "maze-logs/20260101T000000Z", "desert-kernel/0123456789abcdef"):
        _age(root / folder, {"c/old": 5 * HOUR, "c/new": 2 * HOUR, "c/running": 10,
                             "desert-kernel/0123456789abcdef": 1 * HOUR}.get(folder, 3 * HOUR))
    monkeypatch.setenv("VERIFY_CACHE", str(root))
    monkeypatch.delenv("VERIFY_CACHE_MAX_MB", raising=False)
    return root


def test_info_lists_every_part_with_counts_and_sizes(cache):
    parts = {part.name: part for part in cache_parts()}
    assert {"builds: c", "results", "maze logs", "desert kernel builds"} <= set(parts)
    assert len(parts["builds: c"].items) == 3 and parts["builds: c"].size >= 900_000
    assert len(parts["results"].items) == 2
    other = parts["other (not verify's: left alone)"]
    assert [item.path.name for item in other.items] == ["notes.txt"] and not other.removable
    result = CliRunner().invoke(main, ["cache", "info", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["root"] == str(cache)
    assert {p["name"]: p["items"] for p in data["parts"]}["builds: c"] == 3
    table = CliRunner().invoke(main, ["cache", "info"])
    assert table.exit_code == 0 and "builds: c" in table.output and "maze logs" in table.output


def test_prune_removes_the_least_recently_used_until_under_the_bound(cache):
    done = prune(700_000)
    assert not os.path.lexists(cache / "results" / "link")
    assert not (cache / "c" / "old").exists() and not (cache / "results" / "a.json").exists()
    assert not (cache / "maze-logs" / "20260101T000000Z").exists()
    assert (cache / "c" / "new" / "main").exists() and (cache / "c" / "running" / "main").exists()
    assert (cache / "desert-kernel" / "0123456789abcdef").exists() and (cache / "notes.txt").exists()
    assert (cache.parent / "outside" / "precious").exists()
    assert done.removed == 4 and done.size_after <= 700_000


def test_prune_never_removes_what_was_used_in_the_last_minute(cache):
    done = prune(0)
    assert (cache / "c" / "running" / "main").exists() and done.kept_recent == 1
    assert not (cache / "c" / "new").exists()


def test_clear_removes_all_of_verifys_and_nothing_else(cache):
    result = CliRunner().invoke(main, ["cache", "clear"])
    assert result.exit_code == 0, result.output
    assert "removed 7 items" in result.output
    assert sorted(p.name for p in cache.iterdir()) == ["c", "desert-kernel", "maze-logs", "notes.txt", "results"]
    assert not any((cache / "desert-kernel").iterdir())
    assert not any((cache / "c").iterdir()) and not any((cache / "results").iterdir())
    assert (cache.parent / "outside" / "precious").read_bytes() == b"x" * 1000


def test_prune_command_takes_a_bound_in_mib(cache):
    result = CliRunner().invoke(main, ["cache", "prune", "--max-size", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("removed ")
    assert not (cache / "c" / "old").exists() and (cache / "c" / "new").exists()


def bound_of(env: dict[str, str]) -> int | None:
    return max_bytes(Settings.from_environment(env).cache_max_mb)


def test_the_automatic_bound_comes_from_the_environment(cache):
    assert prune_cache(bound_of({}), cache).removed == 0                          # 2 GiB by default
    assert bound_of({"VERIFY_CACHE_MAX_MB": "0"}) is None                         # 0: no bound
    assert prune_cache(None, cache) is None
    with pytest.raises(VerifyError, match="VERIFY_CACHE_MAX_MB"):
        bound_of({"VERIFY_CACHE_MAX_MB": "lots"})
    assert prune_cache(bound_of({"VERIFY_CACHE_MAX_MB": "1"}), cache).size_after <= MIB
    assert prune_cache(0, cache).kept_recent == 1


def test_a_cached_result_read_counts_as_used(tmp_path):
    store = ResultCache(tmp_path)
    store.store("k", CheckResult("label", [], None))
    os.utime(tmp_path / "k.json", (1, 1))
    assert store.load("k") is not None
    used = (tmp_path / "k.json").stat()
    assert used.st_atime > time.time() - 60 and used.st_mtime == 1


def test_the_contests_kernels_are_their_declared_cache_folders():
    assert DESERT.cache_folders == {desert_kernel.FOLDER: "desert kernel builds"}
    assert ARROWS.cache_folders == {arrows_kernel.FOLDER: "arrows kernel builds"}


class _Keeper(Contest):
    """A contest of a test's own, keeping builds in the cache, with a tournament (its logs)."""

    name = "keeper"
    title = "Keeper"
    scoring = Scoring.TOURNAMENT
    tournament = "nowhere:TOURNAMENT"       # only its being set counts here: it is never loaded
    cache_folders = {"keeper-builds": "keeper builds"}

    def parse_options(self, entry, table, folder):
        return None


@pytest.fixture
def keeper():
    contests.add(_Keeper())
    yield
    contests.reset(keep_paths=True)


def test_a_contest_s_folders_are_listed_pruned_and_cleared_by_asking_it(cache, keeper):
    _file(cache / "keeper-builds" / "one" / "lib.so", 20_000, 6 * HOUR)
    _file(cache / "keeper-logs" / "20260101T000000Z" / "x.jsonl", 20_000, 6 * HOUR)
    _file(cache / "stranger" / "x", 20_000, 30 * HOUR)                 # no one's: left alone
    _age(cache / "keeper-builds" / "one", 6 * HOUR)
    _age(cache / "keeper-logs" / "20260101T000000Z", 6 * HOUR)
    parts = {part.name: part for part in cache_parts()}
    assert [item.path.name for item in parts["keeper builds"].items] == ["one"]
    assert [item.path.name for item in parts["keeper logs"].items] == ["20260101T000000Z"]
    assert sorted(item.path.name for item in parts[OTHER_PART].items) == ["notes.txt", "stranger"]
    prune(0)
    assert not any((cache / "keeper-builds").iterdir()) and not any((cache / "keeper-logs").iterdir())
    assert (cache / "stranger" / "x").exists()


def test_a_folder_no_contest_declares_is_not_verifys(cache):
    _file(cache / "keeper-builds" / "one" / "lib.so", 20_000, 6 * HOUR)
    prune(0)
    assert (cache / "keeper-builds" / "one" / "lib.so").exists()
    assert "keeper builds" not in {part.name for part in cache_parts()}


def test_a_broken_contest_path_leaves_the_contests_folders_alone(cache, tmp_path):
    contests.add_contest_path(tmp_path / "no-such-folder")
    try:
        names = {part.name for part in cache_parts()}
        assert "desert kernel builds" not in names and "results" in names
        prune(0)
        assert (cache / "desert-kernel" / "0123456789abcdef").exists()
    finally:
        contests.reset()
