"""The King-of-the-Hill driver: any contest's :class:`~verify.contests.contract.Tournament`,
played over the grader's executor (threads here, or a cluster's workers).

Every program of every contestant is built once first (a program that does not build is
given to the tournament as broken: its matches are the contest's to forfeit). Then each
stage's jobs, scheduled by the contest from the results of the stages before, go to the
executor, the costliest first so that every worker stays busy to the end; the results
come back in the jobs' scheduled order, so the same seeds give the same tables however many
workers ran them and in whatever order they finished. A job sent elsewhere carries the
digests of the folders it runs programs from: a worker that finds other files refuses
(:mod:`verify.pipeline.guard`). Each job may write a log in the tournament's log folder.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from verify.contests.contract import Contest, Contestant, Grader, Options, Standings, Tournament
from verify.entries import load_entry
from verify.errors import VerifyError
from verify.pipeline.guard import check_same_files, loaded_digest
from verify.report_escape import one_line
from verify.runner import Program

Progress = Callable[[str], None]


def default_log_dir(cache: Path, contest: str) -> Path:
    """Where a tournament writes its logs without --logs: a folder of its own in the cache (the
    settings'), ``<contest>-logs/<UTC time>``, never the current folder."""
    return cache / f"{contest}-logs" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def load_contestants(contest: Contest[Options, Any], folders: Sequence[Path]) -> list[Contestant[Options]]:
    """The entries at ``folders``, each of ``contest``; a VerifyError for one of another contest."""
    contestants = []
    for folder in folders:
        entry = load_entry(folder)
        if entry.contest.name != contest.name:
            raise VerifyError(f"{entry.label}: a {entry.contest.name} entry, not a {contest.name} entry")
        contestants.append(Contestant(entry.name, entry.options))
    return contestants


def tournament_of(contest: Contest[Options, Any]) -> Tournament[Options, Any]:
    """The contest's tournament; a VerifyError when it has none."""
    tournament = contest.load_tournament()
    if tournament is None:
        raise VerifyError(f"{contest.name} entries do not meet in a tournament")
    return tournament


@dataclass(frozen=True)
class SentJob:
    """A contest's job as sent to the executor: the tournament (by reference), where it logs, and
    the folders it runs programs from with their digests as loaded here."""

    tournament: Tournament[Any, Any]
    job: Any
    log: Path | None
    folders: tuple[tuple[Path, str], ...]


def _broken(grader: Grader, program: Program) -> str | None:
    """A job: build ``program`` once (cached) and say why it cannot run, or None."""
    return grader.broken(program)


def play_job(grader: Grader, sent: SentJob) -> Any:
    """A job: the contest's match, once its folders are the ones loaded."""
    for folder, digest in sent.folders:
        check_same_files(folder, digest, "the tournament")
    return sent.tournament.play(grader, sent.job, sent.log)


def _names_unique(contestants: Sequence[Contestant[Any]]) -> None:
    names = [c.name for c in contestants]
    if len(set(names)) != len(names):
        raise VerifyError(f"two entries share a name: {sorted(n for n in names if names.count(n) > 1)[0]!r}")


def _builds(grader: Grader, contest: Contest[Options, Any], contestants: Sequence[Contestant[Options]],
            jobs: int) -> tuple[dict[Program, str], dict[Path, str]]:
    """Why each program that cannot run cannot; and the digest of every program's folder."""
    programs = sorted({p for c in contestants for p in contest.programs(c.options)}, key=str)
    digests = {program.folder: loaded_digest(program.folder) for program in programs}
    failures = grader.map(_broken, programs, jobs)
    broken = {program: failure for program, failure in zip(programs, failures, strict=True) if failure is not None}
    return broken, digests


def _play_stage(grader: Grader, tournament: Tournament[Any, Any], scheduled: Sequence[Any], jobs: int,
                log_dir: Path | None, digests: Mapping[Path, str], progress: Progress) -> list[Any]:
    def log_path(job: Any) -> Path | None:
        name = tournament.log_name(job)
        return None if log_dir is None or name is None else log_dir / name

    sent = [SentJob(tournament, job, log_path(job),
                 tuple((p.folder, digests.get(p.folder, "")) for p in tournament.programs(job)))
            for job in scheduled]
    order = sorted(range(len(sent)), key=lambda index: -tournament.cost(scheduled[index]))   # stable
    done = 0

    def finished(index: int, result: Any) -> None:
        nonlocal done
        done += 1
        job = scheduled[order[index]]
        progress(one_line(f"[{done}/{len(sent)}] {tournament.describe(job, result)}"))

    results = grader.map(play_job, [sent[index] for index in order], jobs, finished)
    in_order: list[Any] = [None] * len(sent)
    for index, result in zip(order, results, strict=True):
        in_order[index] = result
    return in_order


def play_tournament(grader: Grader, contest: Contest[Options, Any], contestants: Sequence[Contestant[Options]],
                    options: object, *,
                    jobs: int = 2, log_dir: Path | None = None,
                    progress: Progress = lambda message: None) -> Standings:
    """The contest's tournament among ``contestants``, ``jobs`` at once here (a cluster uses its
    workers'), its logs under ``log_dir``; its standings."""
    tournament = tournament_of(contest)
    _names_unique(contestants)
    broken, digests = _builds(grader, contest, contestants, jobs)
    results: list[list[Any]] = []
    for stage in range(tournament.stages):
        scheduled = list(tournament.schedule(stage, contestants, options, broken, results))
        results.append(_play_stage(grader, tournament, scheduled, jobs, log_dir, digests, progress))
    return tournament.standings(contestants, options, results)
