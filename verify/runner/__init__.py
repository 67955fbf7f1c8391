"""Run programs in any language under real limits. Knows nothing about any contest.

Public API (see docs/runner.md): Program, Limits, RunResult, prepare, Prepared,
CompileError, FlagError, MissingInterpreter, run_program, Session, SessionError,
languages, configure_isolation, Isolation, SandboxUnavailable.
"""
from verify.runner.build import CompileError, Prepared, Program, prepare
from verify.runner.flags import FlagError
from verify.runner.isolation import Isolation, SandboxUnavailable, configure as configure_isolation
from verify.runner.languages import Language, MissingInterpreter, get_language, languages
from verify.runner.limits import Limits
from verify.runner.run import RunResult, run_program
from verify.runner.paths import cache_root
from verify.runner.sandbox import isolation_name
from verify.runner.session import Session, SessionError

__all__ = ["CompileError", "FlagError", "Isolation", "SandboxUnavailable", "configure_isolation", "Language", "Limits", "MissingInterpreter", "Prepared", "Program",
           "RunResult", "Session", "SessionError", "cache_root", "get_language", "isolation_name",
           "languages", "prepare", "run_program"]
