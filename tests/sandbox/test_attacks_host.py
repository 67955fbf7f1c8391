"""A program goes for the host from inside its run, in every mode, as root and as a normal
user: host files (/etc/shadow, the judge's private files and home, another entry, the
host's /tmp, verify's source, the cache), writes outside its run (a 0777 folder outside,
the host's /tmp, the entry's own folder, the judge's files), signals (to verify, to a
process of the host, kill(-1)), privileges (capabilities, setuid, a set-user-ID-root
program and one with file capabilities, mount, chroot, unshare), /proc and /sys (other processes' environment and command line,
the judge's descriptors, root and working folder, its mount table, /sys and /proc/sys
writes, its own cgroup's limits), the descriptors verify had open, and memory held in a
memfd and on the heap at once.

Each mode's run is made by a small judge script (JUDGE, below): it plants its secrets,
starts a sleeper holding a secret in its environment and command line, keeps descriptors
open (a secret file, a pipe, a socket, all inheritable), then runs the hostile program
(tests/fixtures/hostile/host_attacks/attack.py) through `run_program`. Every secret is a
token of its own that the program is never given: a token in its output was taken from
the host. Writes and signals are judged from outside (the files planted, how the sleeper ended).
As root the script runs in each (sandbox, accounting) pair the machine offers; as a normal
user (runuser, --accounting rlimits: a user has no cgroup of its own on this host) with
bubblewrap and without.

Without bubblewrap the run shares the host's /proc (docs/security.md, "Modes"): the
command lines of the host's processes are in its view, the strict xfail below, so the day
that holds the test says so.

A control runs the same program unsandboxed as the normal user: every attack that can
work for that user works, so each assertion can fail."""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import pytest
from machine_modes import NORMAL_USER, SYSTEM_PYTHON, machine_modes, normal_user_script

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"
ATTACK = HOSTILE / "host_attacks" / "attack.py"
MEMFD_HEAP = HOSTILE / "memfd_heap" / "hog.py"

