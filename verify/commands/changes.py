"""Which entries a change touched (``verify check --changed-since REF``), found with git.

An entry changed when a file under its folder changed, or under its contest's test-case
folder (``testcases/<contest>/``), between the merge base of REF and HEAD and the working
tree: what a pull request changes, whatever happened on REF's branch since. git runs
with literal path specs, never inside an entry's own folder (a ``.git`` there is hostile).

A change that edits an entry (``submissions/<contest>/<entry>/``) and also what judges
that entry (its contest's test cases, or the contest's own code when it lives in the
repository) is refused, one line and exit 2: judged against cases it wrote itself, its
pass would mean nothing. A maintainer reviews it (docs/ci.md, "The trust boundary").
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path, PurePosixPath

from verify import contests
from verify.errors import VerifyError, quoted

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
    names = [name for name in names if name]
    refuse_self_judging(repository, ref, names)
    return {(repository / name).resolve() for name in names}


class SelfJudged(VerifyError):
    """A change that edits an entry and what judges it: no verdict on it would mean anything."""


def _entries_and_cases(names: list[str]) -> tuple[dict[tuple[str, ...], set[str]], set[tuple[str, ...]]]:
    """The entries a change edits, by (folder above submissions/, contest) -> entry names, and
    the contests whose test cases it edits, by (folder above testcases/, contest)."""
    entries: dict[tuple[str, ...], set[str]] = {}
    cases: set[tuple[str, ...]] = set()
    for name in names:
        parts = PurePosixPath(name).parts
        for index, part in enumerate(parts):
            if part == "submissions" and len(parts) > index + 3:     # submissions/<contest>/<entry>/<file>
                entries.setdefault((*parts[:index], parts[index + 1]), set()).add(parts[index + 2])
            elif part == "testcases" and len(parts) > index + 2:     # testcases/<contest>/<file>
                cases.add((*parts[:index], parts[index + 1]))
    return entries, cases


def _contest_code(repository: Path, contest: str) -> Path | None:
    """The folder of the contest's own code when it lives in the repository (a --contest-path
    folder there), else None (built in, or installed: not the change's to edit)."""
    try:
        module = sys.modules.get(type(contests.get(contest)).__module__)
    except VerifyError:
        return None
    location = getattr(module, "__file__", None)
    if location is None:
        return None
    path = Path(location).resolve()
    folder = path.parent if path.name == "__init__.py" else path
    return folder if folder.is_relative_to(repository.resolve()) else None


def refuse_self_judging(repository: Path, ref: str, names: list[str]) -> None:
    """A :class:`SelfJudged` error when the changed files ``names`` (relative to the repository)
    edit an entry and its contest's test cases, or its contest's code in the repository."""
    entries, cases = _entries_and_cases(names)
    changed = [(repository / name).resolve() for name in names]
    for (*above, contest), edited in sorted(entries.items()):
        judges = []
        if (*above, contest) in cases:
            judges.append("/".join([*above, "testcases", contest]) + "/")
        code = _contest_code(repository, contest)
        if code is not None and any(path == code or path.is_relative_to(code) for path in changed):
            judges.append(str(code.relative_to(repository.resolve())) + ("/" if code.is_dir() else ""))
        if judges:
            shown = ", ".join(quoted(f"{contest}/{entry}", 60) for entry in sorted(edited))
            raise SelfJudged(f"--changed-since {ref}: the change edits entries ({shown}) and what judges them "
                             f"({', '.join(quoted(judge, 60) for judge in judges)}): a pass against cases it "
                             "wrote itself means nothing, so a maintainer must review it; check the entries by "
                             "name once the cases are reviewed, or split the change in two")


def touched(entry_folder: Path, changed: set[Path]) -> bool:
    """Whether a changed file lies in the entry's folder (``submissions/<contest>/<entry>``) or in
    its contest's test cases (``testcases/<contest>/`` beside the submissions folder)."""
    folder = entry_folder.resolve()
    cases = folder.parent.parent.parent / "testcases" / folder.parent.name
    return any(path.is_relative_to(folder) or path.is_relative_to(cases) for path in changed)
