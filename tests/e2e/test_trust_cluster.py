"""The Dask path's trust, over a real distributed.LocalCluster (worker processes):

- an entry run by a worker reads nothing but its own files (not another entry's, not the
  test cases, not the worker's cache or verify's source, no other process), writes
  nowhere that outlives its run, and leaves nothing for the next job on that worker:
  every case is accepted there, while the same entry run directly, as a plain process, is caught;
- who may submit jobs is who may connect: with Dask's TLS (a cluster CA, certificates
  required on both sides) a client without a certificate of that CA cannot connect, and
  verify's client connects with the one Dask's configuration names;
- a worker that is not sandboxed, or runs another verify, is refused: tests/e2e/test_cluster.py
  (test_workers_refuse_to_run_unsandboxed, test_a_worker_refuses_the_jobs_of_a_client_with_another_verify).
"""
from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster

from verify.commands.check import CheckOptions, check
from verify.executors.dask import DaskExecutor
from verify.grading import LocalRunner
from verify.grading.executor import ExecutorError
from verify.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="workers run entries under bubblewrap only")

# Tries every way out it knows; exits 3 naming what it reached, else solves the case.
PRELUDE = r'''
import os, sys
reached = []
for path in READS:
    try:
        with open(path, "rb") as f:
            f.read(1)
        reached.append("read " + path)
    except OSError:
        pass
for folder, secret in LISTS:
    try:
        if secret in os.listdir(folder):
            reached.append("saw " + secret + " in " + folder)
    except OSError:
        pass
for folder in WRITES:
    try:
        with open(os.path.join(folder, "planted-by-an-entry"), "w") as f:
            f.write("x")
        reached.append("wrote in " + folder)
    except OSError:
        pass
for pid in os.listdir("/proc"):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            command = f.read()
            if b"distributed" in command or b"dask" in command:
                reached.append("saw a worker process " + pid)
    except OSError:
        pass
for mark in ("/tmp/left-by-an-earlier-run", os.path.join(os.getcwd(), "left-by-an-earlier-run")):
    if os.path.exists(mark):
        reached.append("found " + mark)
    try:
        open(mark, "w").close()
    except OSError:
        pass
if reached:
    sys.stderr.write("; ".join(reached))
    sys.exit(3)
'''


@pytest.fixture(scope="module")
def shared(tmp_path_factory) -> Iterator[dict[str, Path]]:
    """A filesystem the client and the worker share: a victim entry, the hostile one, the cases,
    a world-writable folder, and the worker's own cache; and a world-readable file outside
    /tmp (which a run without a sandbox has to itself) that only a sandbox hides."""
    outside = Path(tempfile.mkdtemp(prefix="verify-trust-", dir="/var/tmp"))
    outside.chmod(0o755)
    (outside / "host-secret").write_text("a file of the host")
    (outside / "host-secret").chmod(0o644)
    root = tmp_path_factory.mktemp("shared")
    cases, drop, cache = root / "cases", root / "drop", root / "worker-cache"
    for folder in (cases, drop, cache):
        folder.mkdir()
    drop.chmod(0o777)
    for name in ("g03-3x3.txt", "g04-4x4.txt", "g06-6x6-a.txt"):
        shutil.copy(ROOT / "testcases" / "arrows" / name, cases)
    golf = (ROOT / "submissions" / "arrows" / "python-golf" / "golf.py").read_text()
    victim = root / "submissions" / "arrows" / "victim"
    hostile = root / "submissions" / "arrows" / "hostile"
    for entry in (victim, hostile):
        entry.mkdir(parents=True)
        (entry / "entry.toml").write_text(f'name = "{entry.name}"\ncontest = "arrows"\nlanguage = "python"\n'
                                          'source = "main.py"\n[arrows]\narrows = "english"\n')
    (victim / "main.py").write_text(golf)
    (cache / "a-build").write_text("a worker's cached build")
    # (the system folders, /usr and /etc, are visible read-only by design: docs/security.md)
    names = {"READS": [str(victim / "main.py"), str(cases / "g06-6x6-a.txt"), str(cache / "a-build"),
                       str(ROOT / "verify" / "__init__.py"), str(outside / "host-secret")],
             # a cache folder may show the path to verify's own helper, mounted for the run, and nothing else
             "LISTS": [(str(cases), "g06-6x6-a.txt"), (str(cache), "a-build"), (str(victim), "main.py")],
             "WRITES": [str(drop), str(cache), str(victim)]}
    header = "".join(f"{name} = {json.dumps(value)}\n" for name, value in names.items())
    (hostile / "main.py").write_text(header + PRELUDE + golf)
    yield {"cases": cases, "drop": drop, "cache": cache, "victim": victim, "hostile": hostile}
    shutil.rmtree(outside, ignore_errors=True)


