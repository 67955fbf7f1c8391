"""The flags allow-list (verify/runner/flags.toml, flags.py): dangerous flags are refused
with one line naming them, the flags entries use today pass, paths stay in the folder."""
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.errors import VerifyError
from verify.runner import flags as flags_module
from verify.runner.flags import (
    FlagError,
    FlagRule,
    allowed_flags,
    check_flags,
    flag_paths,
    refused_flags,
)
from verify.runner.languages import TABLE_PATH as LANGUAGES_TABLE
from verify.runner.languages import languages

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def folder(tmp_path):
    entry = tmp_path / "entry"
    (entry / "lib").mkdir(parents=True)
    (entry / "golf.h").write_text("#define R return\n")
    (entry / "lib" / "more.h").write_text("\n")
    return entry


def refusal(language, flags, folder):
    with pytest.raises(FlagError) as caught:
        check_flags(language, flags, folder)
    message = str(caught.value)
    assert "\n" not in message and "\r" not in message
    assert isinstance(caught.value, VerifyError) and caught.value.exit_code == 2
    return message


DANGEROUS = [
    # gcc / g++
    ("c", ["-wrapper", "/bin/sh,-c,id"]),
    ("c", ["-B/tmp/evil"]), ("c", ["-B", "/tmp/evil"]), ("c", ["--prefix=/tmp"]),
    ("c", ["-fplugin=/tmp/x.so"]), ("c", ["-fplugin-arg-x-y=z"]), ("c", ["-iplugindir=/tmp"]),
    ("c", ["-specs=/tmp/x.specs"]), ("c", ["--specs=/tmp/x.specs"]), ("c", ["@/tmp/args"]),
    ("c", ["-imacros", "/etc/passwd"]), ("c", ["-include", "/etc/passwd"]),
    ("c", ["-L/tmp"]), ("c", ["-L", "/tmp"]),
    ("c", ["-Wl,-rpath,/tmp"]), ("c", ["-Wl,--dynamic-linker=/tmp/ld"]), ("c", ["-Xlinker", "-T"]),
    ("c", ["-Xassembler", "--foo"]), ("c", ["-Wa,-adhln=/tmp/x"]), ("c", ["-Wp,-MD,/tmp/x"]),
    ("c", ["-Xpreprocessor", "-x"]), ("c", ["-fuse-ld=/tmp/ld"]), ("c", ["-fuse-ld=gold"]),
    ("c", ["-T", "script.ld"]), ("c", ["-Tscript.ld"]), ("c", ["--sysroot=/tmp"]), ("c", ["--sysroot", "/tmp"]),
    ("c", ["-isystem", "/etc"]), ("c", ["-idirafter", "/tmp"]), ("c", ["-iprefix", "/tmp/"]),
    ("c", ["-I/etc"]), ("c", ["-iquote", "/tmp"]), ("c", ["-isysroot", "/tmp"]),
    ("c", ["-o", "/tmp/x"]), ("c", ["-o/tmp/x"]), ("c", ["-save-temps"]), ("c", ["-save-temps=obj"]),
    ("c", ["-fdump-tree-all"]), ("c", ["-fdump-rtl-all=/tmp/x"]), ("c", ["-MD"]), ("c", ["-MF", "/tmp/x"]),
    ("c", ["-M"]), ("c", ["-MMD"]), ("c", ["-x", "c"]), ("c", ["-xc"]), ("c", ["-print-search-dirs"]),
    ("c", ["-print-prog-name=ld"]), ("c", ["-v"]), ("c", ["-###"]),
    ("c", ["-fprofile-generate"]), ("c", ["-fprofile-use=/tmp/p"]), ("c", ["-fprofile-arcs"]),
    ("c", ["-fauto-profile=/tmp/p"]), ("c", ["-flto"]), ("c", ["-flto=auto"]), ("c", ["-z", "execstack"]),
    ("c", ["-fcompare-debug=-fplugin=x"]), ("c", ["-foffload-options=-wrapper"]), ("c", ["-dumpdir", "/tmp"]),
    ("c", ["-fstack-usage"]), ("c", ["-fcallgraph-info"]), ("c", ["-fsave-optimization-record"]),
    ("c", ["/etc/passwd"]), ("c", ["evil.o"]), ("c", ["-include", "-"]), ("c", ["-include-"]),
    ("c++", ["-wrapper", "/bin/sh,-c,id"]), ("c++", ["-fplugin=x.so"]), ("c++", ["-B/tmp"]),
    ("c++", ["-fmodule-mapper=|/bin/sh"]), ("c++", ["-fdeps-file=/tmp/x"]), ("c++", ["-Wl,-z,now"]),
    # rustc
    ("rust", ["-C", "linker=/bin/sh"]), ("rust", ["-Clinker=/bin/sh"]), ("rust", ["--codegen", "linker=/bin/sh"]),
    ("rust", ["--codegen=linker=/bin/sh"]), ("rust", ["-C", "link-arg=-Wl,-T,x"]), ("rust", ["-C", "link-args=x"]),
    ("rust", ["-Clink_arg=x"]), ("rust", ["-C", "linker-flavor=ld"]), ("rust", ["-Z", "unstable-options"]),
    ("rust", ["-Zself-profile=/tmp"]), ("rust", ["-L", "/tmp"]), ("rust", ["-Lnative=/tmp"]),
    ("rust", ["-l", "evil"]), ("rust", ["-lstatic=evil"]), ("rust", ["--extern", "evil=/tmp/libevil.rlib"]),
    ("rust", ["-o", "/tmp/x"]), ("rust", ["--out-dir", "/tmp"]), ("rust", ["--emit=asm=/tmp/x.s"]),
    ("rust", ["--emit", "link"]), ("rust", ["@/tmp/args"]), ("rust", ["--sysroot", "/tmp"]),
    ("rust", ["-C", "incremental=/tmp/inc"]), ("rust", ["-C", "profile-generate=/tmp"]),
    ("rust", ["-Cprofile-use=/tmp/x"]), ("rust", ["-C", "prefer-dynamic"]), ("rust", ["-C", "llvm-args=-x"]),
    ("rust", ["--target", "/tmp/spec.json"]), ("rust", ["--print", "sysroot"]), ("rust", ["-OZfoo"]),
    # javac
    ("java", ["-J-javaagent:/tmp/a.jar"]), ("java", ["-J-Xmx1g"]), ("java", ["-processorpath", "/tmp"]),
    ("java", ["--processor-path", "/tmp"]), ("java", ["-processor", "Evil"]), ("java", ["-Xplugin:Evil"]),
    ("java", ["-classpath", "/tmp"]), ("java", ["-cp", "/tmp"]), ("java", ["-cp", "."]),
    ("java", ["--class-path", "/tmp"]), ("java", ["-d", "/tmp"]), ("java", ["-s", "/tmp"]),
    ("java", ["-h", "/tmp"]), ("java", ["@/tmp/args"]), ("java", ["--module-path", "/tmp"]), ("java", ["-p", "/tmp"]),
    ("java", ["-sourcepath", "/tmp"]), ("java", ["--source-path=/etc"]), ("java", ["-sourcepath", "lib:/tmp"]),
    ("java", ["-XDrawDiagnostics"]), ("java", ["-Xstdout", "/tmp/x"]),
    # perl
    ("perl", ["-x"]), ("perl", ["-x/tmp"]), ("perl", ["-d"]), ("perl", ["-d:Trace"]), ("perl", ["-dt"]),
    ("perl", ["-e", "print 1"]), ("perl", ["-E", "say 1"]), ("perl", ["-e"]), ("perl", ["-E"]), ("perl", ["-lane"]),
    ("perl", ["-nE"]), ("perl", ["-I/etc"]), ("perl", ["-I", "/tmp"]), ("perl", ["-I", "../.."]), ("perl", ["-i"]),
    ("perl", ["-i.bak"]), ("perl", ["-pi"]), ("perl", ["-"]), ("perl", ["-S"]), ("perl", ["-M'strict;system 1'"]),
    ("perl", ["-MO;system(1)"]), ("perl", ["-F/@{[system 1]}/"]), ("perl", ["-F/(?{system 1})/"]),
    ('perl', ['-F"@{[system 1]}"']), ("perl", ["-F/a/;system(1);/b/"]), ("perl", ["-F/$x[system 1]/"]),
    ("perl", ["-F, -e1"]), ("perl", ["-l -e1"]), ("perl", ["evil.pl"]),
    # python
    ("python", ["-c", "print(1)"]), ("python", ["-cprint(1)"]), ("python", ["-uc", "1"]),
    ("python", ["-m", "http.server"]),
    ("python", ["-mpdb"]), ("python", ["-i"]), ("python", ["-ui"]), ("python", ["-W", "ignore::evil.Warning"]),
    ("python", ["-Werror::os.X"]), ("python", ["-X", "pycache_prefix=/tmp"]), ("python", ["evil.py"]),
    ("python", ["-"]), ("python", ["--"]),
    # node
    ("javascript", ["--require", "/tmp/x.js"]), ("javascript", ["--require=/tmp/x.js"]), ("javascript", ["-r", "x"]),
    ("javascript", ["--import=x"]), ("javascript", ["--loader", "x"]), ("javascript", ["--experimental-loader=x"]),
    ("javascript", ["-e", "1"]), ("javascript", ["--eval=1"]), ("javascript", ["-p", "1"]),
    ("javascript", ["-pe", "1"]),
    ("javascript", ["--print", "1"]), ("javascript", ["--inspect"]), ("javascript", ["--inspect-brk=0.0.0.0:9229"]),
    ("javascript", ["--inspect_brk"]), ("javascript", ["--cpu-prof"]), ("javascript", ["--cpu-prof-dir=/tmp"]),
    ("javascript", ["--heap-prof"]), ("javascript", ["--diagnostic-dir=/tmp"]), ("javascript", ["--report-on-signal"]),
    ("javascript", ["--report-dir=/tmp"]), ("javascript", ["--openssl-config=/tmp/x.cnf"]),
    ("javascript", ["--redirect-warnings=/tmp/x"]), ("javascript", ["--allow-natives-syntax"]),
    ("javascript", ["--env-file=/tmp/x"]), ("javascript", ["--stack-size", "100"]), ("javascript", ["evil.js"]),
    # bash
    ("bash", ["--rcfile", "/tmp/x"]), ("bash", ["--init-file", "/tmp/x"]), ("bash", ["-c", "id"]),
    ("bash", ["-ec", "id"]),
    ("bash", ["-s"]), ("bash", ["-i"]), ("bash", ["-l"]), ("bash", ["--login"]), ("bash", ["-o", "history"]),
    ("bash", ["-O", "no_such_option"]), ("bash", ["-o", "-c"]), ("bash", ["evil.sh"]),
    # awk
    ("awk", ["-f", "/tmp/x.awk"]), ("awk", ["-f/tmp/x.awk"]), ("awk", ["-E", "/tmp/x.awk"]), ("awk", ["--exec=/tmp/x"]),
    ("awk", ["-i", "x"]), ("awk", ["--include", "x"]), ("awk", ["-l", "x"]), ("awk", ["--load=x"]),
    ("awk", ["-W", "exec", "/tmp/x"]), ("awk", ["-e", "BEGIN{}"]), ("awk", ["--source=x"]), ("awk", ["-o/tmp/x"]),
    ("awk", ["-v", "1x=2"]), ("awk", ["-bf", "x"]),
    # tcl: no flags at all
    ("tcl", ["-encoding"]), ("tcl", ["x"]),
]


