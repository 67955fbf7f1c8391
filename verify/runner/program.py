"""The program an entry names: its language, its source and flags (a plain value, cheap to import)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Program:
    language: str                 # key of languages.toml
    source: Path                  # absolute path of the source file
    flags: tuple[str, ...] = ()   # interpreter (or compiler) flags, scored as penalties
    workdir: Path | None = None   # visible and writable in the sandbox (default: the source's folder)

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", Path(self.source).absolute())
        object.__setattr__(self, "flags", tuple(self.flags))
        if self.workdir is not None:
            object.__setattr__(self, "workdir", Path(self.workdir).absolute())

    @property
    def folder(self) -> Path:
        return self.workdir or self.source.parent