# The judge: argv kind ("attack" | "privileged" | "memory" | "unsandboxed") policy accounting shared-json.
# Prints one JSON object: what the run printed, and what the judge saw outside it after.
JUDGE = r'''
import json, os, signal, socket, subprocess, sys, tempfile, uuid
from pathlib import Path
import verify
from verify.grading.verdicts import run_verdict
from verify.runner import Limits, Program, SandboxUnavailable, cache_root, resolve_isolation, run_program
from verify.runner.process import run_command
from verify.verdict import Verdict

kind, policy, accounting, shared = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
entry = Path(shared["entry"])
if kind != "unsandboxed":
    try:
        chosen = resolve_isolation(policy, accounting)
    except SandboxUnavailable as error:
        print(json.dumps({"unavailable": str(error)}))
        sys.exit()
if kind == "memory":
    limits = Limits(wall_time=30, cpu_time=20, memory=256 << 20)
    result = run_program(Program("python", Path(shared["memfd_heap"])), limits=limits, isolation=chosen)
    verdict = run_verdict(result, limits, None, Verdict.accept)
    print(json.dumps({"isolation": result.isolation, "status": verdict.status.value, "message": verdict.message,
                      "stdout": result.stdout.decode(errors="replace")}))
    sys.exit()
if kind == "privileged":       # set-user-ID-root and file-capability programs in a folder the run sees as they are
    privileged = Path(shared["privileged"])
    argv = [json.dumps({"privileges": True, "setuid_programs": [str(privileged / "id-setuid")],
                        "capability_programs": [str(privileged / "cat-capabilities")]})]
    result = run_command(["python3", "attack.py", *argv], workdir=entry, limits=Limits(wall_time=30, cpu_time=20),
                         isolation=chosen, readonly=[privileged])
    print(json.dumps({"isolation": result.isolation, "exit": result.exit_code,
                      "stdout": result.stdout.decode(errors="replace")}))
    sys.exit()
tokens = {name: uuid.uuid4().hex for name in ("private", "cache", "descriptor", "process")}
# the judge's own files: a folder only it may enter (0700, as mkdtemp makes it)
private = Path(tempfile.mkdtemp(prefix="verify-attacks-judge-", dir="/var/tmp"))
(private / "secret.txt").write_text(tokens["private"])
held = private / "held.txt"
held.write_text(tokens["descriptor"])
cache = cache_root()
cache.mkdir(parents=True, exist_ok=True)
planted_in_cache = cache / "planted-result.txt"      # world-readable, as verify's files are
planted_in_cache.write_text(tokens["cache"])
os.chmod(planted_in_cache, 0o644)
sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", tokens["process"]],
                           env={"VERIFY_ATTACK_SECRET": tokens["process"]}, start_new_session=True)
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
descriptors = [os.open(held, os.O_RDONLY), *os.pipe(), listener.fileno()]
for fd in descriptors:
    os.set_inheritable(fd, True)
mark = f"{kind}-{policy}-{accounting}-{os.getuid()}-{uuid.uuid4().hex[:8]}"
writes = {"outside": Path(shared["outside"]) / mark, "host-tmp": Path(shared["host_tmp_writable"]) / mark,
          "entry-folder": entry / mark, "judge-private": private / mark}
targets = {
    "read": {"shadow": "/etc/shadow", "judge-private": str(private / "secret.txt"),
             "other-entry": shared["other_entry_file"], "host-tmp": shared["host_tmp_file"],
             "verify-source": verify.__file__, "cache": str(planted_in_cache)},
    "list": {"judge-private": str(private), "judge-home": os.path.expanduser("~"), "other-entry": shared["other_entry"],
             "host-tmp": shared["host_tmp"], "cache": str(cache)},
    "write": {name: str(path) for name, path in writes.items()},
    "proc": {"judge": os.getpid(), "judge_fds": descriptors[:1], "secret": str(held)},   # (a pipe would block)
    "rewrite": ["/sys/kernel/mm/transparent_hugepage/enabled", "/proc/sys/kernel/domainname",
                "/proc/sys/vm/overcommit_memory"],
    "own_cgroup": True, "descriptors": True, "privileges": True, "setuid_programs": ["./id-setuid"],
    "capability_programs": ["./cat-capabilities"],
    "signal": {"host-sleeper": sleeper.pid, "judge": os.getpid()}, "kill_all": kind != "unsandboxed",
}
argv = [json.dumps(targets)]
try:
    if kind == "unsandboxed":
        done = subprocess.run(["python3", "attack.py", *argv], cwd=entry, capture_output=True, timeout=60,
                              pass_fds=descriptors)
        found = {"isolation": "unsandboxed", "exit": done.returncode, "stdout": done.stdout.decode(errors="replace")}
    else:
        result = run_program(Program("python", entry / "attack.py"), args=argv, isolation=chosen,
                             limits=Limits(wall_time=30, cpu_time=20, memory=256 << 20))
        found = {"isolation": result.isolation, "exit": result.exit_code, "stdout": result.stdout.decode(errors="replace"),
                 "stderr": result.stderr_tail}
    # SIGTERM now: a SIGKILL the program sent has already decided how the sleeper ends
    sleeper.terminate()
    found.update(tokens=tokens, sleeper_killed=sleeper.wait() == -signal.SIGKILL,
                 planted=sorted(name for name, path in writes.items() if os.path.lexists(path)))
finally:
    sleeper.kill()
    sleeper.wait()
    for path in writes.values():
        if os.path.lexists(path):
            os.unlink(path)
    for path in (planted_in_cache, held, private / "secret.txt"):
        path.unlink()
    private.rmdir()
print(json.dumps(found))
'''


@dataclass(frozen=True)
class Mode:
    policy: str        # bwrap | none
    accounting: str    # cgroup | rlimits
    user: str          # root | user (the normal user NORMAL_USER)

    @property
    def id(self) -> str:
        return f"{self.policy}-{self.accounting}-{'as-a-user' if self.user == 'user' else 'root'}"


ROOT_MODES = [Mode(policy, "cgroup" if cgroups else "rlimits", "root") for policy, cgroups in machine_modes()]
USER_MODES = [Mode(policy, "rlimits", "user") for policy in (["bwrap", "none"] if shutil.which("bwrap") else ["none"])]
MODES = ROOT_MODES + USER_MODES


