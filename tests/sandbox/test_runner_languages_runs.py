"""Every language built and run in the sandbox."""
import dataclasses
import importlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from machine_modes import NORMAL_USER, SYSTEM_PYTHON, machine_modes, mode_id, normal_user_script

from tests.unit.test_runner_languages import (
    ERROR_LIMITS,
    FAILING,
    REPO,
    REQUIRED,
)
from verify.commands.jobs import load_checks, run_checks
from verify.grading import LocalRunner
from verify.grading.verdicts import run_verdict
from verify.runner import Limits, MissingInterpreter, Program, run_program
from verify.runner.build import CompileError, prepare
from verify.runner.languages import Language, error_line_of, languages
from verify.runner.selftest import check_language
from verify.verdict import Status, Verdict

MODES = machine_modes()


isolation_module = importlib.import_module("verify.runner.isolation")


build_module = importlib.import_module("verify.runner.build")


@pytest.mark.parametrize("key", sorted(REQUIRED))
def test_self_test_passes(key, default_isolation):
    language = languages()[key]
    try:
        language.tools()
    except MissingInterpreter as error:
        pytest.skip(str(error))
    status = check_language(language, isolation=default_isolation, environment=os.environ)
    assert status.found and status.version
    assert status.selftest == "ok"
    assert status.seconds >= 0


def test_a_language_whose_required_file_is_missing_is_missing_with_how_to_install_it(tmp_path, default_isolation):
    language = dataclasses.replace(languages()["vyxal"], requires=(str(tmp_path / "nowhere" / "__main__.py"),))
    with pytest.raises(MissingInterpreter, match=r"^vyxal: .*nowhere/__main__\.py not found; install: python3 -m pip"):
        language.tools()
    status = check_language(language, isolation=default_isolation, environment=os.environ)
    assert not status.found and "not found" in status.selftest


HOGS = {
    # GHC's run-time system reserves a terabyte of address space up front
    "haskell": ("hog.hs", "main :: IO ()\nmain = let xs = [1 ..] :: [Integer] in print (sum xs + fromIntegral (length xs))\n"),
    # Go reserves its heap arenas as it grows
    "go": ("hog.go", "package main\nfunc main() {\n\tvar hoard [][]byte\n\tfor {\n\t\tb := make([]byte, 16<<20)\n"
                     "\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n\t\thoard = append(hoard, b)\n\t}\n}\n"),
    # the BEAM keeps large binaries off its process heaps
    "elixir": ("hog.exs", "Enum.reduce(Stream.iterate(0, &(&1 + 1)), [], fn _, acc -> [:binary.copy(\"x\", 1_000_000) | acc] end)\n"),
    "ruby": ("hog.rb", "a = []\nloop { a << \"x\" * (16 << 20) }\n"),
    "r": ("hog.r", "x <- list()\nrepeat { x[[length(x) + 1]] <- runif(2e6) }\n"),
    "ocaml": ("hog.ml", "let () = let l = ref [] in while true do l := Bytes.make (16 lsl 20) 'x' :: !l done\n"),
}


HOG_LIMITS = Limits(wall_time=20.0, cpu_time=20.0, memory=256 << 20, output=1 << 20, processes=64)


@pytest.fixture(params=MODES, ids=[mode_id(m) for m in MODES])
def mode(request, monkeypatch, use_isolation):
    policy, cgroups = request.param
    temp_root = Path(tempfile.mkdtemp(prefix="verify-tmp-"))
    os.chmod(temp_root, 0o755)
    monkeypatch.setenv("VERIFY_TMPDIR", str(temp_root))
    yield use_isolation(policy, cgroups=cgroups)
    shutil.rmtree(temp_root, ignore_errors=True)


