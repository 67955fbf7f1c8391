"""The isolation a report's runs had, and which of its verdicts may differ from a judge with
a cgroup per run (:func:`verify.runner.isolation.differences`): every report names both."""
from __future__ import annotations

from collections.abc import Iterable

from verify.runner.isolation import differences

DIFFERENCES_LABEL = "verdicts may differ"


def isolation_named(names: Iterable[str], default: str = "") -> str:
    """The isolations of a report's runs (each once, in the order seen, comma-separated), or
    `default`, the one its runs would have had, when none ran."""
    seen = list(dict.fromkeys(name for name in names if name))
    return ", ".join(seen) if seen else default


def differences_of(isolation: str) -> str:
    """Which verdicts an isolation (or several, as :func:`isolation_named` joins them) may give
    otherwise than a judge with a cgroup per run; "" when none may."""
    found = dict.fromkeys(why for why in (differences(name) for name in isolation.split(", ")) if why)
    return "; ".join(found)


def differences_line(isolation: str) -> list[str]:
    """``verdicts may differ: WHY`` where they may (none: no line), for a report whose summary
    names the isolation."""
    why = differences_of(isolation)
    return [f"{DIFFERENCES_LABEL}: {why}"] if why else []


def isolation_lines(isolation: str) -> list[str]:
    """``isolation: NAME``, and below it the :func:`differences_line`."""
    return ([f"isolation: {isolation}"] if isolation else []) + differences_line(isolation)


def isolation_fields(isolation: str) -> dict[str, str]:
    """The two fields of a JSON report: ``isolation`` and ``differences`` ("" when none may)."""
    return {"isolation": isolation, "differences": differences_of(isolation)}