@pytest.mark.parametrize("language, flags", DANGEROUS, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_dangerous_flags_are_refused_with_one_line_naming_them(language, flags, folder):
    message = refusal(language, flags, folder)
    assert message.startswith(f"flag '{flags[0]}") or message.startswith(f'flag "{flags[0]}'), message
    assert f" for {language} (" in message


@pytest.mark.parametrize("language, flags, reason", [
    ("c", ["-wrapper", "/bin/sh,-c,id"], "flag '-wrapper' is not allowed for c (it can run another program)"),
    ("c", ["--frobnicate"], "flag '--frobnicate' is not in the allow-list for c (see docs/flags.md)"),
    ("c", ["-include", "/etc/passwd"],
     "flag '-include /etc/passwd' is not allowed for c (the path '/etc/passwd' is absolute: name it relative"),
    ("c", ["-include", "../x.h"], "'..' in the path '../x.h'"),
    ("c", ["-include"], "flag '-include' is not allowed for c (it needs a value after it)"),
    ("perl", ["-lane"], "flag '-lane' is not allowed for perl (-e: "),
    ("perl", ["-lanq"], "flag '-lanq' is not in the allow-list for perl (its -q is not"),
    ("rust", ["-C", "linker=cc"], "flag '-C linker=cc' is not allowed for rust (it chooses the linker program"),
    ("java", ["-cp", "lib"], "flag '-cp' is not allowed for java (the class path can hold annotation processors"),
    ("python", ["-X", "pycache_prefix=x"], "flag '-X pycache_prefix=x' is not allowed for python (-X: it writes"),
    ("c", ["-O\n3"], "flag '-O\\n3' is not allowed for c (it holds a control character"),
    ("c", ["-DX=\x00"], "it holds a control character"),
    ("c", ["-D", "-wrapper"], "looks like a flag"),
    ("c", ["-O3", "-std=c99", "-B/x"], "flag '-B/x' "),
    ("c", ["x.c"], "not a flag"),
    ("nosuch", ["-x"], "no flag allow-list for 'nosuch'"),
])
def test_refusal_messages(language, flags, reason, folder):
    message = refusal(language, flags, folder)
    assert reason in message, message


def test_a_long_flag_is_shortened_in_the_message(folder):
    message = refusal("c", ["-D" + "A" * 500 + "\n"], folder)
    assert len(message) < 200 and "…" in message


@pytest.mark.parametrize("language, flags", [
    ("c", ["-include"]), ("c", ["-D"]), ("c", ["-I"]), ("java", ["-encoding"]), ("java", ["-sourcepath"]),
    ("rust", ["--edition"]), ("rust", ["-C"]), ("rust", ["--cfg"]), ("bash", ["-o"]), ("bash", ["-eO"]),
    ("python", ["-W"]), ("python", ["-X"]), ("perl", ["-I"]), ("perl", ["-M"]), ("awk", ["-v"]), ("awk", ["-F"]),
])
def test_a_flag_missing_its_value_is_refused(language, flags, folder):
    # its value would be the next word of the command line: the source file, or a template flag
    assert "needs a value" in refusal(language, flags, folder)


ALLOWED = [
    ("c", ["-O3"]), ("c", ["-O"]), ("c", ["-Os", "-Ofast", "-Og"]), ("c", ["-std=c99"]), ("c", ["-std=gnu11"]),
    ("c", ["-DF=for(", "-DR=return"]), ("c", ["-D", "N=100"]), ("c", ["-DP(x)=printf(\"%d\",x)"]), ("c", ["-UNDEBUG"]),
    ("c", ["-lm"]), ("c", ["-lcrypto", "-lgmp"]), ("c", ["-march=native"]), ("c", ["-mtune=native", "-mavx2"]),
    ("c", ["-mfentry"]), ("c", ["-funroll-loops"]), ("c", ["-fopenmp"]), ("c", ["-fno-stack-protector"]),
    ("c", ["-frandom-seed=42"]), ("c", ["-fwhole-program"]), ("c", ["-fsanitize=address"]), ("c", ["-w"]),
    ("c", ["-Wall", "-Wextra", "-Wno-unused-result", "-Werror=return-type"]), ("c", ["-pthread"]), ("c", ["-static"]),
    ("c", ["-s", "-no-pie"]), ("c", ["-include", "golf.h"]), ("c", ["-includegolf.h"]),
    ("c", ["-include", "lib/more.h"]),
    ("c", ["-include", "stdio.h"]), ("c", ["-imacros", "golf.h"]), ("c", ["-Ilib"]), ("c", ["-I", "lib"]),
    ("c", ["-I."]),
    ("c", ["-I/usr/include"]), ("c", ["-isystem", "/usr/local/include"]), ("c", ["-iquote", "lib"]),
    ("c", ["-idirafter", "lib"]), ("c", ["--param=max-unroll-times=8"]), ("c", ["-g"]), ("c", ["-g3"]),
    ("c", ["-nostartfiles"]), ("c", ["-pedantic", "-ansi"]),
    ("c++", ["-std=c++17"]), ("c++", ["-std=gnu++2b", "-O3", "-fno-exceptions", "-fno-rtti"]),
    ("c++", ["-static-libstdc++"]), ("c++", ["-include", "bits/stdc++.h"]),
    ("rust", ["-O"]), ("rust", ["-C", "opt-level=3"]), ("rust", ["-Copt-level=2"]), ("rust", ["-C", "opt_level=s"]),
    ("rust", ["--codegen", "opt-level=1"]), ("rust", ["--codegen=opt-level=1"]), ("rust", ["--edition=2018"]),
    ("rust", ["--edition", "2024"]), ("rust", ["-C", "target-cpu=native"]), ("rust", ["-C", "debug-assertions=off"]),
    ("rust", ["-C", "overflow-checks=on"]), ("rust", ["-C", "overflow-checks"]), ("rust", ["-C", "panic=abort"]),
    ("rust", ["--cfg", "feature=\"fast\""]), ("rust", ["--cfg=golf"]), ("rust", ["-C", "target-feature=+avx2,+bmi2"]),
    ("rust", ["-C", "codegen-units=1", "-C", "lto=fat"]), ("rust", ["-A", "warnings"]), ("rust", ["-Adead_code"]),
    ("rust", ["-g"]), ("rust", ["--cap-lints", "allow"]),
    ("java", ["-Xlint"]), ("java", ["-Xlint:all,-serial"]), ("java", ["-g"]), ("java", ["-g:none"]),
    ("java", ["-g:source,lines"]), ("java", ["-source", "17"]), ("java", ["--release", "17"]),
    ("java", ["--release=21"]),
    ("java", ["-encoding", "ISO-8859-1"]), ("java", ["-nowarn"]), ("java", ["-parameters"]), ("java", ["-proc:none"]),
    ("java", ["-sourcepath", "lib"]), ("java", ["--add-modules", "jdk.incubator.vector"]),
    ("perl", ["-l"]), ("perl", ["-n"]), ("perl", ["-p"]), ("perl", ["-lan"]), ("perl", ["-lp"]), ("perl", ["-a"]),
    ("perl", ["-F,"]), ("perl", ["-F:", "-lan"]), ("perl", ["-F/\\s+/"]), ("perl", ["-F/,/"]), ("perl", ["-F/a$/"]),
    ("perl", ["-F','"]), ("perl", ["-F\\t"]), ("perl", ["-0777"]), ("perl", ["-00"]), ("perl", ["-0"]),
    ("perl", ["-0x1F"]),
    ("perl", ["-l012"]), ("perl", ["-l0"]), ("perl", ["-s"]), ("perl", ["-w"]), ("perl", ["-Mbigint"]),
    ("perl", ["-MList::Util=sum,max"]), ("perl", ["-M5.010"]), ("perl", ["-M-warnings"]), ("perl", ["-mPOSIX"]),
    ("perl", ["-C"]), ("perl", ["-CS"]), ("perl", ["-C7"]), ("perl", ["-Ilib"]), ("perl", ["-I", "lib"]),
    ("perl", ["-g"]),
    ("python", ["-u"]), ("python", ["-B"]), ("python", ["-u", "-B"]), ("python", ["-uB"]), ("python", ["-O"]),
    ("python", ["-OO"]), ("python", ["-S"]), ("python", ["-s"]), ("python", ["-E"]), ("python", ["-I"]),
    ("python", ["-W", "ignore"]), ("python", ["-Wignore::DeprecationWarning"]), ("python", ["-Werror"]),
    ("python", ["-X", "int_max_str_digits=0"]), ("python", ["-Xutf8"]), ("python", ["-X", "dev"]),
    ("javascript", ["--stack-size=65500"]), ("javascript", ["--stack_size=100"]),
    ("javascript", ["--max-old-space-size=4096"]),
    ("javascript", ["--harmony"]), ("javascript", ["--harmony-shadow-realm"]), ("javascript", ["--use-strict"]),
    ("javascript", ["--no-warnings"]), ("javascript", ["--experimental-default-type=module"]),
    ("bash", ["-e"]), ("bash", ["-u"]), ("bash", ["-eu"]), ("bash", ["-x"]), ("bash", ["-f"]),
    ("bash", ["-o", "pipefail"]), ("bash", ["-eo", "pipefail"]), ("bash", ["-O", "extglob"]),
    ("bash", ["+O", "extglob"]),
    ("bash", ["-oO", "pipefail", "globstar"]), ("bash", ["--posix"]),
    ("awk", ["-v", "n=5"]), ("awk", ["-vn=5"]), ("awk", ["-F", ","]), ("awk", ["-F,"]), ("awk", ["-F", "\\t"]),
    ("awk", ["-F:", "-v", "OFS=-"]), ("awk", ["--posix"]), ("awk", ["-S"]), ("awk", ["--assign=x=1"]),
    ("tcl", []),
]


@pytest.mark.parametrize("language, flags", ALLOWED, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_allowed_flags_pass(language, flags, folder):
    check_flags(language, flags, folder)


def test_an_absolute_path_is_refused_even_inside_the_folder(folder):
    # (a build copies what flags name into its folder and keys its artefact by it: by
    # the path relative to the entry's folder)
    for flags in (["-include", str(folder / "golf.h")], [f"-I{folder / 'lib'}"], ["-isystem", str(folder)]):
        message = refusal("c", flags, folder)
        assert "is absolute: name it relative to the entry's folder" in message and "\n" not in message, message
    assert "is absolute" in refusal("perl", [f"-I{folder}/lib"], folder)
    assert "is absolute" in refusal("java", ["-sourcepath", f"lib:{folder}/lib"], folder)
    check_flags("c", ["-I/usr/include", "-isystem", "/usr/local/include"], folder)   # system include folders


def test_flag_paths_are_the_paths_inside_the_folder_that_flags_name(folder):
    assert flag_paths("c", ["-O2", "-Ilib", "-include", "golf.h", "-I/usr/include", "-iquote", "./lib",
                            "-I."], folder) == ["lib", "golf.h", "lib", "."]
    assert flag_paths("java", ["-sourcepath", "lib:."], folder) == ["lib", "."]
    assert flag_paths("perl", ["-Ilib", "-w"], folder) == ["lib"]
    assert flag_paths("c", ["-O2"], folder) == [] and flag_paths("c", [], folder) == []


def test_a_relative_folder_argument_is_resolved(folder, monkeypatch):
    monkeypatch.chdir(folder.parent)
    check_flags("c", ["-include", "golf.h"], Path(folder.name))
    refusal("c", ["-include", "../x.h"], Path(folder.name))


def test_an_unknown_language_without_flags_has_nothing_to_refuse(folder):
    check_flags("nosuch", [], folder)


def _entry_programs():
    """(label, language, flags) of every program that a bundled entry.toml declares (the
    submissions, and the maze fixtures; not the hostile ones, which are meant to fail)."""
    found = []

    def walk(label, table):
        if isinstance(table.get("language"), str):
            found.append((label, table["language"], tuple(table.get("flags", []))))
        for key, value in table.items():
            if isinstance(value, dict):
                walk(f"{label}.{key}", value)

    paths = sorted((ROOT / "submissions").glob("*/*/entry.toml")) + \
        sorted((ROOT / "tests" / "fixtures" / "maze").glob("*/entry.toml"))
    for path in paths:
        walk(str(path.relative_to(ROOT)), tomllib.loads(path.read_text()))
    return found


# Flags the tests and docs give today's entries (tests/e2e/test_check_pipeline.py, test_entries_toml.py,
# docs/entries.md's header example `# Perl -l, 628 + 1 = 629 bytes`).
USED_ELSEWHERE = [("python", ("-u", "-B")), ("python", ("-u",)), ("perl", ("-l",)), ("perl", ("-n",)),
                  ("perl", ("-p",)), ("perl", ("-F,",)), ("perl", ("-M5.010",)),
                  ("javascript", ("--harmony",)), ("javascript", ("--stack-size=65500",))]


def test_every_bundled_entry_passes():
    programs = _entry_programs()
    assert len(programs) >= 10 and any(flags for _, _, flags in programs)
    for label, language, flags in programs:
        try:
            check_flags(language, flags, ROOT)
        except FlagError as error:
            pytest.fail(f"{label}: {error}")


@pytest.mark.parametrize("language, flags", USED_ELSEWHERE)
def test_flags_used_by_tests_and_docs_pass(language, flags):
    check_flags(language, flags, ROOT)


def test_include_inside_the_folder_passes_and_outside_is_refused(folder, tmp_path):
    (tmp_path / "secret.h").write_text("\n")
    os.symlink(tmp_path / "secret.h", folder / "link.h")
    os.symlink("/etc", folder / "etc")
    os.symlink(folder / "lib", folder / "inner")        # a symlink that stays inside: fine
    check_flags("c", ["-include", "golf.h"], folder)
    check_flags("c", ["-include", "inner/more.h", "-Iinner"], folder)
    for bad in ("../x.h", "../entry/golf.h", "lib/../../x.h", "/etc/passwd", str(tmp_path / "secret.h"),
                "link.h", "etc/passwd", "./../x.h"):
        for flags in (["-include", bad], [f"-include{bad}"], ["-imacros", bad]):
            message = refusal("c", flags, folder)
            assert "outside the entry's folder" in message or "'..'" in message or "absolute" in message, message
    for bad in ("etc", "/etc", "..", "/tmp"):
        refusal("c", ["-I", bad], folder)
        refusal("perl", [f"-I{bad}"], folder)
        refusal("java", ["-sourcepath", f"lib:{bad}"], folder)


def test_a_symlinked_folder_is_its_own_target(tmp_path, folder):
    alias = tmp_path / "alias"
    os.symlink(folder, alias)
    check_flags("c", ["-include", "golf.h", "-Ilib"], alias)


def _refused_prefixes():
    return [(key, pattern[:-1]) for key in languages() for pattern, _ in refused_flags(key)
            if pattern.endswith("*")]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_refused_prefixes()), st.text(max_size=40), st.lists(st.text(max_size=12), max_size=3))
