"""Every language of languages.toml: its self-test runs (when it is installed), the table
itself is well formed, and the runtimes with their own memory models end a hog in a
memory limit in every isolation the machine offers."""
import dataclasses
import importlib
import json
import os
import shutil
import subprocess
import tempfile
import tomllib
from pathlib import Path

import pytest
from conftest import NORMAL_USER, SYSTEM_PYTHON, machine_modes, mode_id, normal_user_script

from verify.commands.jobs import load_checks, run_checks
from verify.contests.contract import InteractiveTask
from verify.entries import load_entry
from verify.errors import VerifyError
from verify.golf import score_entry
from verify.grading import FakeRun, FakeRunner, LocalRunner
from verify.grading.interactive import asker
from verify.grading.verdicts import run_verdict
from verify.runner import Limits, MissingInterpreter, Program, run_program
from verify.runner.build import CompileError, prepare
from verify.runner.languages import Language, error_line_of, expand, languages
from verify.runner.selftest import check_language
from verify.verdict import Status, Verdict

ORIGINAL = {"python", "perl", "javascript", "c", "c++", "java", "rust", "bash", "awk", "tcl"}
ADDED = {"ruby", "lua", "php", "go", "haskell", "ocaml", "scheme", "forth", "elixir", "sed", "dc", "bc",
         "zsh", "dash", "r", "vyxal"}
REQUIRED = ORIGINAL | ADDED
MODES = machine_modes()
languages_module = importlib.import_module("verify.runner.languages")   # (the package exports the function)
isolation_module = importlib.import_module("verify.runner.isolation")
build_module = importlib.import_module("verify.runner.build")


def test_the_table_has_the_required_languages_and_distinct_extensions():
    table = languages()
    assert REQUIRED <= set(table) and len(table) >= 25
    extensions = [ext.lower() for lang in table.values() for ext in lang.extensions]
    assert len(extensions) == len(set(extensions))


def test_flags_and_args_expand_to_zero_or_more_words():
    template = ("{interpreter}", "{flags}", "{source}", "{args}")
    assert expand(template, {"interpreter": "perl", "source": "a.pl"}, {"flags": [], "args": []}) == ["perl", "a.pl"]
    assert expand(template, {"interpreter": "perl", "source": "a.pl"},
                  {"flags": ["-n", "-l"], "args": ["x y"]}) == ["perl", "-n", "-l", "a.pl", "x y"]


def test_flagword_is_the_flags_as_one_word_always_present():
    """Vyxal takes its flags as one word after the source, then the inputs: with no flag the
    word is empty, so an argument never becomes the flags."""
    template = ("vyxal", "{source}", "{flagword}", "{args}")
    assert expand(template, {"source": "a.vy"}, {"flags": ["j", "s"], "args": ["1"]}) == ["vyxal", "a.vy", "js", "1"]
    assert expand(template, {"source": "a.vy"}, {"flags": [], "args": ["1"]}) == ["vyxal", "a.vy", "", "1"]


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


def test_a_self_test_with_its_own_input_and_output():
    """dc cannot echo text: its self-test computes 6 7* from its input instead."""
    dc = languages()["dc"]
    assert (dc.selftest_input, dc.selftest_output) == ("6 7*\n", "42\n")
    assert languages()["python"].selftest_output is None        # the default: the input, echoed


