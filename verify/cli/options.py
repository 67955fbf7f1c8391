"""Options shared by the commands: the output format, the limits, the sandbox (as a runner), the cluster."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from verify.runner.limits import Limits

F = TypeVar("F", bound=Callable[..., Any])

SANDBOX_HELP = ("Isolation policy: auto (bubblewrap when it works, refuse when it is installed but "
                "broken), bwrap (bubblewrap or exit 2), none (no bubblewrap). Default: $VERIFY_SANDBOX, else auto.")
ACCOUNTING_HELP = ("What counts each run's memory, processes and CPU time: auto or cgroup (a cgroup per run, "
                   "else exit 2 with the fix), rlimits (no cgroup: memory and process limits may be judged "
                   "otherwise, and every report says so). Default: $VERIFY_ACCOUNTING, else auto.")
DEFAULT = Limits()


def format_option(*choices: str, default: str = "table") -> Callable[[F], F]:
    """``--format``: the one option every command that reports has; the command gets ``output_format``."""
    return click.option("--format", "output_format", type=click.Choice(list(choices)), default=default,
                        show_default=True, help="How to print the result.")


def _accounting(context: click.Context, parameter: click.Parameter, value: str | None) -> None:
    context.meta["verify.accounting"] = value


def _runner(context: click.Context, parameter: click.Parameter, value: str | None) -> Any:
    from verify.grading import LocalRunner
    from verify.runner import configure_isolation
    # SandboxUnavailable: one line, exit 2, before any run
    runner = LocalRunner(configure_isolation(value, context.meta.get("verify.accounting")))
    context.call_on_close(runner.close)          # its fork servers and sandboxes built ahead
    return runner


def runner_option(function: F) -> F:
    """``--sandbox auto|bwrap|none`` and ``--accounting auto|cgroup|rlimits``: the command gets
    ``runner``, a LocalRunner with that isolation."""
    function = click.option("--sandbox", "runner", type=click.Choice(["auto", "bwrap", "none"]), default=None,
                            callback=_runner, help=SANDBOX_HELP)(function)
    # eager: read before --sandbox builds the runner, whatever their order on the command line
    return click.option("--accounting", type=click.Choice(["auto", "cgroup", "rlimits"]), default=None,
                        is_eager=True, expose_value=False, callback=_accounting, help=ACCOUNTING_HELP)(function)


CLUSTER_HELP = ("Run the jobs on the Dask scheduler at ADDRESS (e.g. tcp://host:8786; workers run them "
                "sandboxed only). Default: $VERIFY_CLUSTER, else this machine. Needs verify[cluster] "
                "(docs/cluster.md).")


def cluster_option(function: F) -> F:
    """``--cluster ADDRESS`` (or ``$VERIFY_CLUSTER``): the command gets ``cluster``, the address or None."""
    return click.option("--cluster", "cluster", metavar="ADDRESS", envvar="VERIFY_CLUSTER", default=None,
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
