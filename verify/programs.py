"""The program an entry names (``language``, ``source``, ``flags``), checked in one place.

Used for an entry's own program (the top-level fields of entry.toml) and for the
programs a contest's table declares (``[<contest>.<role>]``...): each
problem is one EntryError naming the field. The source must be a regular file
inside the entry folder (:mod:`verify.files`); the language must be known.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from verify.errors import EntryError, VerifyError
from verify.files import MAX_SOURCE_BYTES, FileRefused, check_entry_file
from verify.runner import Program, get_language


def entry_program(label: str, prefix: str, language: Any, source: Any, flags: Any, folder: Path) -> Program:
    """A checked Program; ``prefix`` names where the fields are (``""`` or ``"<contest>.<role>."``)."""
    for key, value in (("language", language), ("source", source)):
        if not isinstance(value, str) or not value:
            raise EntryError(label, f"{prefix}{key}", "missing (a non-empty string)")
    if not isinstance(flags, list) or not all(isinstance(flag, str) for flag in flags):
        raise EntryError(label, f"{prefix}flags", "expected a list of strings")
    try:
        get_language(language)
    except VerifyError as error:
        raise EntryError(label, f"{prefix}language", str(error)) from None
    try:
        path = check_entry_file(folder, source, MAX_SOURCE_BYTES)
    except FileRefused as error:
        raise EntryError(label, f"{prefix}source", str(error)) from None
    return Program(language, path, tuple(flags), folder)
