"""The runner's public API: Program, Limits, RunResult, prepare, run_program, Session."""
from pathlib import Path

import pytest

from verify.errors import VerifyError
from verify.runner import (
    CompileError,
    Limits,
    MissingInterpreter,
    Program,
    Session,
    SessionError,
    get_language,
    prepare,
    run_program,
)
from verify.runner.languages import java_main_class


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_python_reads_stdin_and_arguments(tmp_path, default_isolation):
    source = write(tmp_path, "echo.py", "import sys\nprint(sys.stdin.read().upper(), *sys.argv[1:])\n")
    result = run_program(Program("python", source), stdin=b"abc", args=["x", "y z"], isolation=default_isolation)
    assert result.exit_code == 0 and result.limit is None and result.ok
    assert result.stdout == b"ABC x y z\n"
    assert result.stdout_bytes == len(result.stdout)
    assert result.isolation


def test_streaming_consumer_gets_every_byte_and_no_stdout_is_kept(tmp_path, default_isolation):
    source = write(tmp_path, "many.py", "import sys\nfor i in range(200000): sys.stdout.write('%d\\n' % i)\n")
    received = bytearray()
    result = run_program(Program("python", source), on_stdout=lambda chunk: received.extend(chunk), isolation=default_isolation)
    assert result.stdout is None
    assert bytes(received) == b"".join(b"%d\n" % i for i in range(200000))
    assert result.stdout_bytes == len(received)


def test_consumer_returning_true_stops_the_program(tmp_path, default_isolation):
    source = write(tmp_path, "forever.py", "while True: print('spam', flush=True)\n")
    result = run_program(Program("python", source), limits=Limits(wall_time=20),
                         on_stdout=lambda chunk: True, isolation=default_isolation)
    assert result.stopped_early and result.limit is None
    assert result.wall_time < 20


def test_large_stdin_does_not_deadlock(tmp_path, default_isolation):
    source = write(tmp_path, "cat.py", "import sys\nsys.stdout.write(sys.stdin.read())\n")
    data = b"0123456789abcdef" * (1 << 16)  # 1 MiB both ways
    result = run_program(Program("python", source), stdin=data, isolation=default_isolation)
    assert result.stdout == data


def test_compiled_once_per_source_digest(tmp_path, default_isolation):
    source = write(tmp_path, "hi.c", '#include <stdio.h>\nint main(){puts("hi");return 3;}\n')
    first = prepare(Program("c", source), isolation=default_isolation)
    assert first.build is not None and (first.build / "main").exists()
    assert prepare(Program("c", source), isolation=default_isolation).build == first.build
    result = run_program(Program("c", source), isolation=default_isolation)
    assert (result.stdout, result.exit_code) == (b"hi\n", 3)
    source.write_text('#include <stdio.h>\nint main(){puts("changed");}\n')
    assert prepare(Program("c", source), isolation=default_isolation).build != first.build


def test_compile_error_carries_the_compiler_log(tmp_path, default_isolation):
    source = write(tmp_path, "bad.c", "int main(void) { return syntax error; }\n")
    with pytest.raises(CompileError) as caught:
        prepare(Program("c", source), isolation=default_isolation)
    assert "error" in caught.value.log
    assert "\n" not in str(caught.value)


def test_java_public_class_name_is_found(tmp_path, default_isolation):
    assert java_main_class(b"import x;\npublic final class Golf { }") == "Golf"
    assert java_main_class(b"class A {} ") == "A"
    source = write(tmp_path, "entry.java",
                   'public class Desert { public static void main(String[] a) { System.out.println("ok"); } }\n')
    assert run_program(Program("java", source), isolation=default_isolation).stdout == b"ok\n"


def test_unknown_language_is_one_line():
    with pytest.raises(VerifyError, match="unknown language 'cobol'"):
        get_language("cobol")


def test_missing_interpreter_is_one_clear_line(tmp_path, monkeypatch, default_isolation):
    monkeypatch.setenv("PATH", str(tmp_path))
    source = write(tmp_path, "x.pl", "print 1;\n")
    with pytest.raises(MissingInterpreter, match="perl: interpreter not found"):
        run_program(Program("perl", source), isolation=default_isolation)


def test_limits_reject_nonsense():
    with pytest.raises(ValueError):
        Limits(wall_time=0)


def test_session_exchanges_lines(tmp_path, default_isolation):
    source = write(tmp_path, "double.py",
                   "import sys\nfor line in sys.stdin:\n    print(int(line) * 2, flush=True)\n")
    with Session(Program("python", source), Limits(wall_time=30), isolation=default_isolation) as session:
        assert session.exchange(b"21\n", timeout=10) == b"42"
        assert session.exchange(b"5\n", timeout=10) == b"10"
        with pytest.raises(SessionError) as caught:
            session.exchange(b"not a number\n", timeout=10)
        assert caught.value.reason == "crash"


def test_session_timeout(tmp_path, default_isolation):
    source = write(tmp_path, "mute.py", "import time\ntime.sleep(60)\n")
    with Session(Program("python", source), Limits(wall_time=30), isolation=default_isolation) as session:
        with pytest.raises(SessionError) as caught:
            session.exchange(b"hello\n", timeout=0.5)
        assert caught.value.reason == "timeout"


