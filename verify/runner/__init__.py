"""Run programs in any language under real limits. Knows nothing about any contest.

Public API (see docs/runner.md): Program, Limits (DEFAULT_LIMITS), RunResult, prepare,
Prepared, CompileError, FlagError, MissingInterpreter, run_program, run_prepared,
Session, SessionError, languages, Isolation, resolve_isolation, current_isolation,
configure_isolation, isolation_name, SandboxUnavailable.

`run_program`, `run_prepared`, `prepare` and `Session` take an optional keyword
`isolation` (an `Isolation`, e.g. `resolve_isolation("bwrap")`); without it they run
under the configured one (`configure_isolation`, else $VERIFY_SANDBOX).
"""
from verify.runner.build import CompileError, Prepared, Program, prepare
from verify.runner.flags import FlagError
from verify.runner.isolation import Isolation, SandboxUnavailable, isolation_name
from verify.runner.isolation import configure as configure_isolation
from verify.runner.isolation import current as current_isolation
from verify.runner.isolation import resolve as resolve_isolation
from verify.runner.languages import Language, MissingInterpreter, get_language, languages
from verify.runner.limits import DEFAULT_LIMITS, Limits
from verify.runner.paths import cache_root
from verify.runner.run import RunResult, run_prepared, run_program
from verify.runner.session import Session, SessionError

__all__ = ["DEFAULT_LIMITS", "CompileError", "FlagError", "Isolation", "Language", "Limits", "MissingInterpreter",
           "Prepared", "Program", "RunResult", "SandboxUnavailable", "Session", "SessionError", "cache_root",
           "configure_isolation", "current_isolation", "get_language", "isolation_name", "languages", "prepare",
           "resolve_isolation", "run_prepared", "run_program"]
