"""The seam between grading and processes: a :class:`Runner` runs one program.

Graders never start a process themselves; they are given a runner, as an httpx
client is given a transport:

- :class:`LocalRunner` runs programs on this machine through :mod:`verify.runner`
  with the :class:`~verify.runner.Isolation` it is given: :func:`bubblewrap_runner` (the
  sandbox), :func:`rlimits_runner` (limits only), or the one the CLI's settings resolve;
- :class:`verify.grading.fake.FakeRunner` answers from scripts, for tests.

A program is prepared once (``prepare``: its language resolved, its flags checked, its
artefact built or checked) and then run many times (``run``, ``session``) from what that
gave back: a run reads no file of the entry to know what it runs, checks no flag and
hashes nothing. Callers that hold a program for many runs (a match's asker) keep what
``prepare`` gave; jobs that are plain data name their program again, and the runner gives
back what it prepared for it (:mod:`.memo`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from verify.grading.memo import PreparedMemo
from verify.runner import Isolation, Limits, Prepared, Program, RunResult, Session, recipe, run_prepared
from verify.runner.artefacts import MANIFEST
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


class PreparedProgram(Protocol):
    """A program its runner made ready to run: what its ``run`` and ``session`` take."""

    @property
    def program(self) -> Program:
        """The program it was prepared from."""


class Runner(Protocol):
    """Prepares programs once and runs them many times."""

    @property
    def isolation(self) -> str:
        """How runs are isolated, as reports name it (``bubblewrap+seccomp+...``, ``rlimits``)."""

    def prepare(self, program: Program) -> PreparedProgram:
        """The program ready to run (built, cached); what the runner prepared for the same
        program before, while its files are the same. Raises CompileError, MissingInterpreter,
        FlagError or VerifyError when it cannot run."""

    def run(self, prepared: PreparedProgram, *, stdin: bytes, args: Sequence[str], limits: Limits,
            on_stdout: Callable[[bytes], bool] | None = None, repeated: bool = False) -> RunResult:
        """Run a program this runner prepared to the end (or a limit), streaming its stdout
        into ``on_stdout`` (which returns True to stop it early). ``repeated``: more runs of
        the same program follow at once (a per-step solver), so the runner may prepare the
        next one's sandbox ahead."""

    def session(self, prepared: PreparedProgram, limits: Limits) -> ProgramSession:
        """Start a program this runner prepared for a conversation, line by line; ``limits``
        hold for its whole life."""


class LocalRunner:
    """Runs programs on this machine under `isolation`, building them in `cache` (each None:
    what the environment's settings ask for, resolved now; `isolation` may also be a function
    giving it, called at its first use: the command line's, resolved beside a command). It owns
    the boxes kept for repeated runs (fork servers unless `forkserver` is False, their zygotes
    unless `zygote` is, sandboxes built ahead): `close()` (or leaving its `with` block) removes
    them. The CLI gives all four, from the settings it built. It keeps what it prepared as long
    as it lives (:mod:`.memo`): a program is built and its artefact checked once per runner and
    build key."""

    def __init__(self, isolation: Isolation | Callable[[], Isolation] | None = None, *,
                 forkserver: bool | None = None, zygote: bool | None = None, cache: Path | None = None):
        if isolation is None or forkserver is None or zygote is None or cache is None:
            settings = from_process()
            isolation = isolation if isolation is not None else from_settings(settings)
            forkserver = forkserver if forkserver is not None else settings.forkserver
            zygote = zygote if zygote is not None else settings.zygote
            cache = cache if cache is not None else settings.cache
        self._isolation: Isolation | None = isolation if isinstance(isolation, Isolation) else None
        self._resolve = None if isinstance(isolation, Isolation) else isolation
        self._cache = cache
        self._pools = Pools(forkserver=forkserver, zygote=zygote, cache=cache)
        self._prepared: PreparedMemo[Prepared] = PreparedMemo()

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
        """The runs' isolation (given as a function: what it gives, or raises, such as
        SandboxUnavailable when it cannot be had)."""
        if self._isolation is None:
            assert self._resolve is not None
            self._isolation = self._resolve()
        return self._isolation

    @property
    def isolation(self) -> str:
        return self.resolved.name

    def await_isolation(self) -> None:
        """Wait for the isolation being resolved (raises SandboxUnavailable when it cannot be had)."""
        self.resolved  # noqa: B018

    def prepare(self, program: Program) -> Prepared:
        # the recipe is read each time (its key is what the files hold now); the build, the
        # check of its artefact and a build's failure happen once per key
        made = recipe(program, cache=self._cache)
        return self._prepared.get(made.key, lambda: made.prepare(isolation=self.resolved), usable=_still_cached)

    def run(self, prepared: PreparedProgram, *, stdin: bytes, args: Sequence[str], limits: Limits,
            on_stdout: Callable[[bytes], bool] | None = None, repeated: bool = False) -> RunResult:
        # ahead: the sandbox of the next identical run is built while this one runs (it
        # cuts a per-step run's wall time; see docs/benchmarks.md, "Sandboxes built ahead")
        return run_prepared(_made_here(prepared), stdin=stdin, args=args, limits=limits, on_stdout=on_stdout,
                            isolation=self.resolved, ahead=repeated, pools=self._pools)

    def session(self, prepared: PreparedProgram, limits: Limits) -> ProgramSession:
        return Session(_made_here(prepared), limits, isolation=self.resolved, cache=self._cache).__enter__()


def _made_here(prepared: PreparedProgram) -> Prepared:
    """The runner's own kind of prepared program (another runner's means nothing here)."""
    if not isinstance(prepared, Prepared):
        raise TypeError(f"a LocalRunner runs what it prepared, not a {type(prepared).__name__}")
    return prepared


def _still_cached(prepared: Prepared) -> bool:
    """Whether a kept program's artefact is still in the cache (a `verify cache` command may
    have removed it since): one look, not the check of its digests made when it was prepared."""
    return prepared.build is None or (prepared.build / MANIFEST).is_file()


def bubblewrap_runner() -> LocalRunner:
    """Every run in bubblewrap (raises SandboxUnavailable when it does not work here)."""
    return LocalRunner(resolve("bwrap"))


def rlimits_runner() -> LocalRunner:
    """Runs under resource limits only, without bubblewrap (trusted programs, or no sandbox)."""
    return LocalRunner(resolve("none"))
