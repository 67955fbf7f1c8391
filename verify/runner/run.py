"""Run one program to completion under limits, streaming its stdout to a consumer.

`run_program` prepares (compiles, cached) and runs a `Program`; `run_prepared` runs one
already prepared. Both take the isolation to run under (`isolation`) and, as explicit
options, `ahead` with the `pools` that serve it (pools.py). The run itself (spawn, I/O loop,
verdict of the kernel's counters) is process.py's.
"""
from __future__ import annotations

from collections.abc import Sequence

from verify.runner import pools as box_pools
from verify.runner.build import Prepared, Program, prepare
from verify.runner.isolation import Isolation
from verify.runner.limits import DEFAULT_LIMITS, Limits
from verify.runner.process import RunResult, StdoutConsumer, drive

__all__ = ["RunResult", "run_prepared", "run_program"]


def run_program(program: Program, *, stdin: bytes = b"", args: Sequence[str] = (),
                limits: Limits = DEFAULT_LIMITS, on_stdout: StdoutConsumer | None = None,
                isolation: Isolation, ahead: bool = False,
                pools: box_pools.Pools | None = None) -> RunResult:
    """Compile (cached in the cache_root()) and run `program` under `isolation`;
    raises CompileError / MissingInterpreter / FlagError. See `run_prepared`."""
    prepared = prepare(program, isolation=isolation)
    return run_prepared(prepared, stdin=stdin, args=args, limits=limits, on_stdout=on_stdout,
                        isolation=isolation, ahead=ahead, pools=pools)


def run_prepared(prepared: Prepared, *, stdin: bytes = b"", args: Sequence[str] = (),
                 limits: Limits = DEFAULT_LIMITS, on_stdout: StdoutConsumer | None = None,
                 isolation: Isolation, ahead: bool = False,
                 pools: box_pools.Pools | None = None) -> RunResult:
    """Run `prepared` with `args` in a fresh sandbox of `isolation` and wait for it; nothing
    of the run is alive when it returns.

    `on_stdout(chunk)` gets the output as it is read (returning True stops the program);
    without it the output is collected in the result. ahead=True: build the sandboxes of
    the next identical runs while this one runs, and take one built by a previous run
    (warm.py; only under bubblewrap with verify-init and no cgroup per run, else ignored),
    or, as root, run it as one step of a fork server (forkserver.py), which builds the
    sandbox once for all the runs of that program. Those boxes wait in `pools` (its
    caller's, which it closes; None: no boxes are kept, and the run goes the usual way)."""
    if ahead and pools is not None:
        served = pools.run(prepared, args=args, limits=limits, stdin=stdin, on_stdout=on_stdout,
                           isolation=isolation)
        if served is not None:
            return served
    with prepared.sandbox(isolation) as sandbox:
        started = prepared.start(sandbox, args, limits)
        return drive(started, sandbox, limits, stdin=stdin, on_stdout=on_stdout)
