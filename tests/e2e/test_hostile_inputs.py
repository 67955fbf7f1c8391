"""The judge's own inputs are bounded: every file an entry names, every file given on the
command line. Each bad input is one line (exit 2 on the command line, a failed entry in
a check) or a verdict; never a traceback, a hang or unbounded memory.

Entry folders under tests/fixtures/hostile/entries/ (see its README); what git cannot
hold (FIFOs, links into /proc, files over a bound) is made here in tmp_path.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verify.contests.desert import CONTEST as DESERT
from verify.contests.desert.map import MAX_MAP_BYTES, DesertMap
from verify.entries import load_entry
from verify.errors import EntryError
from verify.files import MAX_ENTRY_FOLDER_FILES, FileRefused, read_entry_file, scan_entry_folder

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "fixtures" / "hostile" / "entries"
GOLF = REPO / "submissions" / "desert" / "python-golf"
SPEC_MAP = REPO / "testcases" / "desert" / "spec-example.txt"
SPECIAL = "(an entry folder may hold only regular files, folders and symbolic links to them inside it)"
TIMEOUT = 120        # generous: a hang is what these tests are about, not speed


# ---------------------------------------------------------------- helpers

def verify(*args: str | Path, stdin: bytes | None = None, stdin_file=None, cwd: Path = REPO,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The command line, run from this tree's code, with a generous timeout."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-c", "from verify.cli import run; run()", *map(str, args)],
                          input=stdin, stdin=stdin_file if stdin is None else None, capture_output=True,
                          timeout=TIMEOUT, cwd=cwd, env=environment)


def one_error_line(done: subprocess.CompletedProcess) -> str:
    """The single stderr line of a bad input (exit 2), without the ``verify: error: `` prefix."""
    stderr = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr and "internal error" not in stderr
    assert done.returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0].removeprefix("verify: error: ")


def entry_error(folder: Path) -> str:
    with pytest.raises(EntryError) as caught:
        load_entry(folder)
    message = str(caught.value)
    assert "\n" not in message and "root:" not in message
    return message


def desert_entry(root: Path, name: str, demo: bytes | None = None, source: bytes = b"print()\n",
                 extra: str = "") -> Path:
    """A desert entry folder ``root/desert/name`` with a Python source and, if given, a demo map."""
    folder = root / "desert" / name
    folder.mkdir(parents=True)
    (folder / "golf.py").write_bytes(source)
    toml = 'contest = "desert"\nlanguage = "python"\nsource = "golf.py"\n' + extra
    if demo is not None:
        (folder / "demo.txt").write_bytes(demo)
        toml += '\n[desert]\ndemo = "demo.txt"\n'
    (folder / "entry.toml").write_text(toml)
    return folder


def big_map(size: int, water: bytes = b".") -> bytes:
    """A size x size map, S top left, E bottom right, every other square ``water``."""
    return (b"S" + water * (size - 1) + b"\n" + (water * size + b"\n") * (size - 2)
            + water * (size - 1) + b"E\n")


# ---------------------------------------------------------------- files an entry names

@pytest.mark.parametrize("folder, message", [
    ("demo_dev_zero", "entries/demo_dev_zero: desert.demo: '/dev/zero' is outside the entry folder"),
    ("demo_dev_stdin", "entries/demo_dev_stdin: desert.demo: '/dev/stdin' is outside the entry folder"),
    ("demo_etc_passwd", "entries/demo_etc_passwd: desert.demo: '/etc/passwd' is outside the entry folder"),
    ("demo_dotdot", "entries/demo_dotdot: desert.demo: '../../../../../../../../../../etc/passwd' "
                    "is outside the entry folder"),
    ("demo_symlink_passwd", "entries/demo_symlink_passwd: 'demo.txt' is a symbolic link out of the entry folder"),
    ("source_symlink_out", "entries/source_symlink_out: 'golf.py' is a symbolic link out of the entry folder"),
    ("stray_symlink_out", "entries/stray_symlink_out: 'notes.txt' is a symbolic link out of the entry folder"),
    ("notation_outside", "entries/notation_outside: desert.notation: "
                         "'../../../../../../../../../../etc/verify-notation.toml' is outside the entry folder"),
    ("deep_toml", "entries/deep_toml: entry.toml nests lists or tables too deeply"),
])
def test_committed_hostile_entries_are_refused_in_one_line(folder, message):
    assert entry_error(HOSTILE / folder) == message


def test_check_of_every_refused_fixture_ends_with_one_line_each(tmp_path):
    """`verify check` on all of them at once, its stdin an open pipe nobody writes to
    (what ``demo = "/dev/stdin"`` would block on): each is one line, nothing hangs."""
    refused = ["demo_dev_zero", "demo_dev_stdin", "demo_etc_passwd", "demo_dotdot", "demo_symlink_passwd",
               "source_symlink_out", "stray_symlink_out", "notation_outside", "deep_toml"]
    process = subprocess.Popen(
        [sys.executable, "-c", "from verify.cli import run; run()", "check", *(str(HOSTILE / f) for f in refused)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "VERIFY_CACHE": str(tmp_path / "cache")})
    try:
        process.wait(timeout=TIMEOUT)       # stdin stays open (a few KiB of output fit the pipes)
        out, err = process.stdout.read(), process.stderr.read()
    finally:
        process.kill()
        process.stdin.close()
        process.wait()
    assert process.returncode == 1 and b"Traceback" not in err
    failed = out.decode().split("failed:\n")[1].splitlines()
    assert failed == [f"  {entry_error(HOSTILE / folder)}" for folder in refused]


def test_a_fifo_named_as_the_demo_is_refused_without_blocking(tmp_path):
    folder = desert_entry(tmp_path, "fifo")
    os.mkfifo(folder / "demo.txt")
    (folder / "entry.toml").write_text('contest = "desert"\nlanguage = "python"\nsource = "golf.py"\n'
                                       '[desert]\ndemo = "demo.txt"\n')
    assert entry_error(folder) == f"desert/fifo: 'demo.txt' is a FIFO {SPECIAL}"


def test_a_fifo_as_entry_toml_is_refused_without_blocking(tmp_path):
    folder = tmp_path / "desert" / "fifo-toml"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "entry.toml")
    assert entry_error(folder) == f"desert/fifo-toml: 'entry.toml' is a FIFO {SPECIAL}"


def test_a_link_to_proc_self_mem_is_refused(tmp_path):
    folder = desert_entry(tmp_path, "mem", demo=SPEC_MAP.read_bytes())
    (folder / "demo.txt").unlink()
    (folder / "demo.txt").symlink_to("/proc/self/mem")
    assert entry_error(folder) == "desert/mem: 'demo.txt' is a symbolic link out of the entry folder"


def test_a_stray_link_to_a_device_is_refused_even_unnamed(tmp_path):
    folder = desert_entry(tmp_path, "zero")
    (folder / "sub").mkdir()
    (folder / "sub" / "zeros").symlink_to("/dev/zero")
    assert entry_error(folder) == "desert/zero: 'sub/zeros' is a symbolic link out of the entry folder"


def test_a_socket_in_the_folder_is_refused(tmp_path):
    import socket
    folder = desert_entry(tmp_path, "sock")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(folder / "s"))
        assert entry_error(folder) == f"desert/sock: 's' is a socket {SPECIAL}"
    finally:
        server.close()


def test_links_inside_the_folder_are_fine(tmp_path):
    folder = desert_entry(tmp_path, "inside")
    (folder / "maps").mkdir()
    (folder / "maps" / "real.txt").write_bytes(SPEC_MAP.read_bytes())
    (folder / "demo.txt").symlink_to("maps/real.txt")
    (folder / "also-maps").symlink_to("maps")
    (folder / "entry.toml").write_text('contest = "desert"\nlanguage = "python"\nsource = "golf.py"\n'
                                       '[desert]\ndemo = "demo.txt"\n')
    entry = load_entry(folder)
    assert entry.options.demo_bytes == SPEC_MAP.read_bytes()
    assert [item.relative for item in scan_entry_folder(folder)] == [
        "also-maps", "demo.txt", "entry.toml", "golf.py", "maps/real.txt"]


def test_a_link_to_nothing_is_refused(tmp_path):
    folder = desert_entry(tmp_path, "dangling")
    (folder / "gone.txt").symlink_to("missing.txt")
    assert entry_error(folder) == "desert/dangling: 'gone.txt' is a symbolic link to nothing"


@pytest.mark.parametrize("name, field, bound", [
    ("entry.toml", None, "64 KiB"), ("golf.py", "source", "1 MiB"), ("demo.txt", "desert.demo", "1 MiB")])
def test_files_over_their_bound_are_refused(tmp_path, name, field, bound):
    folder = desert_entry(tmp_path, "big", demo=SPEC_MAP.read_bytes())
    if name == "entry.toml":
        with (folder / name).open("a") as toml:
            toml.write("# padding\n" * 7000)
    else:
        with (folder / name).open("r+b") as grown:
            grown.truncate((1 << 20) + 1)        # sparse: big in size, not on disk
    where = f"{field}: " if field else ""
    assert entry_error(folder) == f"desert/big: {where}'{name}' is larger than {bound} (the most allowed)"


def test_a_folder_too_full_or_too_deep_is_refused(tmp_path):
    full = desert_entry(tmp_path, "full")
    for number in range(MAX_ENTRY_FOLDER_FILES):
        (full / f"f{number}").touch()
    assert entry_error(full) == f"desert/full: the entry folder holds more than {MAX_ENTRY_FOLDER_FILES} files"
    deep = desert_entry(tmp_path, "deep")
    (deep / ("d/" * 20)).mkdir(parents=True)
    assert entry_error(deep) == f"desert/deep: '{'d/' * 16}d' is more than 16 folders deep"
    heavy = desert_entry(tmp_path, "heavy")
    with (heavy / "blob").open("wb") as blob:
        blob.truncate(17 << 20)
    assert entry_error(heavy) == "desert/heavy: the entry folder holds more than 16 MiB"


def test_a_demo_that_is_not_a_map_is_not_echoed(tmp_path):
    folder = desert_entry(tmp_path, "passwd", demo=b"root:x:0:0:root:/root:/bin/bash\n")
    assert entry_error(folder) == ("desert/passwd: desert.demo: demo.txt: line 1, column 1: this character is "
                                   "not a map character (expected S, E, 1-9 or .)")


def test_a_deep_notation_file_is_one_line(tmp_path):
    folder = desert_entry(tmp_path, "deepnotation", extra='[desert]\nnotation = "n.toml"\n')
    (folder / "n.toml").write_text("directions = " + "[" * 5000 + "]" * 5000 + "\n")
    assert entry_error(folder) == "desert/deepnotation: desert.notation: n.toml nests lists or tables too deeply"


def test_a_link_swapped_in_after_the_check_is_not_followed(tmp_path, monkeypatch):
    import verify.files as files
    folder = tmp_path / "e"
    folder.mkdir()
    (folder / "swapped").symlink_to("/etc/passwd")
    # as if "swapped" was a plain file when checked, and became a link before it was opened
    (folder / "entry.toml").write_text("")
    real_stat = os.stat
    monkeypatch.setattr(files, "_relative_inside", lambda folder, name: files.PurePosixPath("swapped"))
    monkeypatch.setattr(files.os, "stat", lambda path, **kwargs: real_stat(
        "entry.toml" if path == "swapped" else path, **kwargs))
    with pytest.raises(FileRefused, match="^'swapped' changed while it was opened$"):
        read_entry_file(folder, "swapped", 100)


def test_a_fifo_swapped_in_after_the_check_is_refused_by_fstat(tmp_path, monkeypatch):
    import verify.files as files
    folder = tmp_path / "e"
    folder.mkdir()
    (folder / "plain").write_text("x")
    os.mkfifo(folder / "pipe")
    real_stat = os.stat
    # the check before opening sees a regular file; the FIFO is what gets opened
    monkeypatch.setattr(files.os, "stat", lambda path, **kwargs: real_stat(
        "plain" if path == "pipe" else path, **kwargs))
    with pytest.raises(FileRefused, match="^'pipe' is a FIFO, not a regular file$"):
        read_entry_file(folder, "pipe", 100)


# ---------------------------------------------------------------- check and rank go on for the others

def _good_and_special(root: Path) -> list[Path]:
    """submissions/desert/{good,fifo,mem}: a passing entry and two with special files."""
    good = root / "desert" / "good"
    shutil.copytree(GOLF, good)
    fifo = root / "desert" / "fifo"
    shutil.copytree(GOLF, fifo)
    os.mkfifo(fifo / "pipe")
    mem = root / "desert" / "mem"
    shutil.copytree(GOLF, mem)
    (mem / "mem").symlink_to("/proc/self/mem")
    return [good, fifo, mem]


def test_check_refuses_special_files_for_that_entry_only(tmp_path):
    entries = _good_and_special(tmp_path / "submissions")
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(SPEC_MAP, cases)
    done = verify("check", *entries, "--testcases", cases, env={"VERIFY_CACHE": str(tmp_path / "cache")})
    out = done.stdout.decode()
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    assert f"  desert/fifo: 'pipe' is a FIFO {SPECIAL}" in out.splitlines()
    assert "  desert/mem: 'mem' is a symbolic link out of the entry folder" in out.splitlines()
    assert "1/3 entries passed; 2/2 cases accepted" in out           # the good entry: its case and demo


def test_rank_refuses_special_files_for_that_entry_only(tmp_path):
    submissions = tmp_path / "submissions"
    _good_and_special(submissions)
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(SPEC_MAP, cases)
    done = verify("rank", "desert", "--submissions", submissions, "--testcases", cases,
                  env={"VERIFY_CACHE": str(tmp_path / "cache")})
    out = done.stdout.decode()
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    lines = out.splitlines()
    assert any(re.match(r"1 +desert/good ", line) for line in lines), out
    assert any("desert/fifo" in line and f"'pipe' is a FIFO {SPECIAL}" in line for line in lines), out
    assert any("desert/mem" in line and "'mem' is a symbolic link out of the entry folder" in line
               for line in lines), out


# ---------------------------------------------------------------- a big valid demo map

def test_judge_set_up_touches_no_square_one_by_one(monkeypatch):
    """The judge's set-up is linear: no per-square Python call (``char``) and the expected rows
    built once, whatever the map's size."""
    desert = DesertMap.parse(big_map(300))
    calls = {"char": 0, "row_bytes": 0}
    real_char, real_rows = DesertMap.char, DesertMap.row_bytes

    def char(self, row, col):
        calls["char"] += 1
        return real_char(self, row, col)

    def row_bytes(self):
        calls["row_bytes"] += 1
        return real_rows(self)

    monkeypatch.setattr(DesertMap, "char", char)
    monkeypatch.setattr(DesertMap, "row_bytes", row_bytes)
    from verify.contests.desert.judge import DesertJudge
    DesertJudge(desert, fast=False)
    DesertJudge(desert)
    assert calls == {"char": 0, "row_bytes": 2}
    assert real_rows(desert) == big_map(300).split(b"\n")[:-1]


