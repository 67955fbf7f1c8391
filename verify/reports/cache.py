"""What the cache holds (``verify cache info``), as a table or JSON."""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from verify.reports.formats import CACHE, render


class CachePart(Protocol):
    """One part of the cache as the report reads it (:class:`verify.commands.cache_admin.Part`)."""

    @property
    def name(self) -> str: ...
    @property
    def items(self) -> Sequence[object]: ...
    @property
    def size(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...


def cache_report(root: Path, parts: Sequence[CachePart], fmt: str) -> str:
    """The ``parts`` of the cache at ``root`` in ``fmt``, a format of the registry
    (:mod:`verify.reports.formats`)."""
    return render(CACHE, fmt, root, parts)


def human_size(count: float) -> str:
    if count < 1024:
        return f"{count:.0f} B"
    for unit in ("KiB", "MiB", "GiB"):
        count /= 1024
        if count < 1024 or unit == "GiB":
            break
    return f"{count:.1f} {unit}"


def cache_json(root: Path, parts: Sequence[CachePart]) -> str:
    total = sum(part.size for part in parts)
    return json.dumps({"root": str(root), "bytes": total, "parts": [p.to_dict() for p in parts]}, indent=2)


def cache_table(root: Path, parts: Sequence[CachePart]) -> str:
    if not parts:
        return f"cache: {root}\nempty"
    from tabulate import tabulate

    total = sum(part.size for part in parts)
    rows = [[part.name, len(part.items), human_size(part.size)] for part in parts]
    rows.append(["total", sum(len(part.items) for part in parts), human_size(total)])
    return f"cache: {root}\n" + tabulate(rows, headers=["part", "items", "size"], colalign=("left", "right", "right"))
