"""Every language of languages.toml: its self-test runs (when it is installed), the table
itself is well formed, and the runtimes with their own memory models end a hog in a
memory limit in every isolation the machine offers."""
import importlib
import tomllib
from pathlib import Path

import pytest

from verify.contests.contract import InteractiveTask
from verify.entries import load_entry
from verify.errors import VerifyError
from verify.golf import score_entry
from verify.grading import FakeRun, FakeRunner
from verify.grading.interactive import asker
from verify.runner import Limits, Program
from verify.runner.languages import error_line_of, expand, languages
from verify.verdict import Verdict

ORIGINAL = {"python", "perl", "javascript", "c", "c++", "java", "rust", "bash", "awk", "tcl"}


ADDED = {"ruby", "lua", "php", "go", "haskell", "ocaml", "scheme", "forth", "elixir", "sed", "dc", "bc",
         "zsh", "dash", "r", "vyxal"}


REQUIRED = ORIGINAL | ADDED


languages_module = importlib.import_module("verify.runner.languages")   # (the package exports the function)


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


REPO = Path(__file__).parents[2]


def test_the_vyxal_entry_is_counted_in_its_code_page():
    entry = load_entry(REPO / "submissions" / "desert" / "vyxal")
    score = score_entry(entry)
    assert entry.source is not None and len(entry.source.read_bytes()) == score.source_bytes + 2   # † is 3 in UTF-8
    assert score.header("Vyxal") == f"# Vyxal, {score.source_bytes} bytes"


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
