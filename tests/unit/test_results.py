"""Results round-trip through JSON, and the result cache misses on any change that matters."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verify.commands import cache
from verify.commands.jobs import load_checks
from verify.results import CaseResult, CheckResult, ResultsFormatError
from verify.runner import Limits
from verify.verdict import Status, Verdict

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "verify"
TEXT = st.text(max_size=30)
SMALL = st.integers(min_value=0, max_value=1 << 40)
SECONDS = st.integers(min_value=0, max_value=10 ** 7).map(lambda n: n / 10_000)   # what to_dict keeps
STATS = st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), TEXT, st.booleans()), max_size=3)
VERDICTS = st.builds(Verdict, st.sampled_from(list(Status)), TEXT, TEXT, st.lists(TEXT, max_size=2), STATS)
CASES = st.builds(CaseResult, TEXT, TEXT, VERDICTS, SECONDS, SMALL, SECONDS, TEXT, SMALL)
CHECKS = st.builds(CheckResult, TEXT, st.lists(CASES, max_size=3), st.one_of(st.none(), TEXT))


@given(CASES)
def test_a_case_result_round_trips(result):
    assert CaseResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


@given(CHECKS)
def test_a_check_result_round_trips(check):
    again = CheckResult.from_json(check.to_json())
    assert again == check and (again.passed, again.why_not) == (check.passed, check.why_not)


@pytest.mark.parametrize("text", [
    "", "[]", "{}", '{"entry": 1}', '{"entry": "a", "cases": [{"entry": "a", "case": "c"}]}',
    '{"entry": "a", "cases": [{"entry": "a", "case": "c", "verdict": {"status": "great"}}]}',
    '{"entry": "a", "cases": [{"entry": "a", "case": "c", "verdict": {"status": "accepted"}, "time": "x"}]}',
])
def test_results_that_are_not_ours_are_refused_in_one_line(text):
    with pytest.raises(ResultsFormatError) as refused:
        CheckResult.from_json(text)
    assert "\n" not in str(refused.value)


@pytest.fixture
def desert_check():
    (check,) = load_checks([REPO / "submissions" / "desert" / "python-golf"], REPO / "testcases" / "desert")
    return check


def key(check, limits=Limits(), isolation="bubblewrap") -> str | None:
    return cache.check_key(check, limits, isolation)


def test_the_key_is_stable_and_follows_limits_isolation_and_cases(desert_check):
    first = key(desert_check)
    assert first is not None and key(desert_check) == first
    assert key(desert_check, Limits(wall_time=3)) != first
    assert key(desert_check, isolation="rlimits") != first
    assert key(dataclasses.replace(desert_check, tasks=desert_check.tasks[:-1])) != first


GRADING_MODULES = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                         if p.parts[len(PACKAGE.parts)] in ("grading", "commands", "contests", "runner")
                         or p.name in ("results.py", "verdict.py", "entries.py", "programs.py", "files.py"))


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory):
    """One copy of the package, the key's source, for every module's test (each restores the
    file it changed), with a check and its key before any change."""
    copy = tmp_path_factory.mktemp("package") / "verify"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (check,) = load_checks([REPO / "submissions" / "desert" / "python-golf"], REPO / "testcases" / "desert")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cache, "PACKAGE", copy)
        cache.package_digest.cache_clear()
        yield copy, check, key(check)
    cache.package_digest.cache_clear()


@pytest.mark.parametrize("module", GRADING_MODULES)
def test_a_change_to_any_grading_module_invalidates_cached_results(module, package_copy):
    copy, check, before = package_copy
    source = copy / module
    original = source.read_bytes()
    try:
        source.write_bytes(original + b"\n# any change at all\n")
        cache.package_digest.cache_clear()
        assert key(check) != before
    finally:
        source.write_bytes(original)
        cache.package_digest.cache_clear()


def test_a_toolchain_change_invalidates_cached_results(desert_check, monkeypatch):
    before = key(desert_check)
    real = cache.toolchain
    monkeypatch.setattr(cache, "toolchain", lambda language: [*real(language), "upgraded"])
    assert key(desert_check) != before


def test_the_cache_stores_and_loads_a_check(desert_check, tmp_path):
    store = cache.ResultCache(tmp_path)
    checked = CheckResult(desert_check.label, [CaseResult(desert_check.label, "one", Verdict.accept("fine"), time=0.5)])
    store.store("k", checked)
    assert store.load("k") == checked
    (tmp_path / "k.json").write_text("{broken")
    assert store.load("k") is None and store.load("missing") is None
