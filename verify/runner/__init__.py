"""Run programs in any language under real limits. Knows nothing about any contest.

Public API (see docs/runner.md): Program, Limits (DEFAULT_LIMITS), RunResult, prepare,
Prepared, recipe, Recipe, CompileError, FlagError, MissingInterpreter, run_program, run_prepared,
Session, SessionError, Isolation, resolve_isolation, isolation_from_settings,
SandboxUnavailable.

`run_program`, `run_prepared`, `prepare` and `Session` take the keyword `isolation` (an
`Isolation`, e.g. `resolve_isolation("bwrap")`, or `isolation_from_settings(settings)`
for what the environment asks: $VERIFY_SANDBOX, $VERIFY_ACCOUNTING...). The table of
languages is `verify.runner.languages.languages()` (a name the package cannot carry: it
is also its submodule's).

Each name is imported from its module when first used: `Program` and `Limits` are plain
values that every contest names, and importing them must not import the sandbox, the
build cache and the process machinery (a help page or an offline judge uses none of them).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from verify.runner.build import CompileError, Prepared, Recipe, prepare, recipe
    from verify.runner.flags import FlagError
    from verify.runner.isolation import Isolation, SandboxUnavailable
    from verify.runner.isolation import from_settings as isolation_from_settings
    from verify.runner.isolation import resolve as resolve_isolation
    from verify.runner.languages import Language, MissingInterpreter, get_language
    from verify.runner.limits import DEFAULT_LIMITS, Limits
    from verify.runner.paths import cache_root
    from verify.runner.program import Program
    from verify.runner.run import RunResult, run_prepared, run_program
    from verify.runner.session import Session, SessionError

# public name -> (module, name in that module)
_EXPORTS = {
    "CompileError": ("build", "CompileError"), "Prepared": ("build", "Prepared"), "prepare": ("build", "prepare"),
    "Recipe": ("build", "Recipe"), "recipe": ("build", "recipe"),
    "FlagError": ("flags", "FlagError"),
    "Isolation": ("isolation", "Isolation"), "SandboxUnavailable": ("isolation", "SandboxUnavailable"),
    "isolation_from_settings": ("isolation", "from_settings"), "resolve_isolation": ("isolation", "resolve"),
    "Language": ("languages", "Language"), "MissingInterpreter": ("languages", "MissingInterpreter"),
    "get_language": ("languages", "get_language"),
    "DEFAULT_LIMITS": ("limits", "DEFAULT_LIMITS"), "Limits": ("limits", "Limits"),
    "cache_root": ("paths", "cache_root"),
    "Program": ("program", "Program"),
    "RunResult": ("run", "RunResult"), "run_prepared": ("run", "run_prepared"), "run_program": ("run", "run_program"),
    "Session": ("session", "Session"), "SessionError": ("session", "SessionError"),
}

__all__ = ["DEFAULT_LIMITS", "CompileError", "FlagError", "Isolation", "Language", "Limits", "MissingInterpreter",
           "Prepared", "Program", "Recipe", "RunResult", "SandboxUnavailable", "Session", "SessionError",
           "cache_root", "get_language", "isolation_from_settings", "prepare", "recipe", "resolve_isolation",
           "run_prepared", "run_program"]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'verify.runner' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"verify.runner.{module}"), attribute)
    globals()[name] = value
    return value