def modes(*, policy: str | None = None, xfail: dict[str, str] | None = None) -> list:
    """The modes (of `policy` only, if given) as parameters; those whose policy is a key of
    `xfail` are expected to fail, strictly, for that reason."""
    chosen = [mode for mode in MODES if policy is None or mode.policy == policy]
    return [pytest.param(mode, id=mode.id, marks=[pytest.mark.xfail(strict=True, reason=xfail[mode.policy])]
                         if xfail and mode.policy in xfail else []) for mode in chosen]


FILE_CAPABILITIES = "cap_dac_read_search,cap_setuid,cap_kill,cap_sys_admin+eip"


@dataclass
class Host:
    """What the host holds outside every run: another entry's world-readable files, files
    in the host's /tmp, folders anyone may write (0777: permissions are not what stops a
    run), the entry folder (0777 too, with a set-user-ID-root copy of id(1)), a root
    cache folder open to all (as a cache in a 0755 home is); and each mode's outcome."""
    base: Path
    tokens: dict[str, str] = field(default_factory=lambda: {name: uuid.uuid4().hex for name in ("other", "tmp")})
    outcomes: dict[tuple[str, Mode], dict] = field(default_factory=dict)

    def make(self) -> None:
        self.other_entry.mkdir()
        (self.other_entry / "answers.txt").write_text(self.tokens["other"])
        self.host_tmp.mkdir()
        (self.host_tmp / "secret.txt").write_text(self.tokens["tmp"])
        for folder in (self.outside, self.host_tmp_writable, self.entry):
            folder.mkdir()
            os.chmod(folder, 0o777)
        shutil.copy(ATTACK, self.entry / "attack.py")
        shutil.copy(MEMFD_HEAP, self.entry / "memfd_heap.py")
        self.privileged.mkdir()
        for folder in (self.entry, self.privileged):
            shutil.copy("/usr/bin/id", folder / "id-setuid")
            os.chmod(folder / "id-setuid", 0o4755)
            shutil.copy("/usr/bin/cat", folder / "cat-capabilities")
            subprocess.run(["setcap", FILE_CAPABILITIES, str(folder / "cat-capabilities")], check=True,
                           capture_output=True)
        self.cache.mkdir()
        for path in (self.base, self.other_entry, self.host_tmp, self.cache, self.privileged):
            os.chmod(path, 0o755)
        for path in (self.entry / "attack.py", self.entry / "memfd_heap.py"):
            os.chmod(path, 0o644)

    @property
    def other_entry(self) -> Path:
        return self.base / "other-entry"

    @property
    def outside(self) -> Path:
        return self.base / "outside"

    @property
    def entry(self) -> Path:
        return self.base / "entry"

    @property
    def privileged(self) -> Path:
        return self.base / "privileged"

    @property
    def cache(self) -> Path:
        return self.base / "cache"

    @property
    def host_tmp(self) -> Path:
        return self.tmp_base / "secret"

    @property
    def host_tmp_writable(self) -> Path:
        return self.tmp_base / "writable"

    @property
    def tmp_base(self) -> Path:
        return Path("/tmp") / f"{self.base.name}-tmp"

    def shared(self) -> str:
        return json.dumps({"entry": str(self.entry), "outside": str(self.outside), "other_entry": str(self.other_entry),
                           "other_entry_file": str(self.other_entry / "answers.txt"),
                           "host_tmp": str(self.host_tmp), "host_tmp_file": str(self.host_tmp / "secret.txt"),
                           "host_tmp_writable": str(self.host_tmp_writable),
                           "memfd_heap": str(self.entry / "memfd_heap.py"), "privileged": str(self.privileged)})


@pytest.fixture(scope="module")
def host():
    if os.geteuid() != 0:
        pytest.skip("needs root: the test plants set-user-ID and other users' files, and runs a normal user")
    if shutil.which("setcap") is None:
        pytest.skip("needs setcap (libcap2-bin): the test plants a program with file capabilities")
    base = Path(tempfile.mkdtemp(prefix="verify-attacks-", dir="/var/tmp"))
    made = Host(base)
    made.tmp_base.mkdir(mode=0o755)
    os.chmod(made.tmp_base, 0o755)
    try:
        made.make()
        yield made
    finally:
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(made.tmp_base, ignore_errors=True)


