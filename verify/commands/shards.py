"""Results from several runs of ``verify check --results-dir`` (shards), combined into one folder.

Each file is one whole check under its cache key (:mod:`verify.commands.cache`), so shards
combine by copying: the same key is the same check. Every file is read back before it is
copied, and must be a check stored under its own name whose content matches its digest
(:func:`verify.results.read_stored_check`): anything else stops the merge with one line
naming it. Each copy is written whole or not at all, so a merge killed half-way leaves
only whole results, and running it again completes it.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verify.errors import VerifyError
from verify.files import make_output_folder, write_atomically
from verify.results import ResultsFormatError, read_stored_check

MAX_RESULT_BYTES = 64 << 20


def merge_results(shards: Sequence[Path], into: Path) -> int:
    """Copy every check result of ``shards`` into ``into``; the number of results it holds then."""
    make_output_folder(into, "merged results")
    for shard in shards:
        if not shard.is_dir():
            raise VerifyError(f"no results folder {str(shard)!r}")
        for path in sorted(shard.glob("*.json")):
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_RESULT_BYTES:
                raise VerifyError(f"{path}: not a check result (a link, not a file, or too large)")
            data = path.read_bytes()
            try:
                read_stored_check(data, path.stem)
            except ResultsFormatError as error:
                raise VerifyError(f"{path}: not a check result: {error}") from None
            target = into / path.name
            if target.resolve() != path.resolve():
                try:
                    write_atomically(target, data)
                except OSError as error:
                    raise VerifyError(f"cannot write {str(target)!r}: {error.strerror or error}") from None
    return len(list(into.glob("*.json")))
