"""The jobs on a Dask distributed cluster: ``dask scheduler``, ``dask worker`` (docs/cluster.md).

The client submits each job (a module-level function and plain data, pickled) and
gathers the results as they finish, putting each in its item's place: the order of the
results never depends on the workers. A worker runs a job with a grader of its own
(:func:`worker_grader`, which the worker keeps and closes: dask_worker.py): its own isolation,
resolved on the worker from its own settings (its environment: ``VERIFY_SANDBOX``...), and it
refuses to run anything unless that isolation is bubblewrap.
A worker that dies has its jobs run again elsewhere by the scheduler (up to
``distributed.scheduler.allowed-failures`` times); a job that exceeds its limits is a
verdict like any other, never a retry. A worker also refuses the jobs of a client whose
``verify`` source differs from its own: results must mean the same on every machine.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from functools import cache
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar

from verify.contests import FOLDER_MODULES
from verify.errors import VerifyError
from verify.files import source_tree_digest
from verify.grading import Grader, LocalRunner
from verify.grading.executor import Done, ExecutorError
from verify.runner.isolation import from_settings
from verify.settings import from_process

G = TypeVar("G")
T = TypeVar("T")
R = TypeVar("R")

PACKAGE = Path(__file__).resolve().parent.parent
IN_FLIGHT = 5000
"""Jobs with the scheduler at once: enough to keep thousands of worker threads busy, while its
memory (a few KB per task) stays bounded for a tournament of millions of walks."""


class UnsandboxedWorker(VerifyError):
    """A worker whose runs would not be in bubblewrap: it runs no job."""


class OtherVerify(VerifyError):
    """A worker whose verify is not the client's: it runs no job of that client."""


def read_source_digest() -> str:
    """The source of the verify package as it is on disk now."""
    return source_tree_digest(PACKAGE)


@cache
def source_digest() -> str:
    """The source this worker process runs (read once, at its first job)."""
    return read_source_digest()


def _worker_address() -> str:
    try:
        from distributed import get_worker
        return str(get_worker().address)
    except (ImportError, ValueError):
        return "this process"


def sandboxed_runner(address: str) -> LocalRunner:
    """A runner under the isolation of this worker's own settings, which must be bubblewrap.
    Without it (``VERIFY_SANDBOX=none``, bubblewrap missing or broken) the entries would see
    the worker's files and network: UnsandboxedWorker."""
    where = f"worker {address}"
    settings = from_process()
    try:
        isolation = from_settings(settings)
    except VerifyError as error:
        raise UnsandboxedWorker(f"{where}: refuses to run entries: {error}") from None
    if not isolation.sandboxed:
        raise UnsandboxedWorker(f"{where}: refuses to run entries without bubblewrap "
                                f"(its isolation: {isolation.name}; see docs/cluster.md)")
    return LocalRunner(isolation, forkserver=settings.forkserver, zygote=settings.zygote,
                       cache=settings.cache)


def worker_grader(dask_worker: Any = None) -> Grader:
    """The grader of this Dask worker (None: the one running this job), made at its first job
    over :func:`sandboxed_runner` and kept by the worker, which closes it when it closes."""
    from distributed import get_worker

    from verify.executors.dask_worker import grader_of
    worker = dask_worker if dask_worker is not None else get_worker()
    return grader_of(worker, lambda: sandboxed_runner(str(worker.address)))


def on_worker(job: Callable[[Grader, T], R], item: T, source: str) -> R:
    """What a worker runs for one job of a client whose verify source has digest ``source``."""
    if source != source_digest():
        raise OtherVerify(f"worker {_worker_address()}: runs another verify than the client's (their sources "
                          "differ): install the same version on every worker")
    return job(worker_grader(), item)


def worker_isolation(dask_worker: Any = None) -> str:
    """This worker's isolation name, or why it refuses (run by ``Client.run``, which gives the worker)."""
    try:
        return worker_grader(dask_worker).runner.isolation
    except VerifyError as error:
        return f"refused: {error}"


