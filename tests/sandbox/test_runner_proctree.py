"""tree_cpu_time: the CPU of a live process tree, its spinning and its reaped children included."""
from __future__ import annotations

import subprocess
import sys

from verify.runner.proctree import tree_cpu_time

# A parent whose two children each burn 0.3 s of their own CPU (measured by themselves,
# so the test does not depend on the machine's speed or load), say so, and then wait;
# the parent itself sleeps. On "reap" the parent reaps them and says so.
TREE = r"""
import os, sys, time
ready = []
for _ in range(2):
    r, w = os.pipe()
    if os.fork() == 0:
        while time.process_time() < 0.3:
            pass
        os.write(w, b"x")
        time.sleep(3600)
    ready.append(r)
for r in ready:
    os.read(r, 1)
print("spun", flush=True)
sys.stdin.readline()
for pid in [p for p in map(int, open(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read().split())]:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
print("reaped", flush=True)
sys.stdin.readline()
"""


def test_spinning_children_count_while_alive_and_once_reaped():
    tree = subprocess.Popen([sys.executable, "-c", TREE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert tree.stdout.readline().strip() == "spun"
        assert tree_cpu_time(tree.pid) >= 0.6        # the children, alive and never reaped
        tree.stdin.write("\n")
        tree.stdin.flush()
        assert tree.stdout.readline().strip() == "reaped"
        assert tree_cpu_time(tree.pid) >= 0.6        # now in the parent's cutime, counted once
        assert tree_cpu_time(tree.pid) < 1.1         # not twice (1.2 and more): the parent used little
    finally:
        tree.kill()
        tree.wait()


def test_a_process_that_is_gone_counts_nothing():
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert tree_cpu_time(gone.pid) == 0.0
