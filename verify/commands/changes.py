"""Which entries a change touched (``verify check --changed-since REF``), found with git.

An entry changed when a file under its folder changed, or under its contest's test-case
folder (``testcases/<contest>/``), between the merge base of REF and HEAD and the working
tree: what a pull request changes, whatever happened on REF's branch since. git runs
with literal path specs, never inside an entry's own folder (a ``.git`` there is hostile).
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from verify.errors import VerifyError

GIT_TIMEOUT = 60.0


def _git(repository: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "--literal-pathspecs", *args], cwd=repository, capture_output=True,
                              text=True, timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise VerifyError("--changed-since needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise VerifyError(f"git {args[0]} took more than {GIT_TIMEOUT:g} s") from None
    if done.returncode != 0:
        raise _GitFailed(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"git {args[0]} failed")
    return done.stdout


class _GitFailed(Exception):
    pass


def repository_root(folder: Path) -> Path:
    try:
        return Path(_git(folder, "rev-parse", "--show-toplevel").strip())
    except _GitFailed:
        raise VerifyError(f"--changed-since: {str(folder)!r} is not inside a git repository") from None


def is_shallow(repository: Path) -> bool:
    try:
        return _git(repository, "rev-parse", "--is-shallow-repository").strip() == "true"
    except (_GitFailed, VerifyError):
        return False


def changed_files(repository: Path, ref: str) -> set[Path]:
    """Absolute paths of the files changed from the merge base of ``ref`` and HEAD to the
    working tree, untracked files included. A clear VerifyError for an unknown ``ref`` or a
    shallow clone without the merge base."""
    try:
        _git(repository, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except _GitFailed:
        hint = " (the clone is shallow: fetch the history, e.g. actions/checkout with fetch-depth: 0)" \
            if is_shallow(repository) else ""
        raise VerifyError(f"--changed-since: unknown git ref {ref!r}{hint}") from None
    try:
        base = _git(repository, "merge-base", ref, "HEAD").strip()
    except _GitFailed:
        if is_shallow(repository):
            raise VerifyError(f"--changed-since: the clone is shallow and holds no common ancestor of {ref!r} "
                              "and HEAD (fetch the history, e.g. actions/checkout with fetch-depth: 0)") from None
        raise VerifyError(f"--changed-since: {ref!r} and HEAD have no common ancestor") from None
    names = _git(repository, "diff", "--name-only", "--no-renames", "-z", base, "--").split("\0")
    names += _git(repository, "ls-files", "--others", "--exclude-standard", "-z").split("\0")
    return {(repository / name).resolve() for name in names if name}


def touched(entry_folder: Path, changed: set[Path]) -> bool:
    """Whether a changed file lies in the entry's folder (``submissions/<contest>/<entry>``) or in
    its contest's test cases (``testcases/<contest>/`` beside the submissions folder)."""
    folder = entry_folder.resolve()
    cases = folder.parent.parent.parent / "testcases" / folder.parent.name
    return any(path.is_relative_to(folder) or path.is_relative_to(cases) for path in changed)
