"""Executors beyond this machine: where ``--cluster ADDRESS`` sends the jobs (docs/cluster.md).

:func:`open_executor` is what the command line calls: no address, no executor (the
threads of this process); an address, a :class:`~verify.executors.dask.DaskExecutor`
(Dask is imported only then: the base install does not need it).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from verify.grading import LocalRunner
from verify.grading.executor import Executor, ExecutorError


@contextmanager
def open_executor(address: str | None, runner: LocalRunner) -> Iterator[Executor | None]:
    """The executor for ``address`` (None or empty: none), closed at the end. One line (exit 2)
    when it cannot be had: an explicit ``--sandbox none`` (workers run sandboxed only), Dask not
    installed, no scheduler at the address, no worker connected, a worker that refuses."""
    if not address:
        yield None
        return
    if runner.resolved.policy == "none":
        raise ExecutorError("--cluster runs entries only in the workers' sandbox: "
                            "it cannot be combined with --sandbox none (or VERIFY_SANDBOX=none)")
    from verify.executors.dask import DaskExecutor

    executor = DaskExecutor(address)
    try:
        yield executor
    finally:
        executor.close()