def test_a_1000_by_1000_demo_map_is_checked(tmp_path):
    """Set-up linear in the map: the check of a 1000x1000 demo (1 MB, the most a map may be)
    ends; with a set-up of W*H^2 it took minutes."""
    data = big_map(1000)
    assert len(data) <= MAX_MAP_BYTES
    folder = desert_entry(tmp_path, "huge", demo=data)
    entry = load_entry(folder)
    (case,) = DESERT.entry_cases(entry.options, folder)
    assert case.payload.trivial == () and case.payload.map.width == 1000
    done = verify("check", folder, "--case", "demo", env={"VERIFY_CACHE": str(tmp_path / "cache")})
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    assert "desert/huge: demo: wrong: the output ends with no winning attempt: no attempt at all" in \
        done.stdout.decode()


def test_a_case_too_long_for_an_argument_is_a_judge_error_not_a_crash(tmp_path):
    from verify.grading import LocalRunner, grade_case
    folder = desert_entry(tmp_path, "args", demo=big_map(400), extra='input = "args"\n')
    entry = load_entry(folder)
    (case,) = DESERT.entry_cases(entry.options, folder)
    verdict = grade_case(LocalRunner(), entry, case).verdict
    assert (verdict.status.value, verdict.message) == (
        "judge error", "the case is 156.6 KiB, more than one command-line argument can hold (128 KiB): "
                       "an entry reading it needs input = \"stdin\"")


