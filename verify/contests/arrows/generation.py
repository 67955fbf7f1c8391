"""What the generators (``generator.py`` in Python, ``generate.c`` through ctypes or as the program
the quick command starts) share, in a module that imports nothing costly: the largest
board, the default search budget, and the seed: the text ``random.Random`` is seeded with and the
key CPython seeds its Mersenne Twister with for that text.
"""
from __future__ import annotations

import sys

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing)
if TYPE_CHECKING:
    from typing import Any

MAX_GENERATION_CELLS = 2500     # the largest board either generator makes
DEFAULT_MAX_NODES = 20          # the search nodes a --hard puzzle may need, unless told
NO_BUDGET_REACHED = 1 << 62     # a search node budget no search reaches (the C side's int64)


def seed_text(rows: int, cols: int, seed: int) -> str:
    """What the generator's ``random.Random`` is seeded with, for a board and a seed."""
    return f"arrows {rows}x{cols} seed {seed}"


def seed_key(text: str) -> str:
    """The key ``random.Random(text)`` seeds its Mersenne Twister with, as the compiled program
    reads it (its ``arrows_seed``): 32-bit words, least significant first, 8 hex digits each.
    CPython seeds with a str (version 2, the default) as the integer whose bytes, most significant
    first, are the text's UTF-8 followed by their SHA-512; a test compares the state both ways."""
    data = text.encode()
    key = int.from_bytes(data + sha512(data).digest(), "big")
    raw = key.to_bytes(max(1, (key.bit_length() + 31) // 32) * 4, "little")
    return "".join(f"{int.from_bytes(raw[at:at + 4], 'little'):08x}" for at in range(0, len(raw), 4))


def sha512(data: bytes = b"") -> Any:
    """A SHA-512 hash of ``data``: CPython's built-in one where it has it (hashlib's OpenSSL costs
    milliseconds to start), else hashlib's; the same digests."""
    if sys.version_info >= (3, 12):
        try:
            from _sha2 import sha512 as built_in  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha512 as built_in
    else:
        try:
            from _sha512 import sha512 as built_in  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha512 as built_in
    return built_in(data)
