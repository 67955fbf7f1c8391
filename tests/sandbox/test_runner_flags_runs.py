"""Flags and their rules as the sandbox runs them."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from verify.files import FileRefused
from verify.runner import Limits, Program, prepare, run_program
from verify.runner.flags import (
    FlagError,
    check_flags,
)


@pytest.mark.skipif(shutil.which("perl") is None, reason="no perl")
@pytest.mark.parametrize("pattern, fields", [
    (",", "a|b c"), ("/,/", "a|b c"), ("/[,\\s]/", "a|b|c"), ("','", "a|b c"), ("/c$/", "a,b"),
])
def test_allowed_perl_split_patterns_split(pattern, fields, tmp_path):
    check_flags("perl", [f"-F{pattern}", "-lan"], tmp_path)
    source = tmp_path / "f.pl"
    source.write_text('print join "|", @F\n')
    result = subprocess.run(["perl", f"-F{pattern}", "-lan", str(source)], input=b"a,b c\n",
                            capture_output=True, timeout=20)
    assert result.stdout.decode().strip() == fields, result.stderr


needs_cc = pytest.mark.skipif(not shutil.which("gcc"), reason="needs gcc")


@pytest.fixture(params=["bwrap", "none"])
def sandbox(request, use_isolation):
    """The isolation of a build under bubblewrap, and with no sandbox (rlimits only, in a host folder)."""
    if request.param == "bwrap" and not shutil.which("bwrap"):
        pytest.skip("no bubblewrap")
    return use_isolation(request.param, cgroups=False)


SAY = '#include "word.h"\n#include <stdio.h>\nint main(void) { SAY(WORD); return 0; }\n'


def _entry(tmp_path: Path) -> Path:
    entry = tmp_path / "said"
    (entry / "inc" / "deep").mkdir(parents=True)
    (entry / "inc" / "word.h").write_text('#include "deep/spelling.h"\n')
    (entry / "inc" / "deep" / "spelling.h").write_text('#define WORD "one"\n')
    (entry / "golf.h").write_text("#define SAY(s) puts(s)\n")
    (entry / "say.c").write_text(SAY)
    return entry


@needs_cc
def test_an_include_folder_and_file_inside_the_entry_build_and_the_artefact_holds_neither(tmp_path, sandbox):
    entry = _entry(tmp_path)
    program = Program("c", entry / "say.c", flags=("-Iinc", "-include", "golf.h"))
    built = prepare(program, isolation=sandbox)
    assert run_program(program, isolation=sandbox).stdout == b"one\n"
    assert built.build is not None
    assert sorted(path.name for path in built.build.rglob("*") if path.suffix in (".h", ".c")) == []


@needs_cc
def test_a_changed_header_a_flag_names_is_rebuilt(tmp_path, sandbox):
    entry = _entry(tmp_path)
    program = Program("c", entry / "say.c", flags=("-Iinc", "-include", "golf.h"))
    first = prepare(program, isolation=sandbox).build
    assert prepare(program, isolation=sandbox).build == first                     # nothing changed: the cached artefact
    (entry / "inc" / "deep" / "spelling.h").write_text('#define WORD "two"\n')
    second = prepare(program, isolation=sandbox).build
    assert second != first and run_program(program, isolation=sandbox).stdout == b"two\n"
    (entry / "golf.h").write_text('#define SAY(s) printf("%s!\\n", s)\n')
    assert prepare(program, isolation=sandbox).build not in (first, second) and run_program(program, isolation=sandbox).stdout == b"two!\n"
    (entry / "inc" / "unused.h").write_text("\n")                 # any file below a named folder counts
    assert prepare(program, isolation=sandbox).build not in (first, second)


@needs_cc
def test_a_header_on_the_include_path_is_no_file_of_the_entry(tmp_path, sandbox):
    entry = _entry(tmp_path)
    (entry / "say.c").write_text('int main(void) { puts("std"); return 0; }\n')
    program = Program("c", entry / "say.c", flags=("-include", "stdio.h"))
    assert run_program(program, isolation=sandbox).stdout == b"std\n"


@pytest.mark.parametrize("flags", [("-I", "/tmp"), ("-Iinc/../..",), ("-include", "../golf.h"),
                                   ("-include", "/etc/passwd"), ("-I{entry}/inc",)])
def test_an_absolute_or_dotdot_path_is_refused_with_one_line(tmp_path, flags, default_isolation):
    entry = _entry(tmp_path)
    program = Program("c", entry / "say.c", flags=tuple(flag.format(entry=entry) for flag in flags))
    with pytest.raises(FlagError) as caught:
        prepare(program, isolation=default_isolation)
    message = str(caught.value)
    assert "\n" not in message and ("absolute" in message or "'..'" in message), message


def test_a_link_out_of_the_entry_below_a_named_folder_is_refused_with_one_line(tmp_path, default_isolation):
    entry = _entry(tmp_path)
    (tmp_path / "secret.h").write_text('#define WORD "secret"\n')
    os.symlink(tmp_path / "secret.h", entry / "inc" / "deep" / "spelling.h.new")
    with pytest.raises(FileRefused) as caught:
        prepare(Program("c", entry / "say.c", flags=("-Iinc",)), isolation=default_isolation)
    assert "out of the entry folder" in str(caught.value) and "\n" not in str(caught.value)


JAVA_LIMITS = Limits(wall_time=20, cpu_time=20, memory=1 << 30, output=1 << 20)


@pytest.mark.skipif(not shutil.which("javac"), reason="needs javac")
def test_a_java_source_path_inside_the_entry_builds_and_a_change_there_rebuilds(tmp_path, sandbox):
    entry = tmp_path / "java"
    (entry / "lib").mkdir(parents=True)
    (entry / "lib" / "Word.java").write_text('class Word { static String get() { return "one"; } }\n')
    (entry / "Main.java").write_text("public class Main { public static void main(String[] a) "
                                     "{ System.out.println(Word.get()); } }\n")
    program = Program("java", entry / "Main.java", flags=("-sourcepath", "lib"))
    first = prepare(program, isolation=sandbox).build
    assert run_program(program, limits=JAVA_LIMITS, isolation=sandbox).stdout == b"one\n"
    (entry / "lib" / "Word.java").write_text('class Word { static String get() { return "two"; } }\n')
    assert prepare(program, isolation=sandbox).build != first and run_program(program, limits=JAVA_LIMITS, isolation=sandbox).stdout == b"two\n"
    assert not list(prepare(program, isolation=sandbox).build.rglob("*.java"))
