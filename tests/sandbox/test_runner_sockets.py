"""No socket of a run reaches outside the run, in every mode, as root and as a normal user.

The test opens listeners outside the run: UDP and TCP on 127.0.0.1, a pathname stream
socket and a pathname datagram socket (mode 0777, in a folder 0777: permissions are not
what stops the run), an abstract stream socket. The hostile program
(tests/fixtures/hostile/sockets/reach_out.py) sends a token to each, by every way of
addressing a datagram, and binds a socket file beside them. After the run, the test reads
what arrived: a run's messages are in the listeners' queues once it has ended, so the
check waits for nothing. It judges by that and by the bound file, never by the program's
output (printed for the log), except for the one allowed thing the program checks itself:
a stream socketpair between two of its own processes still works.

A control runs the same program unsandboxed: every listener hears it, so the test can fail.

As root the folder is outside /tmp (in /var/tmp) and in /tmp, and visible to the run in
every mode; as a normal user (the user
verify-test, through runuser, with --accounting rlimits: a user has no cgroup on this
host) in /tmp, where the judge's own daemons keep theirs."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from machine_modes import NORMAL_USER, SYSTEM_PYTHON, machine_modes, mode_id, normal_user_script

from verify.runner import Limits, SandboxUnavailable, isolation
from verify.runner.process import run_command
from verify.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parents[1] / "fixtures" / "hostile" / "sockets" / "reach_out.py"
USER = NORMAL_USER

REACH_OUT = {"udp-127.0.0.1", "tcp-127.0.0.1", "unix-stream-path", "unix-stream-abstract", "unix-dgram-path",
             "unix-raw-path", "unix-dgram-socketpair-sendto", "unix-dgram-socketpair-sendmsg", "unix-bind-path"}


@dataclass
class Outside:
    """Listeners outside the run, each keeping what it was sent."""
    folder: Path
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    sockets: dict[str, socket.socket] = field(default_factory=dict)

    def open(self) -> None:
        udp = self._add("udp", socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
        udp.bind(("127.0.0.1", 0))
        tcp = self._add("tcp", socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(16)
        stream = self._add("stream", socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
        stream.bind(str(self.stream_path))
        stream.listen(16)
        dgram = self._add("dgram", socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
        dgram.bind(str(self.dgram_path))
        abstract = self._add("abstract", socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
        abstract.bind("\0" + self.abstract_name)
        abstract.listen(16)
        for path in (self.stream_path, self.dgram_path):
            os.chmod(path, 0o777)

    def _add(self, name: str, sock: socket.socket) -> socket.socket:
        self.sockets[name] = sock
        return sock

    @property
    def stream_path(self) -> Path:
        return self.folder / "stream.sock"

    @property
    def dgram_path(self) -> Path:
        return self.folder / "dgram.sock"

    @property
    def bind_path(self) -> Path:
        return self.folder / "bound-by-the-run.sock"

    @property
    def abstract_name(self) -> str:
        return f"verify-test-{self.token[:12]}"

    def argv(self) -> list[str]:
        return [self.token, str(self.sockets["udp"].getsockname()[1]), str(self.sockets["tcp"].getsockname()[1]),
                str(self.stream_path), str(self.dgram_path), self.abstract_name, str(self.bind_path)]

    def reached(self) -> set[str]:
        """The attempts whose message arrived (named in the message), and the bound file."""
        messages: list[bytes] = []
        for name in ("udp", "dgram"):
            messages += _datagrams(self.sockets[name])
        for name in ("tcp", "stream", "abstract"):
            messages += _streams(self.sockets[name])
        found = {text.split(" ", 1)[1] for text in (m.decode(errors="replace") for m in messages)
                 if text.startswith(self.token + " ")}
        if os.path.lexists(self.bind_path):
            found.add("unix-bind-path")
        return found

    def close(self) -> None:
        for sock in self.sockets.values():
            sock.close()


def _datagrams(sock: socket.socket) -> list[bytes]:
    found = []
    sock.setblocking(False)
    while True:
        try:
            found.append(sock.recv(4096))
        except BlockingIOError:
            return found


def _streams(listener: socket.socket) -> list[bytes]:
    """What every connection queued on `listener` sent (a connection whose sender has ended
    holds all its data and then its end)."""
    found = []
    listener.setblocking(False)
    while True:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return found
        with connection:
            connection.setblocking(False)
            data = b""
            try:
                while chunk := connection.recv(4096):
                    data += chunk
            except BlockingIOError:
                pass
            found.append(data)


@pytest.fixture
def outside(request) -> Iterator[Outside]:
    base = Path(tempfile.mkdtemp(prefix="verify-sockets-", dir=getattr(request, "param", "/tmp")))
    os.chmod(base, 0o777)
    listeners = Outside(base)
    listeners.open()
    yield listeners
    listeners.close()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def entry_folder() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(prefix="verify-sockets-entry-"))
    os.chmod(base, 0o755)
    shutil.copy(FIXTURE, base / "reach_out.py")
    os.chmod(base / "reach_out.py", 0o644)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def attempts(stdout: str) -> dict[str, str]:
    return dict(line.split(" ", 1) for line in stdout.splitlines() if " " in line)


def test_unsandboxed_the_program_reaches_every_listener(outside, entry_folder):
    """The control: the listeners hear every attempt when nothing stops it."""
    done = subprocess.run([SYSTEM_PYTHON, "reach_out.py", *outside.argv()], cwd=entry_folder,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert outside.reached() == REACH_OUT, done.stdout
    assert attempts(done.stdout)["socketpair-stream"] == "ok"


@pytest.mark.parametrize("outside", ["/var/tmp", "/tmp"], indirect=True)
@pytest.mark.parametrize("mode", machine_modes(), ids=mode_id)
def test_no_socket_of_a_run_reaches_outside(outside, entry_folder, use_isolation, mode):
    chosen = use_isolation(*mode)
    # the listeners' folder is made visible (read-only) in every mode: under bubblewrap a
    # pathname socket is reached across the network namespace, a read-only mount or not
    result = run_command(["python3", "reach_out.py", *outside.argv()], workdir=entry_folder,
                         limits=Limits(wall_time=60), isolation=chosen, readonly=[outside.folder])
    stdout = result.stdout.decode(errors="replace")
    print(result.isolation, stdout, sep="\n")
    assert result.exit_code == 0, result
    assert outside.reached() == set(), stdout
    assert attempts(stdout)["socketpair-stream"] == "ok", stdout


@pytest.mark.parametrize("mode", [m for m in machine_modes() if m[0] == "none"], ids=mode_id)
def test_without_landlock_the_filter_alone_keeps_them_in(outside, entry_folder, use_isolation, mode):
    """A kernel without Landlock (or before ABI 4 and 6: no TCP rule, no abstract-socket
    scope): the seccomp filter alone refuses every socket that reaches out."""
    chosen = dataclasses.replace(use_isolation(*mode), landlock_abi=0)
    result = run_command(["python3", "reach_out.py", *outside.argv()], workdir=entry_folder,
                         limits=Limits(wall_time=60), isolation=chosen, readonly=[outside.folder])
    stdout = result.stdout.decode(errors="replace")
    print(result.isolation, stdout, sep="\n")
    assert "landlock" not in result.isolation and result.exit_code == 0, result
    assert outside.reached() == set(), stdout
    assert attempts(stdout)["socketpair-stream"] == "ok", stdout


# -- as a normal user ---------------------------------------------------------------------

AS_USER = '''\
import dataclasses, json, sys
from pathlib import Path
from verify.runner import Limits, SandboxUnavailable, resolve_isolation
from verify.runner.process import run_command
policy, landlock, folder, *argv = sys.argv[1:]
try:
    chosen = resolve_isolation(policy, "rlimits")
except SandboxUnavailable as error:
    print(json.dumps({"unavailable": str(error)}))
    sys.exit()
if landlock == "without":
    chosen = dataclasses.replace(chosen, landlock_abi=0)
result = run_command(["python3", "reach_out.py", *argv], workdir=Path(folder), limits=Limits(wall_time=60),
                     isolation=chosen)
print(json.dumps({"isolation": result.isolation, "exit": result.exit_code,
                  "stdout": result.stdout.decode(errors="replace"), "stderr": result.stderr_tail}))
'''


@pytest.fixture(scope="module")
def normal_user() -> Iterator[tuple[Path, Path]]:
    with normal_user_script(AS_USER, "verify-sockets-user-") as made:
        yield made


@pytest.mark.parametrize("policy, landlock", [("none", "with"), ("none", "without"), ("bwrap", "with")])
def test_no_socket_of_a_normal_users_run_reaches_outside(outside, entry_folder, normal_user, policy, landlock):
    script, cache = normal_user
    done = subprocess.run(["runuser", "-u", USER, "--", "env", f"PYTHONPATH={ROOT}", f"VERIFY_CACHE={cache}",
                           f"HOME={cache}", SYSTEM_PYTHON, str(script), policy, landlock, str(entry_folder),
                           *outside.argv()],
                          capture_output=True, text=True, cwd="/", timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    if "unavailable" in found:
        pytest.skip(f"--sandbox {policy} as {USER}: {found['unavailable']}")
    print(found["isolation"], found["stdout"], sep="\n")
    assert found["exit"] == 0, found
    assert landlock == "with" or "landlock" not in found["isolation"], found
    assert outside.reached() == set(), found["stdout"]
    assert attempts(found["stdout"])["socketpair-stream"] == "ok", found


# -- without the filter -------------------------------------------------------------------

@pytest.mark.parametrize("missing", ["VERIFY_SECCOMP=off", "libseccomp cannot be loaded"])
def test_without_the_filter_the_mode_without_bubblewrap_is_refused(monkeypatch, missing):
    """Only seccomp keeps the sockets of a run without bubblewrap inside it: no filter, no such run."""
    settings = Settings.from_environment({"VERIFY_SANDBOX": "none", "VERIFY_ACCOUNTING": "rlimits"})
    if missing == "VERIFY_SECCOMP=off":
        settings = Settings.from_environment({**settings.environment, "VERIFY_SECCOMP": "off"})
    else:
        monkeypatch.setattr(isolation.seccomp, "_binding", lambda: None)
    with pytest.raises(SandboxUnavailable) as refused:
        isolation.from_settings(settings)
    message = str(refused.value)
    assert "\n" not in message and message.startswith("--sandbox none needs the seccomp filter"), message
    assert "fix: " in message
    if shutil.which("bwrap"):                   # bubblewrap's network namespace holds without it
        assert "seccomp" not in isolation.from_settings(dataclasses.replace(settings, sandbox="bwrap")).name


def test_without_the_filter_verify_exits_2_with_one_line(tmp_path):
    verify = shutil.which("verify")
    if verify is None:
        pytest.skip("the verify command is not installed")
    done = subprocess.run([verify, "langs", "--sandbox", "none", "python"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "VERIFY_SECCOMP": "off", "VERIFY_CACHE": str(tmp_path)})
    assert done.returncode == 2, done
    assert len(done.stderr.strip().splitlines()) == 1 and "needs the seccomp filter" in done.stderr, done.stderr
