"""The arrow-path (Signpost) contest: read a puzzle, print the solved board; fewest bytes wins.

Rooms: ``contest`` (the contest as the core sees it: ``CONTEST``), ``model`` (the board,
parsing, writing, rays, candidates), ``checker`` (the rules: first error of a filled board),
``solver`` (the reference solver), ``naive`` (the spec's depth-first search, the baseline),
``generator`` (unique puzzles), ``judge`` (a program's output, streamed), ``cli``, ``quick``
(``verify gen arrows`` without the full command line).

``CONTEST`` and the contest's classes are loaded when first named, so that the quick command,
which imports this package, imports none of the contest's other rooms.
"""
from __future__ import annotations

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing: the quick command imports this)
if TYPE_CHECKING:
    from typing import Any

    from verify.contests.arrows.contest import CONTEST, ArrowsContest
    from verify.contests.arrows.options import ArrowsOptions

__all__ = ["CONTEST", "ArrowsContest", "ArrowsOptions"]

KERNEL_FOLDER = "arrows-kernel"     # the cache folder of the compiled kernel's builds (kernel_build.py)


def __getattr__(name: str) -> Any:
    if name in ("CONTEST", "ArrowsContest"):
        from verify.contests.arrows import contest
        return getattr(contest, name)
    if name == "ArrowsOptions":
        from verify.contests.arrows.options import ArrowsOptions
        return ArrowsOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