def _check_address(address: str) -> None:
    """A scheduler address Dask can read (``tcp://host:port``...), else one line."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            parse_host_port(location)
    except ValueError as error:
        raise ExecutorError(f"cannot reach a Dask scheduler at {address!r}: {error} "
                            "(expected tcp://HOST:PORT)") from None


def refers_to_a_folder_contest(*values: object) -> bool:
    """Whether pickling ``values`` (as Dask does) names a module of a contest loaded from a folder,
    which no other process can import by that name."""
    import cloudpickle  # type: ignore[import-untyped]
    try:
        data = cloudpickle.dumps(values)
    except Exception:       # Dask's own pickling will say what is wrong
        return False
    return FOLDER_MODULES.encode() in data


class DaskExecutor:
    """Jobs submitted to the Dask scheduler at ``address``."""

    def __init__(self, address: str, timeout: float | None = None):
        """``timeout``: seconds to reach the scheduler, then to see a first worker (default: Dask's
        own ``distributed.comm.timeouts.connect``, 30 s unless configured)."""
        try:
            import dask
            from dask.utils import parse_timedelta
            from distributed import Client
        except ImportError:
            raise ExecutorError("--cluster needs Dask: pip install 'verify[cluster]'") from None
        if timeout is None:
            timeout = float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect")))
        self.address = address
        _check_address(address)
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            raise ExecutorError(f"cannot reach a Dask scheduler at {address!r}: "
                                f"{str(error).splitlines()[0] if str(error) else type(error).__name__}") from None
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            self.close()
            raise ExecutorError(f"no worker connected to the Dask scheduler at {address!r} "
                                f"within {timeout:g} s (start some: dask worker {address})") from None
        self.source = read_source_digest()        # the client's, as it connects
        sources = dict(self.client.run(source_digest))
        other = sorted(address for address, digest in sources.items() if digest != self.source)
        refused = [name for name in self._isolations().values() if name.startswith("refused: ")]
        if other or refused:
            self.close()
            raise ExecutorError(f"worker {other[0]}: runs another verify than this one (their sources differ): "
                                "install the same version on every worker" if other
                                else refused[0].removeprefix("refused: "))

    def _isolations(self) -> dict[str, str]:
        return dict(self.client.run(worker_isolation))

    def map(self, job: Callable[[G, T], R], items: Sequence[T], *, grader: G, parallel: int,
            on_done: Done[R] | None = None) -> list[R]:
        """At most ``IN_FLIGHT`` jobs are with the scheduler at a time, the next submitted as one
        finishes: its memory stays bounded however many walks a tournament has."""
        from distributed import Future, as_completed
        from distributed.scheduler import KilledWorker

        if not items:
            return []
        if refers_to_a_folder_contest(job, items[0]):
            raise ExecutorError("a contest given by --contest-path cannot run on a cluster: its scheduler and "
                                "workers cannot import it; fix: install the contest as a package (pip install) "
                                "where verify, the scheduler and every worker run")
        batch = uuid.uuid4().hex[:12]
        waiting = iter(enumerate(items))
        flying: dict[object, tuple[int, Future]] = {}

        def submit(index: int, item: T) -> Future:
            future = self.client.submit(on_worker, job, item, self.source, key=f"verify-{job.__name__}-{batch}-{index}",
                                        pure=False)
            flying[future.key] = (index, future)
            return future

        results: dict[int, R] = {}
        try:
            finished = as_completed([submit(index, item) for index, item in islice(waiting, IN_FLIGHT)],
                                    loop=self.client.loop)
            for future in finished:
                index, _ = flying.pop(future.key)
                try:
                    results[index] = future.result()
                except KilledWorker as error:
                    raise ExecutorError(f"a job lost its worker too many times (allowed-failures): {error}") from None
                following = next(waiting, None)
                if following is not None:
                    finished.add(submit(*following))
                if on_done is not None:
                    on_done(index, results[index])
        except BaseException:
            self.client.cancel([future for _, future in flying.values()])
            raise
        return [results[index] for index in range(len(items))]

    def workers(self) -> int | None:
        info: dict[str, Any] = self.client.scheduler_info(n_workers=-1)
        return len(info.get("workers", {}))

    def isolation(self, here: str) -> str | None:
        names = set(self._isolations().values())
        return names.pop() if len(names) == 1 and not next(iter(names)).startswith("refused: ") else None

    def close(self) -> None:
        self.client.close()
