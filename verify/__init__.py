"""verify: a judge for programming-puzzle contests.

The public API is small; everything else lives in its layer (docs/architecture.md):

- :class:`verify.Verdict` and :class:`verify.Status` -- the one result type of every contest.
- :class:`verify.VerifyError` -- a problem with an input (map, entry, option), one line for people.
- :mod:`verify.contests` -- the contests and their contract; :mod:`verify.grading` -- how programs
  are judged; :mod:`verify.runner` -- languages, sandbox and limits, knowing nothing of any contest.

The names load on first use, so that the command line starts fast.
"""
from __future__ import annotations

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing: every command imports this package)
if TYPE_CHECKING:
    from typing import Any

    from verify.errors import VerifyError
    from verify.verdict import Status, Verdict

__all__ = ["Status", "Verdict", "VerifyError"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name in ("Status", "Verdict"):
        from verify import verdict
        return getattr(verdict, name)
    if name == "VerifyError":
        from verify.errors import VerifyError
        return VerifyError
    raise AttributeError(f"module 'verify' has no attribute {name!r}")