RLIMITS_PROGRAM = """import os, resource
names = ("RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CORE")
print(*(resource.getrlimit(getattr(resource, n))[0] for n in names), os.getuid() == 0)
"""


@pytest.mark.parametrize("helper, cgroups", [("verify-init", True), ("verify-init", False),
                                             ("prlimit+setpriv", False)])
def test_rlimits_reach_the_program(tmp_path, monkeypatch, use_isolation, helper, cgroups):
    if helper != "verify-init":
        monkeypatch.setenv("VERIFY_HELPER", "none")
    chosen = use_isolation("auto", cgroups=cgroups)
    counted = chosen.accounting != "rlimits"
    source = write(tmp_path, "limits.py", RLIMITS_PROGRAM)
    limits = Limits(cpu_time=2.5, memory=300 << 20, processes=7)
    words = run_program(Program("python", source), limits=limits, isolation=chosen).stdout.split()
    cpu, data, nproc, fsize, core, is_root = words
    # with a cgroup the memory limit is the cgroup's (it counts every page), not an rlimit
    assert (int(cpu), int(data), int(fsize), int(core)) == (3, -1 if counted else 300 << 20, 256 << 20, 0)
    import os
    if os.geteuid() == 0:
        assert is_root == b"False"          # a run never keeps root
        # with a cgroup, pids.max refuses first; setpriv runs under the program's uid
        assert int(nproc) == (7 + 8 if counted else 7 if helper == "verify-init" else 7 + 1)


def test_session_end_of_output_and_long_lines(tmp_path, default_isolation):
    quits = write(tmp_path, "quits.py", "print('bye', flush=True)\n")
    with Session(Program("python", quits), Limits(wall_time=30), isolation=default_isolation) as session:
        assert session.read_line(timeout=10) == b"bye"
        with pytest.raises(SessionError) as caught:
            session.read_line(timeout=10)
        assert caught.value.reason == "eof"
    chatty = write(tmp_path, "chatty.py", "import sys\nsys.stdout.write('x' * 100000)\nsys.stdout.flush()\n"
                                          "import time\ntime.sleep(30)\n")
    with Session(Program("python", chatty), Limits(wall_time=30, output=1000), isolation=default_isolation) as session:
        with pytest.raises(SessionError) as caught:
            session.read_line(timeout=10)
        assert caught.value.reason == "output"


def test_a_program_that_closes_its_output_is_still_waited_for(tmp_path, default_isolation):
    source = write(tmp_path, "closer.py", "import os, time\nprint('early', flush=True)\n"
                                          "os.close(1); os.close(2)\ntime.sleep(0.3)\nos._exit(3)\n")
    result = run_program(Program("python", source), isolation=default_isolation)
    assert (result.stdout, result.exit_code, result.limit) == (b"early\n", 3, None)


def test_concurrent_builds_of_one_source_share_one_artefact(tmp_path, monkeypatch, default_isolation):
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    source = write(tmp_path, "same.c", '#include <stdio.h>\nint main(){puts("same");}\n')
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(4) as pool:
        builds = list(pool.map(lambda _: prepare(Program("c", source), isolation=default_isolation).build, range(4)))
    assert len(set(builds)) == 1 and (builds[0] / "main").exists()
    leftovers = [p.name for p in builds[0].parent.iterdir() if p.name.startswith(".build-")]
    assert leftovers == []
    assert run_program(Program("c", source), isolation=default_isolation).stdout == b"same\n"


def test_an_exit_code_above_128_is_not_mistaken_for_a_signal(tmp_path, default_isolation):
    source = write(tmp_path, "exit130.py", "raise SystemExit(130)\n")
    result = run_program(Program("python", source), isolation=default_isolation)
    assert (result.exit_code, result.signal) == (130, None)


def test_a_runs_cgroup_is_made_and_removed(tmp_path, use_isolation):
    from verify.runner import reaper
    from verify.runner.sandbox import Sandbox
    chosen = use_isolation("auto", cgroups=True)
    if chosen.cgroups is None or chosen.helper is None:
        pytest.skip("no writable cgroup here")
    parents = [parent for _, parent in chosen.cgroups.parents]

    def ours() -> list[Path]:
        return [p for parent in parents for p in parent.iterdir() if p.name.startswith(reaper.cgroup_name_prefix())]

    with Sandbox(tmp_path, isolation=chosen) as sandbox:
        sandbox.wrap(["true"], Limits(memory=100 << 20))
        assert sandbox.cgroup is not None and sorted(ours()) == sorted(sandbox.cgroup.folders.values())
    assert ours() == []
    source = write(tmp_path, "p.py", "print('in a cgroup')\n")
    result = run_program(Program("python", source), isolation=chosen)
    assert result.stdout == b"in a cgroup\n" and result.accounting == chosen.cgroups.name
    assert ours() == []