def test_any_flag_starting_with_a_refused_prefix_is_refused(tmp_path_factory, prefix, suffix, more):
    language, start = prefix
    folder = tmp_path_factory.getbasetemp()
    with pytest.raises(FlagError):
        check_flags(language, [start + suffix, *more], folder)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(languages())),
       st.lists(st.one_of(st.text(max_size=20), st.sampled_from(["-", "--", "-e", "-I", "-include", "-C", "-o",
                                                                   "-F", "-W", "-X", "-v", "../x", "/etc"])),
                max_size=5))
def test_any_flags_are_either_allowed_or_refused_with_one_line(tmp_path_factory, language, flags):
    folder = tmp_path_factory.getbasetemp()
    try:
        check_flags(language, flags, folder)
    except FlagError as error:
        assert "\n" not in str(error) and str(error).startswith("flag ")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["c", "c++", "rust", "java", "javascript", "python", "perl", "bash", "awk"]),
       st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=20),
       st.sampled_from(["\x00", "\n", "\r"]))
def test_a_control_character_is_refused_anywhere(tmp_path_factory, language, text, control):
    folder = tmp_path_factory.getbasetemp()
    cut = len(text) // 2
    with pytest.raises(FlagError):
        check_flags(language, ["-O" + text[:cut] + control + text[cut:]], folder)