@pytest.fixture(scope="module")
def normal_user():
    with normal_user_script(JUDGE, "verify-attacks-user-") as made:
        yield made


def outcome(request, host: Host, mode: Mode, kind: str = "attack") -> dict:
    """The judge script's report of `kind` in `mode`, run once per module."""
    key = (kind, mode)
    if key not in host.outcomes:
        argv = [kind, mode.policy, mode.accounting, host.shared()]
        if mode.user == "user":
            script, cache = request.getfixturevalue("normal_user")
            command = ["runuser", "-u", NORMAL_USER, "--", "env", f"PYTHONPATH={ROOT}", f"VERIFY_CACHE={cache}",
                       f"HOME={cache}", SYSTEM_PYTHON, str(script), *argv]
        else:
            script = host.base / "judge.py"
            script.write_text(JUDGE)
            command = [sys.executable, str(script), *argv]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "VERIFY_CACHE": str(host.cache)}
        if mode.user == "root":
            temp_root = Path(tempfile.mkdtemp(prefix="verify-tmp-", dir=host.base))
            os.chmod(temp_root, 0o755)         # (the run's own uid must get through)
            env["VERIFY_TMPDIR"] = str(temp_root)
        env.pop("VERIFY_SANDBOX", None)
        env.pop("VERIFY_ACCOUNTING", None)
        done = subprocess.run(command, capture_output=True, text=True, cwd="/", timeout=300, env=env)
        assert done.returncode == 0, done.stderr
        host.outcomes[key] = json.loads(done.stdout)
    found = host.outcomes[key]
    if "unavailable" in found:
        pytest.skip(f"--sandbox {mode.policy} --accounting {mode.accounting} ({mode.user}): {found['unavailable']}")
    return found


def attempts(found: dict) -> dict[str, str]:
    """What the program printed: attempt -> its outcome ("denied ENOENT", "DONE ...")."""
    return dict(line.split(" ", 1) for line in found["stdout"].splitlines() if " " in line)


def denied(found: dict, *names: str) -> dict[str, str]:
    """The attempts among `names` that were not denied (empty: every one held)."""
    seen = attempts(found)
    assert set(names) <= set(seen), (sorted(set(names) - set(seen)), found)
    return {name: seen[name][:200] for name in names if not seen[name].startswith("denied")}


def leaked(found: dict, *secrets: str) -> list[str]:
    return [name for name in secrets if found["tokens"][name] in found["stdout"]]


def host_leaked(host: Host, found: dict, *secrets: str) -> list[str]:
    return [name for name in secrets if host.tokens[name] in found["stdout"]]


# -- host files -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", modes())
def test_no_host_file_is_in_view(request, host, mode):
    """/etc/shadow, the judge's private folder (0700) and its home, another entry, the
    host's /tmp, verify's source, the cache: neither read nor listed. The one folder of the
    cache a run may see is verify-init's own (under bubblewrap, read-only)."""
    found = outcome(request, host, mode)
    assert denied(found, "read:shadow", "read:judge-private", "read:other-entry", "read:host-tmp",
                  "read:verify-source", "read:cache", "list:judge-private", "list:other-entry",
                  "list:host-tmp") == {}
    assert leaked(found, "private", "cache") == [] and host_leaked(host, found, "other", "tmp") == []
    for folder in ("list:cache", "list:judge-home"):       # at most the way to verify-init's folder
        listing = attempts(found)[folder]
        assert listing.startswith("denied") or set(ast.literal_eval(listing.removeprefix("DONE "))) <= \
            {".cache", "init"}, (folder, listing)


# -- writes -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", modes())
def test_no_write_reaches_outside_the_run(request, host, mode):
    """A 0777 folder outside, one in the host's /tmp, the entry's own folder (0777), the
    judge's private folder: nothing is planted in any (the run may write its own copy)."""
    found = outcome(request, host, mode)
    assert found["planted"] == [], found
    refused = ["write:outside", "write:host-tmp", "write:judge-private"]
    assert denied(found, *refused, *(["write:entry-folder"] if mode.policy == "none" else [])) == {}


