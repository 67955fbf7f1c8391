"""The contests. Each is a subpackage exposing ``CHALLENGE``; adding one is adding a folder."""
from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

from verify.challenges.base import Challenge, StreamJudge, TestCase
from verify.errors import VerifyError

__all__ = ["Challenge", "StreamJudge", "TestCase", "get", "names", "module"]


@cache
def names() -> tuple[str, ...]:
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg))


def module(name: str) -> ModuleType:
    if name not in names():
        raise VerifyError(f"unknown challenge {name!r} (known: {', '.join(names())})")
    return importlib.import_module(f"{__name__}.{name}")


def get(name: str) -> Challenge:
    return module(name).CHALLENGE
