"""A per-step Ruby program under the fork server: its steps must learn nothing of earlier
steps (a hostile per-step maze solver, tests/fixtures/hostile/zygote-channels-ruby, tries the
interpreter's state, its descriptors, files, pids, counters, the random state and CPU time,
played by `verify koth maze` itself), and must end, and be judged, exactly as a run of its own,
with VERIFY_ZYGOTE on and off.

Ruby has no zygote (docs/runner.md, "which languages"): a Ruby process forked in C, as a
zygote's step is, aborts at its first signal, sleep, woken thread or fork. So each served Ruby
step starts a fresh interpreter, which the tests check (`zygoted`). The cases are the ones a
Ruby zygote would have to pass; those marked "forked in C" say what such a step did instead
(a Ruby process forked in C from an interpreter started ahead, measured on Ruby 3.1)."""
import os
import re
import shutil
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from zygote_steps import (
    MAZE_STEP,
    MAZES,
    SETTINGS,
    fork_server_isolation,
    runner_with_zygote,
    step_answers,
)

from verify.cli import main
from verify.runner import Limits, Program, RunResult
from verify.runner import run_program as run_alone

pytestmark = pytest.mark.skipif(not shutil.which("bwrap") or os.geteuid() != 0 or not shutil.which("ruby"),
                                reason="the fork server runs under bubblewrap, as root (and a Ruby to run)")

ROOT = Path(__file__).resolve().parents[2]
CHANNELS = ROOT / "tests" / "fixtures" / "hostile" / "zygote-channels-ruby"
LIMITS = Limits(wall_time=2, cpu_time=1, memory=256 << 20, output=1 << 20, processes=32)


# -- the hostile solver, played by `verify koth maze` ----------------------------------------

@pytest.mark.parametrize("accounting", ["cgroup", "rlimits"])
def test_a_per_step_ruby_solver_learns_nothing_from_its_earlier_steps(tmp_path, use_isolation, monkeypatch,
                                                                      zygoted, accounting):
    fork_server_isolation(use_isolation, accounting == "cgroup")
    played, served = {}, {}
    for setting in SETTINGS:
        monkeypatch.setenv("VERIFY_ZYGOTE", setting)
        logs = tmp_path / setting
        zygoted.clear()
        # (3x3: 27 steps, as a first-move solver never arrives)
        result = CliRunner().invoke(main, ["koth", "maze", str(CHANNELS), str(MAZES), "--sizes", "3", "--seeds", "1",
                                           "--size-range", "2..50", "--patience", "0", "--logs", str(logs), "-q", "--fresh",
                                           "--accounting", accounting])
        assert result.exit_code == 0, result.output
        played[setting], served[setting] = step_answers(logs, "zygote-channels-ruby"), list(zygoted)
    for setting in SETTINGS:
        assert len(served[setting]) >= 20                     # the steps went through the fork server,
        assert True not in served[setting]                    # each a fresh interpreter (Ruby has no zygote)
        assert len(played[setting]) == len(served[setting])
    assert [answer for answer in played["on"] + played["off"] if "learned" in answer] == []
    # (nothing found, nothing differs from a fresh `ruby solver.rb`: a move each, no step failed)
    assert [answer for answer in played["on"] + played["off"] if not re.fullmatch(r"\d+ \d+", answer)] == []
    assert played["on"] == played["off"]                      # as many steps, the same moves


# -- the same steps through the runner API ---------------------------------------------------

@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "rlimits"])
def test_the_hostile_ruby_solver_run_as_steps_finds_what_a_run_of_its_own_finds(tmp_path, use_isolation,
                                                                               monkeypatch, zygoted, cgroups):
    isolation = fork_server_isolation(use_isolation, cgroups)
    folder = tmp_path / "zygote-channels-ruby"
    shutil.copytree(CHANNELS, folder)
    solver = Program("ruby", folder / "solver.rb")
    cells = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (1, 2)]     # bits 0, 1, 0, 1...
    inputs = [MAZE_STEP.format(*cell).encode() for cell in cells]
    own = [run_alone(solver, isolation=isolation, limits=LIMITS, stdin=stdin) for stdin in inputs[:2]]
    assert [(r.exit_code, r.stdout, r.stderr_tail) for r in own] == [(0, b"0 1\n", "")] * 2, own
    found = {}
    for setting in SETTINGS:
        zygoted.clear()
        with runner_with_zygote(isolation, monkeypatch, setting) as runner:
            results = [run_alone(solver, ahead=True, isolation=isolation, pools=runner.pools, limits=LIMITS,
                                 stdin=stdin) for stdin in inputs]
        assert zygoted == [False] * len(inputs)              # served, each a fresh interpreter
        found[setting] = [(r.exit_code, r.signal, r.stdout, r.stderr_tail) for r in results]
    assert found["on"] == found["off"] == [(0, None, b"0 1\n", "")] * len(inputs), found
    assert not list(folder.glob("carried*"))                 # (its folder's copy, not the folder, took them)


