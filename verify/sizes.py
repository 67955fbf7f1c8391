"""Byte counts as people read them, in every message and report: ``64 MiB``, ``1.5 KiB``, ``12 bytes``."""
from __future__ import annotations


def size(count: int) -> str:
    """Whole units without a decimal (``1 GiB``), others with one (``1.5 MiB``); under 1 KiB in bytes."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            value = count / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count} bytes"
