"""What interpreters read besides the source: a folder of tests/fixtures/hostile/config-*/
per language holds a program printing "plain" beside the configuration files its
interpreter (or compiler) could read from its working folder or its home: site and user
customisation, php.ini, .Rprofile, .zshenv, .erlang, go.mod... Each is run through the real
runner in every sandbox policy the machine offers (without one, a home inside the entry's
folder would make those files the interpreter's own): it prints "plain" and nothing else.
Flags that load code, read a file or run a program are refused."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "fixtures"))
from verify.runner.flags import FlagError, check_flags  # noqa: E402


@pytest.mark.parametrize("language, flags", [
    ("perl", ["-Mlib=/tmp"]), ("perl", ["-Mlib"]), ("perl", ["-lnMlib=."]), ("perl", ["-mlib=."]),
    ("perl", ["-Mblib"]), ("perl", ["-MO=Deparse"]), ("perl", ["-MDevel::Peek"]), ("perl", ["-Mif=1,lib,."]),
    ("perl", ["-MFilter::sh=cat"]), ("perl", ["-d:Trace"]),
    ("haskell", ["-pgmL", "/bin/cat"]), ("haskell", ["-pgmlo"]), ("haskell", ["-F"]), ("haskell", ["-optl-s"]),
    ("haskell", ["-fplugin=X"]), ("ocaml", ["-pp", "cat"]), ("ocaml", ["-ppx", "x"]),
    ("php", ["-d", "auto_prepend_file=x.php"]), ("php", ["-dauto_prepend_file=x.php"]), ("php", ["-c", "."]),
    ("ruby", ["-rsolve"]), ("ruby", ["-r", "./solve"]), ("ruby", ["-I."]),
    ("javascript", ["--require", "./x.js"]), ("javascript", ["-r", "./x.js"]), ("javascript", ["--import=./x.mjs"]),
    ("javascript", ["--loader", "./x.mjs"]), ("javascript", ["--experimental-loader=./x.mjs"]),
    ("javascript", ["--env-file=.env"]), ("elixir", ["-r", "x.exs"]), ("elixir", ["--erl", "-s x"]),
    ("python", ["-m", "solve"]), ("python", ["-Xpycache_prefix=."]), ("lua", ["-l", "solve"]),
    ("scheme", ["-l", "x.scm"]), ("forth", ["x.fs"]), ("r", ["--default-packages=x"]),
    ("go", ["-toolexec=x"]), ("go", ["-overlay=x.json"]), ("awk", ["-i", "x.awk"]), ("sed", ["-f", "x.sed"]),
])
def test_a_flag_that_loads_code_or_reads_a_file_is_refused(language, flags, tmp_path):
    with pytest.raises(FlagError, match="not allowed"):
        check_flags(language, flags, tmp_path)


@pytest.mark.parametrize("flags", [["-MList::Util=sum"], ["-M5.010"], ["-lnMList::Util=max"], ["-Mstrict"]])
def test_perl_still_uses_a_module_of_its_own_by_name(flags, tmp_path):
    check_flags("perl", flags, tmp_path)