def test_a_map_of_nines_lists_a_bounded_number_of_violations(tmp_path):
    path = tmp_path / "nines.txt"
    path.write_bytes(big_map(1000, b"9"))
    done = verify("desert", "nontrivial", path)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 1 and not done.stderr
    assert lines[0] == f"{path}: trivial (more than 1000 violations)"
    assert len(lines) == 12 and lines[-1] == "  ... and more than 990 more (--all to list them)"
    done = verify("desert", "nontrivial", "--all", path)
    lines = done.stdout.decode().splitlines()
    assert done.returncode == 1 and not done.stderr
    assert len(lines) == 1002 and lines[-1] == "  ... and more (only the first 1000 are listed)"
    folder = desert_entry(tmp_path, "nines", demo=big_map(1000, b"9"))
    (case,) = DESERT.entry_cases(load_entry(folder).options, folder)
    verdict = DESERT.judge(load_entry(folder).options, case).finish()
    assert verdict.message == ("the demo map is trivial: tile (0,1) holding 9: square (0,0) within its border of "
                               "width 9 is S (and more than 999 more)")


# ---------------------------------------------------------------- files given on the command line

def test_judge_desert_map_from_a_device(tmp_path):
    assert one_error_line(verify("judge", "desert", "/dev/zero", "-", stdin=b"")) == \
        "/dev/zero: the map is a character device, not a regular file or a pipe"