# -- signals ----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", modes())
def test_no_signal_reaches_verify_or_the_host(request, host, mode):
    """SIGKILL to a process of the judge's, signal 0 to verify, then kill(-1): verify (the
    judge script, which reports after) and the sleeper live on."""
    found = outcome(request, host, mode)
    assert denied(found, "signal:host-sleeper", "signal:judge") == {}
    assert not found["sleeper_killed"], found


# -- privileges -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", modes())
def test_the_program_has_no_privilege(request, host, mode):
    """No capability and no way to one: setuid and the rest refused, and a set-user-ID-root
    program and one with file capabilities run without either, brought in the entry
    folder or in a folder the run sees unchanged (bubblewrap mounts it nosuid; without it
    no_new_privs is what holds)."""
    found = outcome(request, host, mode)
    privileged = outcome(request, host, mode, kind="privileged")
    found = {**found, "stdout": found["stdout"] + privileged["stdout"]}
    status = dict(item.split("=", 1) for item in attempts(found)["status"].split())
    assert (status["CapInh"], status["CapPrm"], status["CapEff"], status["CapAmb"]) == ("0" * 16,) * 4, status
    assert status["NoNewPrivs"] == "1", status
    assert "0" not in status["Uid"].split(",") + status["Gid"].split(",") + status["Groups"].split(","), status
    assert denied(found, "setuid", "setgid", "setgroups", "mount", "umount", "chroot",
                  "unshare:user", "unshare:mount", "unshare:network", "unshare:pid") == {}
    for program in ("./id-setuid", f"{host.privileged}/id-setuid"):
        owner, setuid, euid = ran(found, f"exec-setuid:{program}")
        assert euid not in ("0", ""), (program, euid)                     # it ran, as the run's uid
    # the one of a folder the run sees as it is: set-user-ID, owned by root (shown as the
    # overflow uid 65534 inside a user namespace that does not map root)
    assert setuid and owner in (0, 65534), (owner, setuid)
    for program in ("./cat-capabilities", f"{host.privileged}/cat-capabilities"):
        marked, capabilities = ran(found, f"exec-capabilities:{program}")
        assert capabilities == ["0" * 16], (program, capabilities)        # it ran, with none of them
    assert marked


def ran(found: dict, attempt: str):
    """What a privileged program the run executed reported (it must have run)."""
    outcome = attempts(found)[attempt]
    assert outcome.startswith("DONE "), (attempt, outcome)
    return ast.literal_eval(outcome.removeprefix("DONE "))


# -- /proc and /sys ---------------------------------------------------------------------

@pytest.mark.parametrize("mode", modes())
def test_proc_gives_nothing_of_the_judge_or_the_host(request, host, mode):
    """Other processes' environment; verify's environment, descriptors, root and working
    folder through /proc/PID; /sys and /proc/sys writes; raising its own cgroup's limits."""
    found = outcome(request, host, mode)
    assert found["tokens"]["process"] not in attempts(found)["proc:environ"]
    assert denied(found, "proc:judge-environ", "proc:judge-fds", "proc:judge-root", "proc:judge-cwd") == {}
    assert leaked(found, "descriptor") == []
    rewrites = [name for name in attempts(found) if name.startswith(("rewrite:", "own-cgroup:"))]
    assert len(rewrites) >= 4 and denied(found, *rewrites) == {}


SAME_UID_PROC = "without bubblewrap a normal user's run has the judge's uid and the host's /proc: every command line is readable"
OLD_KERNEL_PROC = "before Linux 5.8 a /proc of verify-init's own would share the host's options: the host's /proc stays"


def _proc_of_its_own(mode: Mode) -> bool:
    """Whether the run gets a /proc that hides other uids (without bubblewrap: as root, and from Linux 5.8)."""
    release = tuple(int(part) for part in re.findall(r"\d+", os.uname().release)[:2])
    return mode.policy == "bwrap" or (mode.user == "root" and release >= (5, 8))


@pytest.mark.parametrize("mode", [pytest.param(mode, id=mode.id, marks=[] if _proc_of_its_own(mode) else [
    pytest.mark.xfail(strict=True, reason=SAME_UID_PROC if mode.user == "user" else OLD_KERNEL_PROC)])
    for mode in MODES])