def verdicts(report: str) -> dict[str, tuple[str, str]]:
    return {f"{entry['entry']} {case['case']}": (case["verdict"]["status"], case["verdict"].get("message", ""))
            for entry in json.loads(report)["entries"] for case in entry["cases"]}


def test_an_entry_on_a_worker_reaches_nothing_but_its_own_files(shared, tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "client-cache"))
    # one worker of one thread: every case of the hostile entry runs on it, one after the other
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                      env={"VERIFY_CACHE": str(shared["cache"]), "VERIFY_SANDBOX": "bwrap"}) as cluster:
        executor = DaskExecutor(cluster.scheduler_address)
        try:
            report, code = check(LocalRunner(), [shared["hostile"], shared["victim"]],
                                 CheckOptions(jobs=1, fmt="json", testcases=shared["cases"]),
                                 settings=Settings.from_environment(os.environ), executor=executor)
        finally:
            executor.close()
    found = verdicts(report)
    assert len(found) == 6 and all(status == "accepted" for status, _ in found.values()), found
    assert code == 0
    assert not list(shared["drop"].iterdir()) and sorted(p.name for p in shared["cache"].iterdir()) != []
    assert not (shared["cache"] / "planted-by-an-entry").exists()
    assert not (shared["victim"] / "planted-by-an-entry").exists()


def test_the_same_entry_run_directly_is_caught(shared):
    """The hostile entry's tries are real: run as a plain process, with no judge around it, it
    reaches the files a worker's sandbox hides and says so."""
    case = (shared["cases"] / "g03-3x3.txt").read_bytes()
    done = subprocess.run([sys.executable, str(shared["hostile"] / "main.py")], input=case,
                          capture_output=True, timeout=60, cwd=shared["hostile"])
    reached = done.stderr.decode()
    try:
        assert done.returncode == 3, reached
        for what in ("read " + str(shared["victim"] / "main.py"), "read " + str(shared["cache"] / "a-build"),
                     "host-secret", "wrote in " + str(shared["drop"])):
            assert what in reached, reached
    finally:
        for path in (shared["drop"] / "planted-by-an-entry", shared["cache"] / "planted-by-an-entry",
                     shared["victim"] / "planted-by-an-entry", shared["hostile"] / "left-by-an-earlier-run",
                     Path("/tmp/left-by-an-earlier-run")):
            path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def tls_cluster():
    pytest.importorskip("cryptography")
    from distributed.security import Security
    security = Security.temporary()          # a CA of its own; certificates required on both sides
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                      security=security, env={"VERIFY_SANDBOX": "bwrap"}) as cluster:
        yield cluster, security


def test_a_client_without_the_clusters_certificate_cannot_submit(tls_cluster):
    from distributed.security import Security
    cluster, _ = tls_cluster
    assert cluster.scheduler_address.startswith("tls://")
    for stranger in (None, Security.temporary()):      # no certificate; one of another CA
        with pytest.raises((OSError, TimeoutError, TypeError, ValueError)):
            Client(cluster.scheduler_address, security=stranger, timeout=3, set_as_default=False)
        # a client that failed to start is closed now, not by the garbage collector while the
        # next one starts (Dask's loop runner would then wait on itself)
        gc.collect()
    with dask.config.set({"distributed.comm.timeouts.connect": "3s"}):
        with pytest.raises(ExecutorError, match="cannot reach a Dask scheduler"):
            DaskExecutor(cluster.scheduler_address)
    gc.collect()


def test_verify_connects_with_the_certificate_daskes_configuration_names(tls_cluster, tmp_path, monkeypatch):
    cluster, security = tls_cluster
    monkeypatch.setenv("VERIFY_CACHE", str(tmp_path / "cache"))
    configured = {"distributed.comm.require-encryption": True,
                  "distributed.comm.tls.ca-file": security.tls_ca_file,
                  "distributed.comm.tls.client.cert": security.tls_client_cert,
                  "distributed.comm.tls.client.key": security.tls_client_key}
    with dask.config.set(configured):
        executor = DaskExecutor(cluster.scheduler_address)
        try:
            report, code = check(LocalRunner(), [ROOT / "submissions" / "arrows" / "python-golf"],
                                 CheckOptions(jobs=1, fmt="json", cases=("g03-*",)),
                                 settings=Settings.from_environment(os.environ), executor=executor)
        finally:
            executor.close()
    assert code == 0 and list(verdicts(report).values()) == [("accepted", "solved 3x3")]