def test_judge_desert_map_too_big_on_stdin(tmp_path):
    out = tmp_path / "out.txt"
    out.write_text("")
    assert one_error_line(verify("judge", "desert", "-", out, stdin=b"." * (2 << 20))) == \
        "-: the map is larger than 1 MiB (the most a map may hold)"


def test_judge_desert_output_from_a_device():
    assert one_error_line(verify("judge", "desert", SPEC_MAP, "/dev/zero")) == \
        "/dev/zero: the output is a character device, not a regular file or a pipe"


def test_judge_desert_fifo_map_without_writer_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "map")
    assert one_error_line(verify("judge", "desert", tmp_path / "map", "-", stdin=b"")) == \
        f"{tmp_path / 'map'}: line 1: the map is empty (expected lines of S, E, 1-9 and .)"


def test_judge_desert_notation_file_from_a_device(tmp_path):
    (tmp_path / "z.toml").symlink_to("/dev/zero")
    assert one_error_line(verify("judge", "desert", SPEC_MAP, "-", "--notation", "z.toml", stdin=b"",
                                 cwd=tmp_path)) == \
        "notation: z.toml: the notation file is a character device, not a regular file or a pipe"


def _endless(data: bytes) -> subprocess.Popen:
    """A process writing ``data`` forever on its stdout (a pipe), ended by SIGPIPE."""
    return subprocess.Popen([sys.executable, "-c", f"import sys\nwhile True: sys.stdout.buffer.write({data!r})"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


@pytest.mark.parametrize("contest, puzzle, line, verdict, at_start", [
    ("desert", SPEC_MAP, b"R+0\n" * 1024, "verdict: wrong (WA)", False),
    ("arrows", REPO / "testcases" / "arrows" / "g03-3x3.txt", b"x" * 65536,
     "PE presentation error: line 1 is longer than", True)])
def test_judge_endless_output_is_streamed_and_rejected(contest, puzzle, line, verdict, at_start):
    writer = _endless(line)
    try:
        done = verify("judge", contest, puzzle, "-", stdin_file=writer.stdout)
    finally:
        writer.kill()
        writer.wait()
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    shown = done.stdout.decode()
    assert shown.startswith(verdict) if at_start else verdict in shown


def test_judge_desert_streams_a_large_output_in_bounded_memory(tmp_path):
    """96 MiB of output (whitespace: read, never accepted) judged in the memory a tiny
    output takes (plus a little): what grows with the output is never kept. Compared
    with the tiny output's peak, not a fixed figure, since the judge's fixed cost (a
    first compilation of the fast kernel, say) varies from machine to machine."""
    def peak_kib(size_mib: float) -> int:
        output = tmp_path / f"out{size_mib}.txt"
        with output.open("wb") as file:
            for _ in range(int(size_mib * 16)):
                file.write(b" \n" * (1 << 15))
        code = ("import resource, sys\ntry:\n    from verify.cli import run\n    run()\nfinally:\n"
                "    sys.stderr.write('maxrss %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
        done = subprocess.run([sys.executable, "-c", code, "judge", "desert", str(SPEC_MAP), str(output)],
                              capture_output=True, timeout=TIMEOUT, cwd=REPO,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
        assert done.returncode == 1 and b"the output ends with no winning attempt" in done.stdout
        return int(done.stderr.decode().split("maxrss ")[1])
    peak_kib(0.0625)                          # (warms whatever the judge compiles once)
    tiny, large = peak_kib(0.0625), peak_kib(96)
    assert large - tiny < 16 << 10, (tiny, large)


def test_judge_arrows_devices_are_refused():
    puzzle = REPO / "testcases" / "arrows" / "g03-3x3.txt"
    assert one_error_line(verify("judge", "arrows", puzzle, "/dev/zero")) == \
        "/dev/zero: the output is a character device, not a regular file or a pipe"
    assert one_error_line(verify("judge", "arrows", "/dev/zero", puzzle)) == \
        "/dev/zero: the puzzle is a character device, not a regular file or a pipe"


def test_solve_arrows_puzzle_too_big_on_stdin():
    assert one_error_line(verify("solve", "arrows", "-", stdin=b"3\n" + b" " * (2 << 20))) == \
        "-: the puzzle is larger than 1 MiB (the most a puzzle may hold)"


def test_nontrivial_from_a_device():
    assert one_error_line(verify("desert", "nontrivial", "/dev/zero")) == \
        "/dev/zero: the map is a character device, not a regular file or a pipe"


def test_maze_show_bounded(tmp_path):
    assert one_error_line(verify("maze", "show", "/dev/zero")) == \
        "/dev/zero: the log is a character device, not a regular file or a pipe"
    assert one_error_line(verify("maze", "show", "-", stdin=b"x" * (5 << 20))) == \
        "-: line 1 is longer than 4 MiB"
    assert one_error_line(verify("maze", "show", "-", stdin=b'{"type": "\xff"}\n')) == \
        "-: line 1: not a match-log record"
    assert one_error_line(verify("maze", "show", "-", stdin=b"[" * 100000 + b"\n")) == \
        "-: line 1: not a match-log record"


def test_maze_check_bounded():
    assert one_error_line(verify("maze", "check", "/dev/zero")) == \
        "/dev/zero: the maze is a character device, not a regular file or a pipe"
    assert one_error_line(verify("maze", "check", "-", stdin=b"1" * (5 << 20))) == \
        "-: the maze is larger than 4 MiB (the most a maze may hold)"


def test_stdin_still_works_for_the_bounded_readers(tmp_path):
    done = verify("desert", "nontrivial", "-", stdin=SPEC_MAP.read_bytes())
    assert done.returncode in (0, 1) and done.stdout.startswith(b"-: ") and not done.stderr
    puzzle = REPO / "testcases" / "arrows" / "g03-3x3.txt"
    solved = verify("solve", "arrows", "-", stdin=puzzle.read_bytes())
    assert solved.returncode == 0
    judged = verify("judge", "arrows", puzzle, "-", stdin=solved.stdout)
    assert judged.returncode == 0 and judged.stdout.startswith(b"AC accepted")
