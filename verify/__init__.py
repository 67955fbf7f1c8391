"""verify: a judge for programming-puzzle contests.

The public API is small; everything else lives in private-ish modules:

- :class:`verify.Verdict` and :class:`verify.Status` -- the one result type of every contest.
- :class:`verify.VerifyError` -- a problem with an input (map, entry, option), one line for people.
- :mod:`verify.challenges` -- the contests (desert, maze, arrows), each a folder.
- :mod:`verify.runner` -- languages, sandbox and limits, knowing nothing of any contest.
"""
from verify.errors import VerifyError
from verify.verdict import Status, Verdict

__all__ = ["Status", "Verdict", "VerifyError"]
__version__ = "0.1.0"
