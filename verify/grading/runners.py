"""The seam between grading and processes: a :class:`Runner` runs one program.

Graders never start a process themselves; they are given a runner, as an httpx
client is given a transport:

- :class:`LocalRunner` runs programs on this machine through :mod:`verify.runner`
  with the :class:`~verify.runner.Isolation` it is given: :func:`bubblewrap_runner` (the
  sandbox), :func:`rlimits_runner` (limits only), or the one the CLI's settings resolve;
- :class:`verify.grading.fake.FakeRunner` answers from scripts, for tests.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from verify.runner import Isolation, Limits, Program, RunResult, Session, prepare, run_program
from verify.runner.isolation import from_settings, resolve
from verify.runner.pools import Pools
from verify.settings import from_process


class ProgramSession(Protocol):
    """A program kept running between requests (a persistent solver). ``peak_memory`` (bytes)
    and ``cpu_time`` (seconds): what its processes used, once it is closed (0: not measured)."""

    peak_memory: int
    cpu_time: float

    def exchange(self, text: bytes, timeout: float) -> bytes:
        """Write ``text``, return the next line printed; raise SessionError when none comes."""

    def close(self) -> None:
        """End the program and everything it started."""


class Runner(Protocol):
    """Runs programs; raises CompileError, MissingInterpreter or VerifyError when one cannot start."""

    @property
    def isolation(self) -> str:
        """How runs are isolated, as reports name it (``bubblewrap+seccomp+...``, ``rlimits``)."""

    def prepare(self, program: Program) -> None:
        """Build the program (cached) so that its runs start at once."""

    def run(self, program: Program, *, stdin: bytes, args: Sequence[str], limits: Limits,
            on_stdout: Callable[[bytes], bool] | None = None, repeated: bool = False) -> RunResult:
        """Run it to the end (or a limit), streaming its stdout into ``on_stdout``
        (which returns True to stop it early). ``repeated``: more runs of the same program
        follow at once (a per-step solver), so the runner may prepare the next one ahead."""

    def session(self, program: Program, limits: Limits) -> ProgramSession:
        """Start it for a conversation, line by line; ``limits`` hold for its whole life."""


class LocalRunner:
    """Runs programs on this machine under `isolation`, building them in `cache` (each None:
    what the environment's settings ask for, resolved now). It owns the boxes kept for
    repeated runs (fork servers unless `forkserver` is False, sandboxes built ahead):
    `close()` (or leaving its `with` block) removes them. The CLI gives all three, from the
    settings it built."""

    def __init__(self, isolation: Isolation | None = None, *, forkserver: bool | None = None,
                 cache: Path | None = None):
        if isolation is None or forkserver is None or cache is None:
            settings = from_process()
            isolation = isolation if isolation is not None else from_settings(settings)
            forkserver = forkserver if forkserver is not None else settings.forkserver
            cache = cache if cache is not None else settings.cache
        self._isolation = isolation
        self._cache = cache
        self._pools = Pools(forkserver=forkserver, cache=cache)

    @property
    def pools(self) -> Pools:
        return self._pools

    def close(self) -> None:
        self._pools.close()

    def __enter__(self) -> LocalRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def resolved(self) -> Isolation:
        return self._isolation

    @property
    def isolation(self) -> str:
        return self.resolved.name

    def prepare(self, program: Program) -> None:
        prepare(program, isolation=self.resolved, cache=self._cache)

    def run(self, program: Program, *, stdin: bytes, args: Sequence[str], limits: Limits,
            on_stdout: Callable[[bytes], bool] | None = None, repeated: bool = False) -> RunResult:
        # ahead: the sandbox of the next identical run is built while this one runs (it
        # cuts a per-step run's wall time; see docs/benchmarks.md, "Sandboxes built ahead")
        return run_program(program, stdin=stdin, args=args, limits=limits, on_stdout=on_stdout,
                           isolation=self.resolved, ahead=repeated, pools=self._pools, cache=self._cache)

    def session(self, program: Program, limits: Limits) -> ProgramSession:
        return Session(program, limits, isolation=self.resolved, cache=self._cache).__enter__()


def bubblewrap_runner() -> LocalRunner:
    """Every run in bubblewrap (raises SandboxUnavailable when it does not work here)."""
    return LocalRunner(resolve("bwrap"))


def rlimits_runner() -> LocalRunner:
    """Runs under resource limits only, without bubblewrap (trusted programs, or no sandbox)."""
    return LocalRunner(resolve("none"))
