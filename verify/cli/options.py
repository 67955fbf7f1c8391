"""Options shared by the commands: the output format, the limits, the sandbox (as a runner), the
cluster; and the settings (settings.py), built once per command line and refined by its options."""
from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click

from verify.errors import VerifyError
from verify.runner.limits import Limits
from verify.settings import Settings, from_process
from verify.switching import switching_every

if TYPE_CHECKING:
    from verify.grading import LocalRunner
    from verify.runner import Isolation

F = TypeVar("F", bound=Callable[..., Any])

SANDBOX_HELP = ("Isolation policy: auto (bubblewrap when it works, refuse when it is installed but "
                "broken), bwrap (bubblewrap or exit 2), none (no bubblewrap). Default: $VERIFY_SANDBOX, else auto.")
ACCOUNTING_HELP = ("What counts each run's memory, processes and CPU time: auto or cgroup (a cgroup per run, "
                   "else exit 2 with the fix), rlimits (no cgroup: memory and process limits may be judged "
                   "otherwise, and every report says so). Default: $VERIFY_ACCOUNTING, else auto.")
DEFAULT = Limits()


class FormatChoice(click.Choice):
    """A ``--format`` value: one of ``choices``, else a usage error in one line (exit 2)."""

    def __init__(self, choices: Sequence[str], refuse: Callable[[str], Exception]):
        super().__init__(list(choices))
        self.refuse = refuse

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value not in self.choices:
            raise self.refuse(str(value))
        return value


def report_format_option(report: str, default: str = "table") -> Callable[[F], F]:
    """``--format`` of a report: the formats the registry has for it (:mod:`verify.reports.formats`);
    the command gets ``output_format``."""
    from verify.reports.formats import formats_of, unknown_format
    return click.option("--format", "output_format",
                        type=FormatChoice(formats_of(report), lambda name: unknown_format(report, name)),
                        default=default, show_default=True, help="How to print the result.")


def format_option(*choices: str, default: str = "table") -> Callable[[F], F]:
    """``--format`` among ``choices``, for a command's own output (a contest's offline
    ``judge``): the command gets ``output_format``; a report's formats: :func:`report_format_option`."""
    def refuse(name: str) -> Exception:
        return VerifyError(f"--format: {name!r} is not one of {', '.join(choices)}")
    return click.option("--format", "output_format", type=FormatChoice(choices, refuse), default=default,
                        show_default=True, help="How to print the result.")


def settings_of(context: click.Context) -> Settings:
    """The command line's settings: built once, at its root (`verify.cli.run` gives them, else
    they are read from the environment here), with the options given so far over them."""
    root = context.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = from_process()
    return root.obj


def given(context: click.Context, **options: object) -> Settings:
    """The command line's settings with these options (None: not given) over them, kept for the rest."""
    root = context.find_root()
    root.obj = settings_of(context).with_options(**options)
    return root.obj


def _accounting(context: click.Context, parameter: click.Parameter, value: str | None) -> None:
    given(context, accounting=value)


# while the isolation is resolved, a thread that wants the interpreter waits at most this long
# for it (5 ms by default): the resolving thread, woken by a process it waited for, goes on at
# once instead of waiting for the command's thread, which is busy importing
SWITCH_INTERVAL = 0.0005


class ResolvingIsolation:
    """An isolation resolved on a thread of its own (``resolve()``), started now, for a runner
    built before it is used: resolving it (bubblewrap's probe, the cgroup's, the trial run)
    mostly waits on other processes, and the command imports its modules and loads its entries
    meanwhile (the interpreter switching threads every ``SWITCH_INTERVAL`` seconds until it is
    resolved). Every check and the trial run are the same as when resolved at once;
    :meth:`result` gives the isolation or raises what resolving it raised."""

    def __init__(self, resolve: Callable[[], Isolation]):
        self._isolation: Isolation | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._resolve, args=(resolve,), name="verify-isolation")
        self._thread.start()

    def _resolve(self, resolve: Callable[[], Isolation]) -> None:
        with switching_every(SWITCH_INTERVAL):
            try:
                self._isolation = resolve()
            except BaseException as error:      # raised again where the isolation is asked for
                self._error = error

    def wait(self) -> None:
        self._thread.join()

    def result(self) -> Isolation:
        self.wait()
        if self._error is not None:
            raise self._error
        assert self._isolation is not None
        return self._isolation


