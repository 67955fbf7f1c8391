"""The shorter thread switch interval: the shortest asked for holds while any block runs, and
the interval from before comes back when the last ends, however the blocks overlap."""
from __future__ import annotations

import sys
import threading

import pytest

from verify.switching import switching_every


@pytest.fixture(autouse=True)
def known_interval():
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    yield
    sys.setswitchinterval(before)


def test_overlapping_blocks_keep_the_shortest_and_give_back_the_interval_from_before():
    first, second = switching_every(0.0005), switching_every(0.0002)
    first.__enter__()
    assert sys.getswitchinterval() == pytest.approx(0.0005)
    second.__enter__()
    assert sys.getswitchinterval() == pytest.approx(0.0002)
    first.__exit__(None, None, None)         # the first to start ends first
    assert sys.getswitchinterval() == pytest.approx(0.0002)
    second.__exit__(None, None, None)
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_a_longer_interval_never_lengthens_it_and_a_failure_gives_it_back():
    with pytest.raises(ValueError), switching_every(1.0):
        assert sys.getswitchinterval() == pytest.approx(0.005)
        raise ValueError
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_blocks_on_many_threads_give_back_the_interval():
    inside = threading.Barrier(8)

    def block() -> None:
        with switching_every(0.0001):
            inside.wait()
    threads = [threading.Thread(target=block) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sys.getswitchinterval() == pytest.approx(0.005)