# -- verdicts: each case's program (and files beside it), three ways ----------------------------

CASES = {   # name: (program, files beside it); "forked in C": what a zygote's step did instead
    "exit 0": ('puts "fine"\n', {}),
    "exit 3": ('puts "out"\nexit 3\n', {}),
    "exit!": ('print "lost"\nexit!(4)\n', {}),
    "abort": ('puts "out"\nabort("a message")\n', {}),
    "exception": ('def fail_now\n  raise "bad value"\nend\n\nputs "before"\n$stdout.flush\nfail_now\n', {}),
    "name error": ("x = 1\nundefined_name + x\n", {}),
    "syntax error": ('puts "never"\nputs(1\n', {}),
    "interrupt": ('puts "before"\n$stdout.flush\nraise Interrupt\n', {}),
    # (forked in C: SIGABRT, "[ASYNC BUG] consume_communication_pipe: read(4) EBADF": no eventfds)
    "sigterm": ('puts "before"\n$stdout.flush\nProcess.kill(:TERM, $$)\nsleep 1\nputs "after"\n', {}),
    "sigkill": ('puts "before"\n$stdout.flush\nProcess.kill(:KILL, $$)\nputs "after"\n', {}),
    "time": ("loop {}\n", {}),
    # (forked in C, rlimits, where the allocation fails: "-e:58:in `rescue in block in <main>': failed to
    # allocate memory (NoMemoryError)" and -e frames, zygote_main.rb's `raise` giving it a backtrace)
    "memory": ('x = "x" * (1 << 30)\np x.size\n', {}),
    "no memory error": ('puts "before"\n$stdout.flush\n"x" * (1 << 40)\n', {}),      # (forked in C: the same)
    # (forked in C: "-e: no trace (RuntimeError)")
    "no backtrace": ('error = RuntimeError.new("no trace")\ndef error.backtrace = nil\nraise error\n', {}),
    "output": ('$stdout.write("x" * (3 << 20))\n', {}),
    "at exit": ('at_exit { puts "at exit 1" }\nEND { puts "END" }\nat_exit { puts "at exit 2" }\nputs "main"\n', {}),
    "at exit status": ('at_exit { puts "at exit"; exit 7 }\nputs "main"\nraise "then this"\n', {}),
    "unflushed": ('$stdout.write "no newline"\n', {}),
    "stdout closed": ('print "out"\nSTDOUT.close\nexit 0\n', {}),
    "write after close": ('print "out"\nSTDOUT.close\nputs "more"\n', {}),
    # (forked in C, these five: SIGABRT, "[ASYNC BUG] ...: read(4)/write(4) EBADF")
    "threads": ('t = Thread.new { 6 * 7 }\np t.value\nThread.new { sleep 0.2; puts "thread" }\nputs "main"\n', {}),
    # (forked in C, fresh eventfds in place: SIGABRT, "[ASYNC BUG] timer_settime (arm) EINVAL")
    "thread blocked": ("r, _w = IO.pipe\nt = Thread.new { r.read }\nThread.pass until t.stop?\nt.kill\n"
                       "p t.join(1)&.status\n", {}),
    "timeout": ('require "timeout"\nbegin\n  Timeout.timeout(0.1) { loop {} }\nrescue Timeout::Error => e\n  p e\nend\n',
                {}),
    "trap": ('trap(:USR1) { puts "usr1" }\nProcess.kill(:USR1, $$)\nsleep 0.1\nputs "after"\n', {}),
    "children": ('system("true")\np $?.exitstatus\np `echo hi`\npid = Process.spawn("ruby", "-e", "exit 7")\n'
                 "Process.wait(pid)\np $?.exitstatus\n", {}),
    # (forked in C: "[ASYNC BUG] close_invalidate: signal_self_pipe.normal(4) EBADF"; with its eventfds
    # restored, "[BUG] timer_posix was not dead: 0")
    "fork": ('pid = fork { puts "child" }\nProcess.wait(pid)\np $?.exitstatus\nputs "parent"\n', {}),
    # (forked in C: SIGABRT, "[ASYNC BUG] consume_communication_pipe: read(4) EBADF": Ruby reads fd 4, a file)
    "files and a signal": ('files = %w[a b c d].map { |name| File.open(name, "w") }\np files.map(&:fileno)\n'
                           'trap(:USR1) { puts "usr1" }\nProcess.kill(:USR1, $$)\nsleep 0.1\nfiles.each(&:close)\n'
                           "p %w[a b c d].map { |name| File.binread(name) }\n", {}),
    "require relative": ('require_relative "helper"\np MARK, helper, $LOADED_FEATURES.grep(/helper/).map { File.basename(_1) }\n',
                         {"helper.rb": 'MARK = 1\ndef helper = "helped"\n'}),
    "names": ("p [__FILE__ == $0, $0, __FILE__, ARGV, __dir__, $PROGRAM_NAME, $*, __method__, self.to_s, "
              "Dir.pwd == __dir__]\n", {}),
    # (forked in C: -e:50:in `eval', -e:50:in `block in <main>', -e:60:in `<main>' below `<main>')
    "caller": ("def where\n  caller\nend\np where\np caller, caller_locations.size\n", {}),
    # (forked in C: TOPLEVEL_BINDING the zygote's -e code's: [] where a fresh ruby's holds [:x])
    "toplevel binding": ("x = 1\np TOPLEVEL_BINDING.local_variables\np binding.local_variables, x\n", {}),
    "stdin": ("$stdout.write $stdin.read\n", {}),
    "data": ("puts DATA.read\n__END__\ndata here\n", {}),
    "shebang": ('#!/usr/bin/ruby -w\nx = 1\nputs "w"\n', {}),
    "frozen string literal": ('# frozen_string_literal: true\ns = "abc"\np s.frozen?\ns << "d"\n', {}),
    # (forked in C: no eventfds, the first file opened fd 3 where a fresh ruby's is fd 5)
    "descriptors": ('p Dir.children("/proc/self/fd").sort_by(&:to_i).map { |fd| '
                    '[fd, (File.readlink("/proc/self/fd/#{fd}").sub(/\\[\\d+\\]\\z/, "") rescue "-")] }\n'
                    "p File.open(__FILE__).fileno\n", {}),
    "signal masks": ('File.foreach("/proc/self/status") { |l| print l if l.start_with?("SigPnd", "ShdPnd", "SigBlk", '
                     '"SigIgn", "SigCgt") }\n', {}),
    "interpreter": ("p Object.constants.sort, global_variables.sort, $LOADED_FEATURES, $LOAD_PATH\n"
                    "p Encoding.default_external, Encoding.default_internal, __ENCODING__, $VERBOSE, $DEBUG, "
                    "Warning[:deprecated], $stdout.sync, $stderr.sync, $/, $,, $;\n"
                    "p Object.private_instance_methods(false).sort, singleton_methods.sort, Thread.list.size, "
                    "File.umask, Dir.pwd\n", {}),
    # (forked in C: VerifyZygote and its singleton class, 2 modules more)
    "object space": ("p ObjectSpace.each_object(Module).map(&:name).compact.sort\n", {}),
    # (the objects allocated at the start vary by a few from one run to another: 56695 to 56697 here,
    # forked in C: 56917; bounded, as what a step allocated would be past that bound)
    "gc at start": ("p GC.stat(:total_allocated_objects) < 100_000, GC.count, Object.new.object_id\n", {}),
    # (a fresh ruby's start takes 0.07-0.09 s of CPU here: a bound with room for a slower machine)
    "cpu at start": ("p Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) < 0.35, "
                     "Process.times.utime + Process.times.stime < 0.35\n", {}),
    # each step its own: the same shape each way, other values at each step
    "rand": ("p rand.class, Random.rand(1 << 62), Random.new_seed, Random.seed\n", {}),
    # (forked in C: the same hashes and addresses at every step, the zygote's)
    "hash seed": ('p "probe".hash, :probe.hash, 12.hash, Object.new.inspect\n', {}),
}
PER_STEP = ("rand", "hash seed")        # (their output differs from one step to the next)
STDIN = b"state\n" * 100
SAME = ("exit_code", "signal", "limit", "stopped_early", "stdout", "stderr_tail", "isolation", "accounting")