def _runner(context: click.Context, parameter: click.Parameter, value: str | None, *, beside: bool = False) -> Any:
    settings = given(context, sandbox=value)
    if beside:
        # the resolving thread starts before the runner's modules are imported (on this thread,
        # meanwhile); it imports no module of verify's itself, these being imported first
        from verify.runner import isolation
        resolving = ResolvingIsolation(lambda: isolation.from_settings(settings))
        context.call_on_close(resolving.wait)    # (its trial run ends before the command does)
        from verify.grading import LocalRunner
        runner = LocalRunner(resolving.result, forkserver=settings.forkserver, zygote=settings.zygote,
                             cache=settings.cache)
    else:
        from verify.grading import LocalRunner
        from verify.runner import isolation_from_settings
        # SandboxUnavailable: one line, exit 2, before any run
        runner = LocalRunner(isolation_from_settings(settings), forkserver=settings.forkserver, zygote=settings.zygote,
                             cache=settings.cache)
    context.call_on_close(runner.close)          # its fork servers and sandboxes built ahead
    return runner


def runner_option(function: F, *, beside: bool = False) -> F:
    """``--sandbox auto|bwrap|none`` and ``--accounting auto|cgroup|rlimits``: the command gets
    ``runner``, a LocalRunner with that isolation. ``beside``: the isolation is resolved on a
    thread of its own while the command goes on (:class:`ResolvingIsolation`);
    the command asks for it (``runner.resolved``) before its first run, and says why it cannot
    be had before any other failure (:func:`isolation_first`)."""
    callback = functools.partial(_runner, beside=beside)
    function = click.option("--sandbox", "runner", type=click.Choice(["auto", "bwrap", "none"]), default=None,
                            callback=callback, help=SANDBOX_HELP)(function)
    # eager: read before --sandbox builds the runner, whatever their order on the command line
    return click.option("--accounting", type=click.Choice(["auto", "cgroup", "rlimits"]), default=None,
                        is_eager=True, expose_value=False, callback=_accounting, help=ACCOUNTING_HELP)(function)


def runner_option_beside(function: F) -> F:
    """:func:`runner_option` with the isolation resolved beside the command (``beside=True``)."""
    return runner_option(function, beside=True)


@contextmanager
def isolation_first(runner: LocalRunner) -> Iterator[None]:
    """A command whose runner's isolation is resolved beside it: when the command fails (or
    exits) before asking for it, the isolation is asked for first, so that an isolation that
    cannot be had is what the command says (one line, exit 2), as when it was resolved first."""
    try:
        yield
    except BaseException:
        runner.await_isolation()
        raise


CLUSTER_HELP = ("Run the jobs on the Dask scheduler at ADDRESS (e.g. tcp://host:8786; workers run them "
                "sandboxed only). Default: $VERIFY_CLUSTER, else this machine. Needs verify[cluster] "
                "(docs/cluster.md).")


def _cluster(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    return given(context, cluster=value).cluster


def cluster_option(function: F) -> F:
    """``--cluster ADDRESS`` (or ``$VERIFY_CLUSTER``): the command gets ``cluster``, the address or None."""
    return click.option("--cluster", "cluster", metavar="ADDRESS", default=None, callback=_cluster,
                        help=CLUSTER_HELP)(function)


def limit_options(function: F) -> F:
    """The limits of each run; the command gets ``limits`` (a :class:`Limits`)."""
    options = [
        click.option("--time", "wall_time", type=click.FloatRange(min=0.01), default=DEFAULT.wall_time,
                     show_default=True, help="Wall-time limit per run, seconds."),
        click.option("--cpu", "cpu_time", type=click.FloatRange(min=0.01), default=None,
                     help="CPU-time limit per run, seconds (default: the wall-time limit)."),
        click.option("--memory", "memory_mb", type=click.IntRange(min=1), default=DEFAULT.memory >> 20,
                     show_default=True, help="Memory limit per run, MiB."),
        click.option("--output-limit", "output_mb", type=click.IntRange(min=1), default=DEFAULT.output >> 20,
                     show_default=True, help="Stdout limit per run, MiB."),
        click.option("--processes", type=click.IntRange(min=1), default=DEFAULT.processes, show_default=True,
                     help="Process limit per run."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def make_limits(wall_time: float, cpu_time: float | None, memory_mb: int, output_mb: int,
                processes: int) -> Limits:
    return Limits(wall_time=wall_time, cpu_time=cpu_time or wall_time, memory=memory_mb << 20,
                  output=output_mb << 20, processes=processes)