def test_the_cgroup_catches_shared_memory_as_it_happens(use_isolation):
    chosen = use_isolation("auto", cgroups=True)
    if chosen.cgroups is None or chosen.helper is None:
        pytest.skip("no writable cgroup here")
    from pathlib import Path
    hog = Path(__file__).parents[1] / "fixtures" / "hostile" / "shared_memory_hog" / "shm.py"
    result = run_program(Program("python", hog), limits=Limits(wall_time=10, memory=256 << 20), isolation=chosen)
    assert result.limit == "memory" and result.signal_name == "SIGKILL"   # killed by the kernel
    assert result.peak_memory <= 256 << 20                                # before it got all it wanted
    assert "cgroup" in result.isolation


def test_limits_defaults_are_the_field_defaults():
    """Limits() is the single source of the defaults (a command line reads them from here)."""
    from verify.runner import DEFAULT_LIMITS
    assert DEFAULT_LIMITS == Limits()
    assert (Limits.wall_time, Limits.cpu_time, Limits.memory, Limits.output, Limits.processes) == \
        (10.0, 10.0, 1 << 30, 1 << 30, 64)


def test_an_isolation_passed_explicitly_is_the_one_runs_get(tmp_path, monkeypatch, use_isolation):
    """run_program, prepare and Session run under the Isolation they are given; the
    environment (VERIFY_SANDBOX, VERIFY_TMPDIR) is not read by a run."""
    import dataclasses
    import shutil

    from verify.runner import resolve_isolation
    configured = use_isolation("bwrap" if shutil.which("bwrap") else "none", cgroups=True)
    runs = tmp_path / "runs"
    explicit = dataclasses.replace(resolve_isolation("none", cgroups=False), temp_root=runs)
    monkeypatch.setenv("VERIFY_TMPDIR", "/nonexistent")     # read when resolving, never by a run
    for folder in (tmp_path, runs, tmp_path / "entry"):
        folder.mkdir(mode=0o755, exist_ok=True)
        folder.chmod(0o755)
    source = write(tmp_path / "entry", "where.py",
                   "import os, sys\nprint(os.getcwd())\nprint(sys.stdin.readline().strip())\n")
    program = Program("python", source)
    prepare(program, isolation=explicit)
    result = run_program(program, stdin=b"hi\n", isolation=explicit)
    assert result.ok and result.isolation == explicit.name and result.accounting == "rlimits"
    assert result.stdout.splitlines() == [result.stdout.splitlines()[0], b"hi"]
    assert result.stdout.startswith(str(runs).encode())    # its private folder, where the isolation says
    with Session(program, Limits(wall_time=30), isolation=explicit) as session:
        assert session.isolation == explicit.name
        assert session.exchange(b"hello\n", timeout=10).startswith(str(runs).encode())
    assert list(runs.iterdir()) == []                        # made there, and removed
    if configured.name != explicit.name:
        monkeypatch.delenv("VERIFY_TMPDIR")
        assert run_program(program, isolation=configured).isolation == configured.name


def test_limit_hit_decides_from_the_kernels_counters():
    """The verdict on limits comes from counts (a cgroup's, else wait4's), in this order:
    refused forks, out-of-memory kills, the limit verify stopped it at, then the rest."""
    from verify.runner.cgroup import CgroupUsage
    from verify.runner.process import limit_hit
    limits = Limits(cpu_time=1.0, memory=100 << 20)
    clean = CgroupUsage(cpu_time=0.1, peak_memory=1 << 20, oom_kills=0, forks_refused=0)
    assert limit_hit(None, clean, limits, 0.1, 1 << 20, 0, None) is None
    assert limit_hit("time", CgroupUsage(0.1, 1 << 20, 0, 3), limits, 0.1, 1 << 20, 0, None) == "processes"
    assert limit_hit("output", CgroupUsage(0.1, 1 << 20, 1, 0), limits, 0.1, 1 << 20, None, 9) == "memory"
    assert limit_hit("output", clean, limits, 0.1, 1 << 20, None, 9) == "output"
    assert limit_hit(None, clean, limits, 1.5, 1 << 20, 0, None) == "time"
    assert limit_hit(None, None, limits, 0.1, 200 << 20, 0, None) == "memory"     # rlimits: peak above
    assert limit_hit(None, clean, limits, 0.1, 200 << 20, 0, None) is None         # a cgroup counted less
    assert limit_hit(None, None, limits, 0.1, 95 << 20, 1, None) == "memory"      # failed near the limit
    assert limit_hit(None, None, limits, 0.1, 95 << 20, 0, None) is None
    # rlimits: a failure after the kernel refused memory at the limit, however small the peak
    assert limit_hit(None, None, limits, 0.1, 9 << 20, 1, None, refused=2) == "memory"
    assert limit_hit(None, None, limits, 0.1, 9 << 20, None, 11, refused=1) == "memory"
    assert limit_hit(None, None, limits, 0.1, 9 << 20, 0, None, refused=1) is None    # it coped
    assert limit_hit(None, None, limits, 0.1, 9 << 20, 1, None, refused=0) is None
    assert limit_hit(None, None, limits, 0.1, 9 << 20, 1, None, refused=-1) is None   # not watched