def _verdict(result: RunResult, case: str) -> dict:
    fields = {name: getattr(result, name) for name in SAME}
    if case == "time":
        # at the CPU time limit the kernel's SIGXCPU (RLIMIT_CPU) and verify's SIGKILL (the
        # CPU time counted) race, with or without the fork server: either ends it
        assert result.signal in (signal.SIGXCPU, signal.SIGKILL), result
        fields.pop("signal")
    if case == "output":
        # past the output limit verify kills it, and its write of what the pipe took may
        # end first: exit 0 or SIGKILL, served or in a run of its own
        assert (result.exit_code, result.signal) in ((0, None), (None, signal.SIGKILL)), result
        fields.pop("exit_code")
        fields.pop("signal")
    if case in PER_STEP:
        fields["stdout"] = result.stdout.count(b"\n")
    return fields


EXPECTED = {      # what each case must give (beyond being the same each way)
    "exit 0": dict(exit_code=0, signal=None, limit=None, stdout=b"fine\n", stderr_tail=""),
    "exit 3": dict(exit_code=3, signal=None, limit=None, stdout=b"out\n", stderr_tail=""),
    "exit!": dict(exit_code=4, signal=None, stdout=b"", stderr_tail=""),
    "abort": dict(exit_code=1, signal=None, stdout=b"out\n", stderr_tail="a message\n"),
    "exception": dict(exit_code=1, signal=None, limit=None, stdout=b"before\n"),
    "name error": dict(exit_code=1, signal=None, stdout=b""),
    "syntax error": dict(exit_code=1, signal=None, stdout=b""),
    "interrupt": dict(exit_code=None, signal=signal.SIGINT, stdout=b"before\n"),
    "sigterm": dict(exit_code=None, signal=signal.SIGTERM, stdout=b"before\n", stderr_tail=""),
    "sigkill": dict(exit_code=None, signal=signal.SIGKILL, stdout=b"before\n", stderr_tail=""),
    "time": dict(exit_code=None, limit="time"),
    "memory": dict(limit="memory"),
    "no memory error": dict(exit_code=1, signal=None, stdout=b"before\n"),
    "no backtrace": dict(exit_code=1, signal=None, stdout=b""),
    "output": dict(limit="output"),
    "at exit": dict(exit_code=0, stdout=b"main\nat exit 2\nEND\nat exit 1\n", stderr_tail=""),
    "at exit status": dict(exit_code=7, stdout=b"main\nat exit\n"),
    "unflushed": dict(exit_code=0, stdout=b"no newline"),
    "stdout closed": dict(exit_code=0, stdout=b"out", stderr_tail=""),
    "write after close": dict(exit_code=1, stdout=b"out"),
    "threads": dict(exit_code=0, stdout=b"42\nmain\n", stderr_tail=""),
    "thread blocked": dict(exit_code=0, stdout=b"false\n", stderr_tail=""),
    "timeout": dict(exit_code=0, stdout=b"#<Timeout::Error: execution expired>\n", stderr_tail=""),
    "trap": dict(exit_code=0, stdout=b"usr1\nafter\n", stderr_tail=""),
    "children": dict(exit_code=0, stdout=b'0\n"hi\\n"\n7\n', stderr_tail=""),
    "fork": dict(exit_code=0, stdout=b"child\n0\nparent\n", stderr_tail=""),
    "files and a signal": dict(exit_code=0, stdout=b'[5, 6, 7, 8]\nusr1\n["", "", "", ""]\n', stderr_tail=""),
    "require relative": dict(exit_code=0, stdout=b'1\n"helped"\n["helper.rb"]\n'),
    "caller": dict(exit_code=0, stderr_tail=""),
    "toplevel binding": dict(exit_code=0, stdout=b"[:x]\n[:x]\n1\n"),
    "stdin": dict(exit_code=0, limit=None, stdout=STDIN),
    "data": dict(exit_code=0, stdout=b"data here\n"),
    "shebang": dict(exit_code=0, stdout=b"w\n"),
    "frozen string literal": dict(exit_code=1, stdout=b"true\n"),
    "cpu at start": dict(exit_code=0, stdout=b"true\ntrue\n"),
    "rand": dict(exit_code=0, stdout=4, stderr_tail=""),
    "hash seed": dict(exit_code=0, stdout=4, stderr_tail=""),
}
STDERR = {        # what each case's stderr must hold (beyond being the same each way)
    "exception": ["step.rb:2:in `fail_now': bad value (RuntimeError)\n\tfrom ", "step.rb:7:in `<main>'\n"],
    "name error": ["step.rb:2:in `<main>': undefined local variable or method `undefined_name' for main:Object "
                   "(NameError)\n\nundefined_name + x\n^^^^^^^^^^^^^^\n"],
    "syntax error": ["step.rb:2: syntax error, unexpected end-of-input, expecting ')'\nputs(1\n      ^\n"],
    "interrupt": ["step.rb:3:in `<main>': Interrupt (Interrupt)\n"],
    "no memory error": ["step.rb: failed to allocate memory (NoMemoryError)\n"],
    "no backtrace": ["step.rb: no trace (RuntimeError)\n"],
    "at exit status": ["step.rb:3:in `<main>': then this (RuntimeError)\n"],
    "write after close": ["in `write': closed stream (IOError)", "step.rb:3:in `<main>'\n"],
    "frozen string literal": ["step.rb:4:in `<main>': can't modify frozen String: \"abc\" (FrozenError)\n"],
    "shebang": ["step.rb:2: warning: assigned but unused variable - x\n"],
}