def test_flags_toml_has_a_table_for_every_language():
    with LANGUAGES_TABLE.open("rb") as table:
        language_keys = set(tomllib.load(table))
    with flags_module.TABLE_PATH.open("rb") as table:
        flag_keys = set(tomllib.load(table))
    assert language_keys - flag_keys == set(), "a language without a flag allow-list"
    assert flag_keys - language_keys == set(), "a flag allow-list for no language"


@pytest.mark.parametrize("language", sorted(languages()))
def test_every_table_loads_and_lists(language):
    allowed, refused = allowed_flags(language), refused_flags(language)
    assert all(isinstance(rule, FlagRule) and rule.flag for rule in allowed + refused)
    assert refused, "every language names what it refuses, and why"
    assert all(rule.note for rule in refused)


def test_c_plus_plus_starts_from_the_c_rules():
    c_refused = {rule.flag for rule in refused_flags("c")}
    assert c_refused <= {rule.flag for rule in refused_flags("c++")}
    assert {rule.flag for rule in allowed_flags("c")} <= {rule.flag for rule in allowed_flags("c++")}


def test_the_docs_list_every_language_and_every_refused_pattern():
    docs = (ROOT / "docs" / "flags.md").read_text()
    for language in languages():
        assert f"### {language}\n" in docs, language
        for rule in refused_flags(language):
            assert f"`{rule.flag.replace('|', chr(92) + '|')}`" in docs, (language, rule.flag)