def test_other_processes_command_lines_are_out_of_sight(request, host, mode):
    found = outcome(request, host, mode)
    assert found["tokens"]["process"] not in found["stdout"]


FRESH = {"tmpfs", "proc", "devpts", "mqueue"}
DEVICES = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
SYSTEM = {"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}


@pytest.mark.parametrize("mode", modes(policy="bwrap"))
def test_the_mount_table_names_only_the_system_and_the_run(request, host, mode):
    """Under bubblewrap /proc/self/mountinfo holds the read-only system folders, verify-init's
    own folder (read-only) and the run's fresh file systems: no other host path."""
    found = outcome(request, host, mode)
    table = attempts(found)["proc:mountinfo"]
    assert table.startswith("DONE "), table
    lines = ast.literal_eval(table.removeprefix("DONE ")).decode().splitlines()
    assert len(lines) >= 5, lines
    for line in lines:
        fields = line.split()
        source_root, mount_point, options = fields[3], fields[4], fields[5].split(",")
        kind = fields[fields.index("-") + 1]
        if kind in FRESH:
            continue
        if kind == "devtmpfs":               # the device nodes bubblewrap binds one by one
            assert mount_point in DEVICES and source_root == mount_point.removeprefix("/dev"), line
            continue
        system = source_root == mount_point and source_root in SYSTEM
        helper = source_root == mount_point and re.search("/init/[0-9a-f]+$", source_root)
        assert (system or helper) and "ro" in options, line


# -- descriptors ------------------------------------------------------------------------

@pytest.mark.parametrize("mode", modes())
def test_no_descriptor_of_verify_reaches_the_program(request, host, mode):
    """verify holds a secret file, a pipe and a listening socket open, all inheritable:
    the program has 0, 1 and 2 and nothing else."""
    found = outcome(request, host, mode)
    assert attempts(found)["descriptors"] == "denied []", found["stdout"]
    assert leaked(found, "descriptor") == []


# -- memory -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", modes())
def test_memory_in_a_memfd_and_on_the_heap_is_counted_together(request, host, mode):
    """128 MiB in a memfd and 192 MiB of heap under a 256 MiB limit: with a cgroup a memory
    limit; without one memfd is refused, and the heap alone fits."""
    found = outcome(request, host, mode, kind="memory")
    assert "both held" not in found["stdout"], found
    if mode.accounting == "cgroup":
        assert found["status"] == "memory limit", found
    else:
        assert found["stdout"].startswith("memfd refused\n"), found


# -- the control ------------------------------------------------------------------------

def test_unsandboxed_every_attack_the_user_may_make_works(request, host):
    """The same program run by the normal user with nothing around it: it reads the judge's
    and the host's files, plants its files, kills the sleeper, reads its environment, gets
    the descriptors and runs the set-user-ID program as root. So the tests above can fail."""
    found = outcome(request, host, Mode("none", "rlimits", "user"), kind="unsandboxed")
    assert leaked(found, "private", "cache", "process", "descriptor") == ["private", "cache", "process", "descriptor"]
    assert host_leaked(host, found, "other", "tmp") == ["other", "tmp"]
    assert found["planted"] == ["entry-folder", "host-tmp", "judge-private", "outside"], found
    assert found["sleeper_killed"]
    seen = attempts(found)
    assert ran(found, "exec-setuid:./id-setuid") == (0, True, "0"), seen
    marked, capabilities = ran(found, "exec-capabilities:./cat-capabilities")
    assert marked and capabilities != ["0" * 16], seen
    assert seen["descriptors"].startswith("DONE"), seen
    assert seen["proc:judge-environ"].startswith("DONE") and seen["proc:judge-fds"].startswith("DONE"), seen


# -- what an entry names itself and prints, in every report and the site ----------------

def verify_command(*args: str | Path, cache: Path, env: dict[str, str] | None = None,
                   measure: bool = False) -> subprocess.CompletedProcess:
    """The command line, from this tree's code, with its own cache; measure: stderr ends
    with the command's own peak memory ("maxrss KiB")."""
    code = "from verify.cli import run; run()"
    if measure:
        code = ("import resource, sys\ntry:\n    from verify.cli import run\n    run()\nfinally:\n"
                "    sys.stderr.write('maxrss %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, timeout=300, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "VERIFY_CACHE": str(cache), **(env or {})})


def peak_kib(done: subprocess.CompletedProcess) -> int:
    return int(done.stderr.decode().rsplit("maxrss ", 1)[1])


# what a terminal must never receive raw (the newline and tab are a report's own)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]")
HOSTILE_FOLDERS = {      # folder name -> (entry.toml, source): a printer to stdout, one to stderr
    "out\x1b]0;title\x07<b>|`x`": (
        'name = "named\\u001b[31m<script>alert(1)</script>|`n`[l](http://e)&amp;"\n',
        'import sys\nsys.stdout.write("</script>\\n\\x1b[2J<img src=x onerror=alert(3)>|`y`]]>\\x00\\u202e\\n")\n'),
    "err\x1b[2J<i>|`e`": (
        "", 'import sys\nsys.stderr.write("\\x1b[31m<script>alert(4)</script>|`z`]]>\\x07 **b** [l](http://e)\\n")\n'
            "sys.exit(1)\n"),
}
MARKUP = ("<script>alert", "</script>|", "<img src=x", "<b>|", "<i>|", "\x1b", "\x07")   # each as injected
UNESCAPED_MARKUP = re.compile(r"(?<!\\)[<>`]")        # in Markdown: a backslash before each


@pytest.fixture
def hostile_printers(tmp_path) -> Path:
    """submissions/desert/: two entries whose folder names, name and output are hostile,
    and a passing one (so that the leaderboard has a board)."""
    folder = tmp_path / "submissions" / "desert"
    shutil.copytree(ROOT / "submissions" / "desert" / "python-golf", folder / "python-golf")
    for name, (toml, source) in HOSTILE_FOLDERS.items():
        (folder / name).mkdir()
        (folder / name / "entry.toml").write_text(toml + 'contest = "desert"\nlanguage = "python"\nsource = "p.py"\n')
        (folder / name / "p.py").write_text(source)
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(ROOT / "testcases" / "desert" / "spec-example.txt", cases)
    return tmp_path


def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def test_hostile_names_stdout_and_stderr_are_escaped_in_every_report(hostile_printers):
    """ANSI and control characters, HTML, Markdown and XML in folder names, in the name an
    entry gives itself, on its stdout and on its stderr: `verify check` as a table, as
    Markdown (every row keeps its cells), as JUnit (valid XML) and as JSON (exact)."""
    folders = sorted((hostile_printers / "submissions" / "desert").iterdir())
    common = [*folders, "--testcases", hostile_printers / "cases"]
    cache = hostile_printers / "cache"
    reports = {}
    for form in ("table", "markdown", "junit", "json"):
        done = verify_command("check", *common, "--format", form, cache=cache)
        assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
        reports[form] = done.stdout.decode("utf-8")
        assert not RAW_CONTROL.search(reports[form]), (form, reports[form])
    assert "desert/out\\x1b]0;title\\x07<b>|`x`" in reports["table"]
    assert "\\x1b[31m<script>alert(4)</script>" in reports["table"]            # shown, not acted on
    rows = [line for line in reports["markdown"].splitlines() if line.startswith("|")]
    assert len(rows) == 2 + 4 and all(unescaped_pipes(row) == 7 for row in rows), rows   # (python-golf: 2 cases)
    assert not UNESCAPED_MARKUP.search(reports["markdown"]), reports["markdown"]
    root = ElementTree.fromstring(reports["junit"])
    names = [suite.get("name") for suite in root.iter("testsuite")]
    assert "desert/out\\x1b]0;title\\x07<b>|`x`" in names, names
    messages = " ".join(failure.get("message", "") for failure in root.iter("failure"))
    assert "<script>alert(4)</script>|`z`]]>\\x07" in messages, messages
    entries = {entry["entry"] for entry in json.loads(reports["json"])["entries"]}
    assert entries == {f"desert/{folder.name}" for folder in folders}


def test_hostile_names_stdout_and_stderr_are_escaped_in_the_site(hostile_printers):
    """`verify rank --html`: every page (the boards, each entry's, each replay) holds none of
    the markup or control characters raw; the replay data embedded in a page holds no `<`."""
    site = hostile_printers / "site"
    done = verify_command("rank", "desert", "--submissions", hostile_printers / "submissions", "--testcases",
                          hostile_printers / "cases", "--format", "markdown", "--html", site,
                          cache=hostile_printers / "cache")
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    board = done.stdout.decode()
    assert not RAW_CONTROL.search(board) and not UNESCAPED_MARKUP.search(board), board
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= 1 + 3 + 3, pages                       # the board, 3 entries, their replays
    shown = "".join(page.read_text() for page in pages)
    assert "named\\x1b[31m&lt;script&gt;alert(1)&lt;/script&gt;" in shown        # the name, escaped
    for page in pages:
        text = page.read_text()
        assert not RAW_CONTROL.search(text), page
        assert not any(mark in text for mark in MARKUP), (page, [mark for mark in MARKUP if mark in text])
        for data in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S):
            assert "<" not in data and json.loads(data) is not None, page


# -- the judge's inputs: hundreds of MB, bounded in memory --------------------------------

def bare_entry(root: Path, name: str, source: str) -> Path:
    folder = root / "desert" / name
    folder.mkdir(parents=True)
    (folder / "entry.toml").write_text('contest = "desert"\nlanguage = "python"\nsource = "p.py"\n')
    (folder / "p.py").write_text(source)
    return folder


FLOOD = 'import sys\nblock = b" \\n" * (1 << 15)\nfor _ in range({}):\n    sys.stdout.buffer.write(block)\n'


def test_an_output_of_200_mib_is_judged_in_bounded_memory(tmp_path):
    """An entry prints 200 MiB (whitespace: read to the end, never accepted): verify judges
    it in the memory an empty output takes, plus a little."""
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(ROOT / "testcases" / "desert" / "spec-example.txt", cases)
    peaks = {}
    for name, blocks in (("tiny", 1), ("flood", 200 * 16)):       # 64 KiB blocks
        folder = bare_entry(tmp_path, name, FLOOD.format(blocks))
        done = verify_command("check", folder, "--testcases", cases, "--time", "600", cache=tmp_path / "cache",
                              measure=True)                # (memory is what this is about, not time)
        assert done.returncode == 1, done.stderr
        assert "the output ends with no winning attempt" in done.stdout.decode(), done.stdout
        peaks[name] = peak_kib(done)
    assert peaks["flood"] - peaks["tiny"] < 16 << 10, peaks


def sparse(path: Path, size: int) -> Path:
    with path.open("ab") as grown:
        grown.truncate(size)                 # big in size, not on disk
    return path


def test_a_case_file_of_200_mib_is_one_line_in_bounded_memory(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(ROOT / "testcases" / "desert" / "spec-example.txt", cases)
    folder = bare_entry(tmp_path, "plain", FLOOD.format(1))
    baseline = verify_command("check", folder, "--testcases", cases, cache=tmp_path / "cache", measure=True)
    huge = sparse(cases / "huge.txt", 200 << 20)
    done = verify_command("check", folder, "--testcases", cases, cache=tmp_path / "cache", measure=True)
    lines = done.stderr.decode().splitlines()[:-1]          # (the last: the peak memory)
    assert done.returncode == 2 and lines == [
        f"verify: error: {huge}: the map is larger than 1 MiB (the most a map may hold)"], done.stderr
    assert peak_kib(done) - peak_kib(baseline) < 16 << 10


def test_an_entry_toml_of_200_mib_is_one_line_in_bounded_memory(tmp_path):
    cases = tmp_path / "cases"
    cases.mkdir()
    shutil.copy(ROOT / "testcases" / "desert" / "spec-example.txt", cases)
    plain = bare_entry(tmp_path, "plain", FLOOD.format(1))
    baseline = verify_command("check", plain, "--testcases", cases, cache=tmp_path / "cache", measure=True)
    huge = bare_entry(tmp_path, "huge", FLOOD.format(1))
    sparse(huge / "entry.toml", 200 << 20)
    done = verify_command("check", huge, "--testcases", cases, cache=tmp_path / "cache", measure=True)
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
    assert "desert/huge: the entry folder holds more than 16 MiB" in done.stdout.decode(), done.stdout
    assert peak_kib(done) - peak_kib(baseline) < 16 << 10