@pytest.mark.parametrize("cgroups", [True, False], ids=["cgroup", "rlimits"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_served_ruby_step_ends_as_a_run_of_its_own(tmp_path, use_isolation, monkeypatch, zygoted, cgroups, case):
    isolation = fork_server_isolation(use_isolation, cgroups)
    text, files = CASES[case]
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    source = tmp_path / "step.rb"
    source.write_text(text)
    entry = Program("ruby", source)
    own = run_alone(entry, isolation=isolation, limits=LIMITS, stdin=STDIN)
    expected = EXPECTED.get(case, {})
    assert {k: _verdict(own, case)[k] for k in expected} == expected, own     # (the case is what it says)
    assert all(part in own.stderr_tail for part in STDERR.get(case, [])), own.stderr_tail
    results = {}
    for setting in SETTINGS:
        zygoted.clear()
        with runner_with_zygote(isolation, monkeypatch, setting) as runner:
            # twice each: the first step starts the server, the second is built ahead by the first
            results[setting] = [run_alone(entry, ahead=True, isolation=isolation, pools=runner.pools, limits=LIMITS,
                                          stdin=STDIN) for _ in range(2)]
        assert zygoted == [False] * 2, (setting, zygoted)      # served, each a fresh interpreter
    verdicts = [_verdict(r, case) for r in (*results["on"], *results["off"])]
    assert verdicts == [_verdict(own, case)] * 4, (results, own)
    if case in PER_STEP:
        for setting in SETTINGS:
            first, second = results[setting]
            assert first.stdout.splitlines()[1:] != second.stdout.splitlines()[1:], (setting, first, second)
    if case == "names":
        assert verdicts[0]["stdout"] == (f'[true, "{source}", "{source}", [], "{tmp_path}", "{source}", [], nil, '
                                         f'"main", true]\n').encode()
    if case == "caller":
        assert verdicts[0]["stdout"] == f'["{source}:4:in `<main>\'"]\n[]\n0\n'.encode()


ENVIRONMENT = 'p ENV.to_h.sort\np File.read("/proc/self/environ").split("\\0").sort\n'


def _environments(tmp_path, isolation, monkeypatch, zygoted) -> dict[str, list[bytes]]:
    source = tmp_path / "step.rb"
    source.write_text(ENVIRONMENT)
    entry = Program("ruby", source)
    seen = {}
    for setting in SETTINGS:
        zygoted.clear()
        with runner_with_zygote(isolation, monkeypatch, setting) as runner:
            seen[setting] = [run_alone(entry, ahead=True, isolation=isolation, pools=runner.pools,
                                       limits=LIMITS).stdout for _ in range(2)]
        assert zygoted == [False] * 2
    seen["own"] = [run_alone(entry, isolation=isolation, limits=LIMITS).stdout]
    return seen


def test_a_served_ruby_steps_environment_is_that_of_a_fresh_interpreter(tmp_path, use_isolation, monkeypatch,
                                                                        zygoted):
    seen = _environments(tmp_path, fork_server_isolation(use_isolation, True), monkeypatch, zygoted)
    assert seen["on"] == seen["off"] == [seen["on"][0]] * 2
    assert seen["on"][0].count(b"\n") == 2 and b"VERIFY" not in seen["on"][0] and b"PATH" in seen["on"][0]


def test_a_served_ruby_steps_environment_is_that_of_a_run_of_its_own(tmp_path, use_isolation, monkeypatch, zygoted):
    seen = _environments(tmp_path, fork_server_isolation(use_isolation, True), monkeypatch, zygoted)
    assert seen["own"][0].count(b"\n") == 2 and b"PWD=" in seen["own"][0]      # (a run of its own has PWD)
    assert seen["on"] == seen["off"] == seen["own"] * 2