def write_table(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "languages.toml"
    path.write_text('[x]\nname = "X"\nextensions = ["x"]\nrun = ["x"]\nversion = ["x"]\nselftest = ""\n' + body)
    return path


@pytest.mark.parametrize("body, message", [
    ('bytes = "octets"\n', 'bytes: expected one of utf-8, codepage, chars'),
    ('bytes = "codepage"\n', 'codepage: needed exactly when bytes = "codepage"'),
    ('codepage = "vyxal"\n', 'codepage: needed exactly when bytes = "codepage"'),
    ('requires = 3\n', 'requires: expected a list of strings'),
    ('colour = "red"\n', "unknown field 'colour'"),
])
def test_a_bad_table_is_one_line_naming_the_field(tmp_path, monkeypatch, body, message):
    monkeypatch.setattr(languages_module, "TABLE_PATH", write_table(tmp_path, body))
    languages_module.languages.cache_clear()
    try:
        with pytest.raises(VerifyError, match=r"^languages\.toml: \[x\].*" + message.replace("(", r"\(")):
            languages_module.languages()
    finally:
        languages_module.languages.cache_clear()


def test_every_language_says_how_to_install_it_and_how_its_bytes_are_counted():
    with languages_module.TABLE_PATH.open("rb") as table:
        raw = tomllib.load(table)
    for key in ADDED:
        assert raw[key].get("install"), key
    assert languages()["vyxal"].bytes == "codepage" and languages()["vyxal"].codepage == "vyxal"
    assert {lang.bytes for key, lang in languages().items() if key != "vyxal"} == {"utf-8"}


# --- runtimes with memory models of their own: a hog is a memory limit --------------------

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


# --- the bundled entries in the new languages pass (through the real pipeline) ------------

REPO = Path(__file__).parent.parent
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


def test_the_vyxal_entry_is_counted_in_its_code_page():
    entry = load_entry(REPO / "submissions" / "desert" / "vyxal")
    score = score_entry(entry)
    assert entry.source is not None and len(entry.source.read_bytes()) == score.source_bytes + 2   # † is 3 in UTF-8
    assert score.header("Vyxal") == f"# Vyxal, {score.source_bytes} bytes"


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


# --- fork bombs in dash and Ruby (each fails a fork its own way): the process limit holds them ---------------

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


# --- no fixed /tmp path: caches and output folders are the run's own ----------------------

def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def test_no_language_names_a_fixed_tmp_path():
    """A run without a private /tmp (--sandbox none as a normal user) cannot write a shared
    /tmp/go-cache: a language's caches and output folders are its run's ({tmp}, its TMPDIR)."""
    with languages_module.TABLE_PATH.open("rb") as table:
        raw = tomllib.load(table)
    named = [(key, text) for key, fields in raw.items() for text in _strings(fields) if "/tmp" in text]
    assert named == []
    assert languages()["go"].env["GOCACHE"] == "{tmp}/go-cache"


# --- where each language's error line is ----------------------------------------------------

JAVA_FAILS = ("public class Main { public static void main(String[] a) { System.err.println(\"noise\");"
              " int[] x = new int[2]; System.out.println(x[a.length + 3]); } }\n")
SHELL_FAILS = "echo noise >&2\nfail() { echo 'bad input here' >&2; exit 3; }\nfail\n"
FAILING = {
    # language: (a program that fails, what its runtime error must quote)
    "python": ("import sys\nsys.stderr.write('noise\\n')\ndef f(x):\n    return x + None\nf(1)\n",
               "TypeError: unsupported operand type(s) for +: 'int' and 'NoneType'"),
    "vyxal": ("`raise ValueError('boom here')`†", "ValueError: boom here"),
    "perl": ("warn \"noise\\n\";\ndie \"bad input here\\n\";\n", "bad input here"),
    "javascript": ("console.error('noise');\nfunction f(x) { return x.y.z; }\nf({});\n",
                   "TypeError: Cannot read properties of undefined (reading 'z')"),
    "bash": (SHELL_FAILS, "bad input here"),
    "zsh": (SHELL_FAILS, "bad input here"),
    "dash": (SHELL_FAILS, "bad input here"),
    "awk": ("BEGIN { x = 1 / 0 }\n", "division by zero attempted"),
    "sed": ("s/a/b/q\n", "unknown option to `s'"),
    "tcl": ("puts stderr noise\nputs $x\n", "can't read \"x\": no such variable"),
    "ruby": ("$stderr.puts 'noise'\na = [1, nil]\nputs a.sum\n", "nil can't be coerced into Integer (TypeError)"),
    "lua": ("io.stderr:write('noise\\n')\nlocal t = nil\nprint(t.x)\n", "attempt to index a nil value (local 't')"),
    "php": ("<?php\nfunction f($x) { return intdiv($x, 0); }\necho f(1);\n",
            "Uncaught DivisionByZeroError: Division by zero"),
    "scheme": ("(display (car '()))\n", "Wrong type (expecting pair): ()"),
    "forth": (": f 1 0 / ; f bye\n", "Division by zero"),
    "elixir": ("defmodule M do\n  def f(x), do: x + nil\nend\nIO.puts M.f(1)\n",
               "** (ArithmeticError) bad argument in arithmetic expression"),
    "r": ("f <- function(x) stop('a message long enough that R puts it on a line of its own below')\nf(1)\n",
          "Error in f(1) : a message long enough that R puts it on a line of its own below"),
    "c": ("#include <assert.h>\n#include <stdio.h>\nint main(int argc, char **argv) {\n"
          "  fprintf(stderr, \"noise\\n\");\n  assert(argc == 5);\n  return 0;\n}\n", "Assertion `argc == 5' failed"),
    "c++": ("#include <iostream>\n#include <stdexcept>\nint main() { std::cerr << \"noise\\n\";"
            " throw std::runtime_error(\"boom here\"); }\n", "boom here"),
    "java": (JAVA_FAILS, "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index 3"),
    "rust": ("fn main() { eprintln!(\"noise\"); let v: Vec<i32> = vec![]; let i = std::env::args().count() + 4;"
             " println!(\"{}\", v[i]); }\n", "index out of bounds: the len is 0 but the index is 5"),
    "go": ("package main\nimport (\"fmt\"; \"os\")\nfunc main() { fmt.Fprintln(os.Stderr, \"noise\"); var a []int;"
           " fmt.Println(a[len(os.Args) + 4]) }\n", "panic: runtime error: index out of range [5] with length 0"),
    "haskell": ("main :: IO ()\nmain = error \"boom here\"\n", "main: boom here"),
    "ocaml": ("let () = Printexc.record_backtrace true; prerr_endline \"noise\"; print_int (List.hd [])\n", "Fatal error: exception Failure(\"hd\")"),
}
# exit code 0 after every error of their own: their runs never end in a runtime error to quote
NEVER_FAIL = {"dc", "bc"}
ERROR_LIMITS = Limits(wall_time=60.0, cpu_time=30.0)


def test_every_language_has_a_failing_program_here_or_a_reason():
    assert set(FAILING) | NEVER_FAIL == set(languages())


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


def test_the_error_line_rules():
    head = "noise\nfirst error\n  detail\n"
    assert error_line_of("first", head, "…tail\nlast words\n\n") == "noise"
    assert error_line_of("last", head, "…tail\nlast words\n\n") == "last words"
    assert error_line_of("first", "", "only the tail\nkept") == "only the tail"     # a session keeps no head
    # a pattern: its last match in the tail, its first group when it has one, as one line
    assert error_line_of(r"^Error (.*)\n +.*", "", "Error one\n  a\nError two\n  b\n") == "two"
    assert error_line_of(r"^Error .*(?:\n +.*)*", "", "x\nError two\n  b\n  c\nend\n") == "Error two b c"
    # not in the tail (a long stack trace pushed it out): in the head
    assert error_line_of(r"^Exception in .*", "Exception in thread main\n\tat a\n", "\tat z\n") == \
        "Exception in thread main"
    assert error_line_of(r"^panic: .*", "", "no match at all\nlast\n") == "last"
    assert error_line_of("last", "", "  \n\n") == ""
    assert len(error_line_of("last", "", "x" * 5000)) == languages_module.QUOTED_ERROR


@pytest.mark.parametrize("body, message", [
    ('error_line = "("\n', r"error_line: not a regular expression"),
    ('error_line = ""\n', 'error_line: expected "first", "last" or a regular expression'),
    ('compile = ["cc", "-o", "{tmp}/x"]\n', r"compile: unknown placeholder {tmp}"),
    ('run = ["x", "{sourc}"]\n', r"run: unknown placeholder {sourc}"),
])
def test_a_bad_error_line_or_placeholder_is_one_line(tmp_path, monkeypatch, body, message):
    table = write_table(tmp_path, "")
    text = table.read_text()
    text = text.replace('run = ["x"]\n', "") if body.startswith("run") else text
    table.write_text(text + body)
    monkeypatch.setattr(languages_module, "TABLE_PATH", table)
    languages_module.languages.cache_clear()
    try:
        with pytest.raises(VerifyError, match=r"^languages\.toml: \[x\] " + message.replace("(", r"\(")
                           .replace("{", r"\{").replace("}", r"\}")):
            languages_module.languages()
    finally:
        languages_module.languages.cache_clear()


# --- the self-test's build is cached under the isolation's name ------------------------------

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


# --- compiled languages build without a private /tmp: a normal user, no sandbox --------------

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


RUBY_STDERR = ("a.rb:2:in `+': nil can't be coerced into Integer (TypeError)\n"
               "\tfrom a.rb:2:in `sum'\n\tfrom a.rb:2:in `<main>'\n")


@pytest.mark.parametrize("persistent", [False, True], ids=["per step", "persistent"])
def test_an_interactive_reply_quotes_the_language_s_error_line(persistent):
    """A solver that crashes answers nothing: the failed request's reason quotes its error."""
    runner = FakeRunner({"a.rb": lambda stdin, args: FakeRun(b"", exit_code=1, stderr=RUBY_STDERR)})
    task = InteractiveTask("walk", Program("ruby", Path("/entries/x/a.rb")), lambda ask: Verdict.accept(), persistent,
                           ERROR_LIMITS, 1.0)
    with asker(runner, task.program, persistent, task.limits, task.step_timeout) as ask:
        reply = ask(b"1\n")
    assert reply.failure is not None and reply.failure.endswith("nil can't be coerced into Integer (TypeError)")
