"""``verify fuzz``: generated inputs until an entry fails, then the smallest input that fails the same way.

- :mod:`.shrink`: the greedy shrinker (pure);
- :mod:`.target`: an entry's role joined to its contest's generators (``contests/<name>/fuzzing.py``);
- :mod:`.driver`: the loop (seeded inputs, ``jobs`` at a time, the first failure shrunk).
"""
from verify.fuzz.driver import Finding, FuzzResult, fuzz
from verify.fuzz.shrink import Shrunk, shrink
from verify.fuzz.target import Target, save_case, target_for

__all__ = ["Finding", "FuzzResult", "Shrunk", "Target", "fuzz", "save_case", "shrink", "target_for"]