@pytest.fixture
def entry_folder():
    """A folder the run's own uid can read (pytest's tmp_path is 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="verify-lang-test-"))
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def installed(key: str) -> Language:
    language = languages()[key]
    try:
        language.tools()
    except MissingInterpreter as error:
        pytest.skip(str(error))
    return language


@pytest.mark.parametrize("key", sorted(HOGS))
def test_a_memory_hog_is_a_memory_limit(mode, entry_folder, key):
    installed(key)
    name, text = HOGS[key]
    source = entry_folder / name
    source.write_text(text)
    source.chmod(0o644)
    result = run_program(Program(key, source), limits=HOG_LIMITS, isolation=mode)
    verdict = run_verdict(result, HOG_LIMITS, None, Verdict.accept)
    assert verdict.status is Status.MEMORY_LIMIT, (verdict, result.stderr_tail[-300:])
    assert result.wall_time < HOG_LIMITS.wall_time


NEW_ENTRIES = {"ruby": "ruby", "php": "php", "lua": "lua", "go": "go", "vyxal": "vyxal"}   # folder: language


# Vyxal starts in about a second (it imports sympy): here on a few cases, each kind of map
# (`verify check submissions/desert/vyxal` runs them all)
VYXAL_CASES = ("spec-*", "one-row-26", "one-column-19-upwards", "corner-to-corner-20", "wall-of-nines", "demo")


@pytest.fixture(scope="module")
def desert_checks():
    available = [name for name, key in NEW_ENTRIES.items() if _usable(key)]
    testcases = REPO / "testcases" / "desert"
    loaded = load_checks([REPO / "submissions" / "desert" / name for name in available if name != "vyxal"], testcases)
    if "vyxal" in available:
        loaded += load_checks([REPO / "submissions" / "desert" / "vyxal"], testcases, VYXAL_CASES)
    return {c.entry.folder.name: c for c in run_checks(LocalRunner(), loaded, Limits(wall_time=30, cpu_time=30),
                                                       jobs=2)}


def _usable(key: str) -> bool:
    try:
        languages()[key].tools()
    except MissingInterpreter:
        return False
    return True


@pytest.mark.parametrize("name", sorted(NEW_ENTRIES))
def test_the_desert_entry_passes_every_case_and_its_demo(desert_checks, name):
    if name not in desert_checks:
        pytest.skip(f"{NEW_ENTRIES[name]} is not installed")
    check = desert_checks[name]
    assert [(r.case, str(r.verdict.status)) for r in check.results if not r.passed] == []
    assert len(check.results) == len(check.tasks) > (6 if name == "vyxal" else 20)
    assert check.results[-1].case == "demo"


def test_a_runtime_folder_made_visible_is_read_only(mode, entry_folder):
    """Vyxal's folder (extra_binds) is there for the program to import from, never to write."""
    vyxal = installed("vyxal")
    target = Path(vyxal.extra_binds[0]) / "written-by-an-entry"
    source = entry_folder / "w.vy"
    source.write_text(f"`import os;print(os.path.isdir('{vyxal.extra_binds[0]}'),flush=True);"
                      f"open('{target}','w').write('x')`†")
    source.chmod(0o644)
    result = run_program(Program("vyxal", source), limits=HOG_LIMITS, isolation=mode)
    assert result.stdout.startswith(b"True\n") and result.exit_code != 0
    assert not target.exists()


BOMBS = {
    # the parent then spins in a builtin loop until its CPU limit (as tests/fixtures/hostile/fork_bomb;
    # zsh behaves as bash there)
    "dash": ("bomb.dash", "bomb() { bomb | bomb & }\nbomb\nwhile :; do :; done\n"),
    # forks until fork fails, the children sleeping (as fork_bomb_python)
    "ruby": ("bomb.rb", "loop { fork { sleep 3600 } }\n"),
}


BOMB_LIMITS = Limits(wall_time=2.0, cpu_time=1.0, memory=256 << 20, output=1 << 20, processes=16)


@pytest.mark.parametrize("key", sorted(BOMBS))
def test_a_fork_bomb_is_contained(mode, entry_folder, key):
    """With a cgroup the refused forks are counted (process limit). With rlimits alone
    nothing counts them: the run ends at a time limit (a shell's parent spins until its
    CPU limit; Ruby retries a refused fork, sleeping, until the wall limit), or fails on
    its own when the refused fork is its parent's (dash exits 2: "Cannot fork")."""
    installed(key)
    name, text = BOMBS[key]
    source = entry_folder / name
    source.write_text(text)
    source.chmod(0o644)
    result = run_program(Program(key, source), limits=BOMB_LIMITS, isolation=mode)
    verdict = run_verdict(result, BOMB_LIMITS, None, Verdict.accept)
    if mode.accounting != "rlimits":
        assert verdict.status is Status.RUNTIME_ERROR and "process limit" in verdict.message, verdict
    else:
        assert result.limit == "time" or (result.limit is None and result.exit_code not in (0, None)), result
    assert result.wall_time <= BOMB_LIMITS.wall_time + 3.0


def test_a_missing_interpreter_says_how_to_install_it(monkeypatch, tmp_path, default_isolation):
    monkeypatch.setenv("PATH", str(tmp_path))          # nothing to find there
    status = check_language(languages()["ruby"], isolation=default_isolation, environment=os.environ)
    assert not status.found
    assert status.selftest == "ruby: interpreter not found (looked for ruby on PATH); install: apt-get install ruby"


@pytest.mark.parametrize("key", ["go", "haskell", "ocaml"])
def test_a_compiled_language_is_built_once_per_source_digest(key, entry_folder, monkeypatch, tmp_path, default_isolation):
    language = installed(key)
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    source = entry_folder / f"echo.{language.extensions[0]}"
    source.write_text(language.selftest)
    source.chmod(0o644)
    first = prepare(Program(key, source), isolation=default_isolation)
    assert first.build is not None and first.build.is_relative_to(tmp_path / "cache")

    def no_second_build(*args, **kwargs):
        raise AssertionError("built again")

    monkeypatch.setattr(build_module, "_compile", no_second_build)
    assert prepare(Program(key, source), isolation=default_isolation).build == first.build
    result = run_program(Program(key, source), stdin=b"cached\n", isolation=default_isolation)
    assert result.stdout == b"cached\n"


