"""Code-golf scores and leaderboards (the convention is written in docs/entries.md).

Score = the source file's bytes, exactly as stored (UTF-8 octets, a trailing newline
counts), plus a penalty for each interpreter flag: what the flag adds to the plain
invocation of the language.
- a flag of one dash and letters (``-n``, ``-l``, ``-F,``) joins the plain ``-e``
  (``perl -ne``), so it costs its length minus the dash: ``-n`` costs 1, ``-F,`` 2;
- any other flag (``--harmony``, ``-x y``, ``--stack-size=9``) is a word of its own:
  its length plus the separating space.
Ties: the entry first added to the repository (git) wins; then the name.
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verify.entries import Entry
from verify.errors import EntryError
from verify.files import MAX_SOURCE_BYTES, FileRefused, entry_folder_contents, read_entry_file

_BUNDLED_FLAG = re.compile(r"-[A-Za-z0-9][^\s=]*")


def flag_penalty(flag: str) -> int:
    if _BUNDLED_FLAG.fullmatch(flag) and not flag.startswith("--"):
        return len(flag) - 1
    return len(flag) + 1


@dataclass(frozen=True)
class Score:
    source_bytes: int
    penalty: int
    chars: int
    flags: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return self.source_bytes + self.penalty

    def header(self, language_name: str) -> str:
        """The contest's Markdown header: `# Perl -n, 254 + 1 = 255 bytes`."""
        title = " ".join([language_name, *self.flags])
        if self.penalty:
            return f"# {title}, {self.source_bytes} + {self.penalty} = {self.total} bytes"
        return f"# {title}, {self.total} bytes"


def score_source(source: bytes, flags: tuple[str, ...] = ()) -> Score:
    try:
        chars = len(source.decode("utf-8"))
    except UnicodeDecodeError:
        chars = len(source)  # not UTF-8: every byte is a character of its own
    return Score(len(source), sum(flag_penalty(f) for f in flags), chars, tuple(flags))


def score_entry(entry: Entry) -> Score:
    """The entry's score; its source is read as at load time (inside the folder, bounded):
    a source that has changed into something else since is an EntryError."""
    assert entry.source is not None
    try:
        source = read_entry_file(entry.folder, str(entry.source.relative_to(entry.folder)), MAX_SOURCE_BYTES)
    except FileRefused as error:
        raise EntryError(entry.label, "source", str(error)) from None
    return score_source(source, entry.flags)


def first_added(folder: Path) -> int | None:
    """Unix time of the commit that first added the entry (None outside git).

    git runs in the folder's parent, naming the folder as a literal path: a ``.git`` inside
    the entry (its own repository, its own config) is never the one asked."""
    folder = Path(folder)
    try:
        out = subprocess.run(["git", "--literal-pathspecs", "log", "--diff-filter=A", "--format=%ct", "--",
                              folder.name], cwd=folder.parent, capture_output=True, text=True, timeout=10,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    stamps = [int(line) for line in out.stdout.split() if line.isdigit()]
    return min(stamps) if out.returncode == 0 and stamps else None


@dataclass
class Standing:
    label: str
    name: str
    language: str
    score: Score | None
    passed: bool
    why_not: str = ""
    added: int | None = None
    rank: int | None = None
    cases: int = 0
    entry: Entry | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "entry": self.label, "name": self.name, "language": self.language,
                "bytes": self.score.source_bytes if self.score else None,
                "penalty": self.score.penalty if self.score else None,
                "score": self.score.total if self.score else None,
                "chars": self.score.chars if self.score else None,
                "flags": list(self.score.flags) if self.score else [],
                "passed": self.passed, "why_not": self.why_not, "cases": self.cases}


def rank_standings(standings: list[Standing]) -> list[Standing]:
    """Passing entries by (score, first added, name), ranked 1..n (ties share no rank: the
    earlier entry wins); the others after them, unranked."""
    ranked = sorted((s for s in standings if s.passed and s.score),
                    key=lambda s: (s.score.total, s.added if s.added is not None else float("inf"), s.name))
    for place, standing in enumerate(ranked, 1):
        standing.rank = place
    others = sorted((s for s in standings if not (s.passed and s.score)), key=lambda s: s.label)
    return ranked + others


# -- cached check results --------------------------------------------------------------

def check_digest(entry: Entry, case_inputs: list[tuple[str, bytes]], limits_repr: str) -> str:
    """Everything a check's outcome depends on: the entry's files, the cases, the
    contest's judging code, the runner, and the limits. The folder is read as at load time
    (:func:`verify.files.entry_folder_contents`): a folder that has changed into something
    refused since raises FileRefused."""
    digest = hashlib.sha256()
    for item, data in entry_folder_contents(entry.folder):
        name = item.relative.encode("utf-8", "surrogateescape")
        if item.target is not None:     # a link inside the folder: where it leads
            digest.update(name + b"\0->" + item.target.encode("utf-8", "surrogateescape") + b"\0")
        else:
            digest.update(name + b"\0" + data + b"\0")
    for name, data in case_inputs:
        digest.update(name.encode() + b"\0" + data + b"\0")
    import verify
    package = Path(verify.__file__).parent
    for folder in (package / "challenges" / entry.challenge.name, package / "runner"):
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".py", ".toml", ".c"):
                digest.update(path.read_bytes())
    digest.update(limits_repr.encode())
    return digest.hexdigest()[:32]


def load_cached(cache_dir: Path, key: str) -> dict[str, Any] | None:
    try:
        return json.loads((cache_dir / f"{key}.json").read_text())
    except (OSError, ValueError):
        return None


def store_cached(cache_dir: Path, key: str, data: dict[str, Any]) -> None:
    cache_dir.mkdir(parents=True, exist_ok=True)
    temporary = cache_dir / f".{key}.{id(data)}.tmp"
    temporary.write_text(json.dumps(data))
    temporary.replace(cache_dir / f"{key}.json")
