"""How programs are graded: the only place that turns a run into a verdict.

- :mod:`.batch`: input in, output streamed into the contest's judge;
- :mod:`.interactive`: the contest's pure match asks, the program answers (per step or persistent);
- :mod:`.runners`: the injected :class:`Runner` (bubblewrap, rlimits), :mod:`.fake` one for tests:
  a program is prepared once and run many times; :mod:`.memo`: what a runner prepared, kept;
- :mod:`.verdicts`: the one limit-to-verdict mapping and the one crash verdict;
- :mod:`.grader`: the same, offered to a contest's tournament.
"""
from typing import TYPE_CHECKING, Any

from verify.grading.batch import grade_batch, grade_case
from verify.grading.grader import Grader, build_failure
from verify.grading.interactive import grade_interactive
from verify.grading.runners import LocalRunner, Runner, bubblewrap_runner, rlimits_runner

if TYPE_CHECKING:
    from verify.grading.fake import FakeRun, FakeRunner

__all__ = ["FakeRun", "FakeRunner", "Grader", "LocalRunner", "Runner", "bubblewrap_runner", "build_failure",
           "grade_batch", "grade_case", "grade_interactive", "rlimits_runner"]


def __getattr__(name: str) -> Any:
    if name in ("FakeRun", "FakeRunner"):     # the tests' runner: imported when first named
        from verify.grading import fake
        return getattr(fake, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