def test_template_haskell_runs_at_build_time_in_the_sandbox_and_cannot_read_host_secrets(mode, entry_folder,
                                                                                          tmp_path, monkeypatch):
    """Template Haskell runs the entry's code inside the compiler: the build is a run like
    any other (own uid, only its folder visible), so the secret stays unread."""
    installed("haskell")
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    secret = Path(tempfile.mkdtemp(prefix="verify-secret-")) / "secret.txt"     # 0700, root's
    secret.write_text("TOP-SECRET-42\n")
    try:
        source = entry_folder / "th.hs"
        source.write_text("{-# LANGUAGE TemplateHaskell #-}\nimport Language.Haskell.TH\n"
                          f"main :: IO ()\nmain = putStrLn $(runIO (readFile {str(secret)!r}) >>= stringE)\n"
                          .replace("'", '"'))
        source.chmod(0o644)
        with pytest.raises(CompileError) as error:
            prepare(Program("haskell", source), isolation=mode)
        assert "TOP-SECRET" not in str(error.value) + error.value.log
        assert "secret.txt" in error.value.log
    finally:
        shutil.rmtree(secret.parent)


@pytest.mark.parametrize("key", sorted(FAILING))
def test_a_runtime_error_quotes_the_line_where_the_language_says_what_went_wrong(key, entry_folder, default_isolation):
    """Each language's real error output: the message quotes its error line (Ruby's is its
    first, Node's follows a caret, R's goes on indented lines), not the stack or the noise
    printed before it."""
    language = installed(key)
    text, wanted = FAILING[key]
    source = entry_folder / f"fails.{language.extensions[0]}"
    source.write_text(text)
    source.chmod(0o644)
    result = run_program(Program(key, source), limits=ERROR_LIMITS, isolation=default_isolation)
    verdict = run_verdict(result, ERROR_LIMITS, None, Verdict.accept, strict_exit=True, language=key)
    assert verdict.status is Status.RUNTIME_ERROR, (verdict, result.stderr_tail)
    assert verdict.message.endswith(wanted) or wanted in verdict.message, (verdict.message, result.stderr_tail)
    if language.error_line != "last":       # the field matters: the last line is something else
        assert wanted not in error_line_of("last", result.stderr_head, result.stderr_tail)


def test_a_self_test_build_under_one_isolation_is_never_reused_under_another(monkeypatch, tmp_path):
    """Whether a language builds depends on the isolation (Go's cache in a fixed /tmp built
    under bubblewrap's private /tmp, not without it): `verify langs` under another isolation
    builds again instead of reporting the other's success."""
    installed("c")
    isolations = {}
    for policy, cgroups in MODES:
        chosen = isolation_module.resolve(policy, cgroups=cgroups)
        isolations.setdefault(chosen.name, chosen)
    if len(isolations) < 2:
        pytest.skip(f"this machine offers one isolation only ({', '.join(isolations)})")
    first, second = list(isolations.values())[:2]
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    built = []
    compile_for_real = build_module._compile

    def counting(*args):
        built.append(args[-1].name)
        compile_for_real(*args)

    monkeypatch.setattr(build_module, "_compile", counting)
    assert check_language(languages()["c"], isolation=first, environment=os.environ).selftest == "ok"
    assert check_language(languages()["c"], isolation=second, environment=os.environ).selftest == "ok"
    assert check_language(languages()["c"], isolation=first, environment=os.environ).selftest == "ok"      # its own build, cached
    assert built == [first.name, second.name]
    assert len(list((tmp_path / "cache" / "c").iterdir())) == 2


AS_USER = """\
import json, os, sys
from verify.runner.isolation import resolve
from verify.runner.languages import languages
from verify.runner.selftest import check_language
chosen = resolve("none", "rlimits")
status = check_language(languages()[sys.argv[1]], isolation=chosen, environment=os.environ)
print(json.dumps({"isolation": chosen.name, "found": status.found, "selftest": status.selftest}))
"""


COMPILED = sorted(key for key, language in languages().items() if language.compiled)


@pytest.fixture(scope="module")
def normal_user_selftest():
    """check_language as a normal user (--sandbox none: no private /tmp, no own uid, and
    Landlock lets it write its run's folder only)."""
    with normal_user_script(AS_USER, "verify-langs-user-") as (script, cache):
        def run(key: str) -> dict:
            done = subprocess.run(["runuser", "-u", NORMAL_USER, "--", "env", f"PYTHONPATH={REPO}",
                                   f"VERIFY_CACHE={cache}", f"HOME={cache}", SYSTEM_PYTHON, str(script), key],
                                  capture_output=True, text=True, cwd="/", timeout=300)
            assert done.returncode == 0, done.stderr
            return json.loads(done.stdout)

        yield run


@pytest.mark.parametrize("key", COMPILED)
def test_a_compiled_language_passes_its_self_test_as_a_normal_user_without_a_sandbox(normal_user_selftest, key):
    """Go's build cache and GHC's object files in a fixed /tmp folder: Landlock refuses them
    there, and the language never builds; in the run's own temporary folder it does."""
    installed(key)
    found = normal_user_selftest(key)
    if not found["found"]:
        pytest.skip(f"{key} is not installed for {NORMAL_USER}: {found['selftest']}")
    assert "rlimits" in found["isolation"] and "bubblewrap" not in found["isolation"]
    assert found["selftest"] == "ok", found
