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

Given a :class:`~verify.pipeline.match_cache.MatchCache`, a job whose result it keeps is not
played: its result is reused and its kept log copied where this run logs (a kept result without
a log is played again when logs are written). Each result played is kept as it comes back, by
this process (a cluster's workers too send theirs here), so a tournament stopped half-way keeps
what it played. Progress gives, after each job played, the time its stage has left
(:mod:`verify.pipeline.time_left`).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from verify.contests.contract import Contest, Contestant, Grader, Options, Standings, Tournament
from verify.entries import load_entry
from verify.errors import VerifyError
from verify.pipeline.guard import check_same_files, loaded_digest
from verify.pipeline.match_cache import MatchCache
from verify.pipeline.time_left import TimeLeft, shown
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


@dataclass(frozen=True)
class Played:
    """A job's result and the seconds it took where it ran (for the estimate of the time left)."""

    result: Any
    seconds: float


def play_timed(grader: Grader, sent: SentJob) -> Played:
    """A job: :func:`play_job`, timed."""
    start = time.monotonic()
    result = play_job(grader, sent)
    return Played(result, time.monotonic() - start)


@dataclass
class _Stage:
    """One stage's jobs as the driver plays them: what each sends, its key in the cache, and
    the results known so far (reused ones first)."""

    tournament: Tournament[Any, Any]
    scheduled: Sequence[Any]
    sent: list[SentJob]
    keys: list[str | None]
    results: list[Any]


def _reuse(stage: _Stage, cache: MatchCache | None) -> list[int]:
    """The results the cache holds, with their logs copied where this run logs; the jobs to play."""
    to_play = []
    for index, (job, sent, key) in enumerate(zip(stage.scheduled, stage.sent, stage.keys, strict=True)):
        kept = cache.load(key) if cache is not None and key is not None else None
        if kept is None or (sent.log is not None and kept.log is None) or not _copied(kept.log, sent.log):
            to_play.append(index)
            continue
        stage.results[index] = stage.tournament.relogged(job, kept.result, sent.log)
    return to_play


def _copied(log: bytes | None, path: Path | None) -> bool:
    """The kept log written at ``path`` (True when there is none to write); False when it cannot be."""
    if path is None or log is None:
        return True
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(log)
    except OSError:
        return False
    return True


def _play_stage(grader: Grader, tournament: Tournament[Any, Any], scheduled: Sequence[Any], jobs: int,
                log_dir: Path | None, digests: Mapping[Path, str], progress: Progress,
                cache: MatchCache | None) -> list[Any]:
    def log_path(job: Any) -> Path | None:
        name = tournament.log_name(job)
        return None if log_dir is None or name is None else log_dir / name

    runs = [[(program, digests.get(program.folder, "")) for program in tournament.programs(job)] for job in scheduled]
    sent = [SentJob(tournament, job, log_path(job), tuple((program.folder, digest) for program, digest in programs))
            for job, programs in zip(scheduled, runs, strict=True)]
    keys = [None if cache is None else cache.key(job, programs) for job, programs in zip(scheduled, runs, strict=True)]
    stage = _Stage(tournament, scheduled, sent, keys, [None] * len(sent))
    to_play = _reuse(stage, cache)
    reused = len(sent) - len(to_play)
    if cache is not None:
        cache.reused += reused
        cache.played += len(to_play)
    if reused:
        progress(f"{reused} of {len(sent)} reused from the cache, {len(to_play)} to play")
    order = sorted(to_play, key=lambda index: -tournament.cost(scheduled[index]))   # stable
    left = TimeLeft([tournament.cost(scheduled[index]) for index in order])
    done = 0

    def finished(position: int, played: Played) -> None:
        nonlocal done
        done += 1
        index = order[position]
        key = keys[index]
        if cache is not None and key is not None:
            cache.store(key, played.result, sent[index].log)    # here, in the command's process
        left.done(position, played.seconds)
        seconds = left.seconds()
        estimate = f" ({shown(seconds)} left)" if seconds and done < len(order) else ""
        progress(one_line(f"[{done}/{len(order)}] {tournament.describe(scheduled[index], played.result)}") + estimate)

    outcomes = grader.map(play_timed, [sent[index] for index in order], jobs, finished)
    for index, outcome in zip(order, outcomes, strict=True):
        stage.results[index] = outcome.result
    return stage.results


def play_tournament(grader: Grader, contest: Contest[Options, Any], contestants: Sequence[Contestant[Options]],
                    options: object, *,
                    jobs: int = 2, log_dir: Path | None = None,
                    progress: Progress = lambda message: None, cache: MatchCache | None = None) -> Standings:
    """The contest's tournament among ``contestants``, ``jobs`` at once here (a cluster uses its
    workers'), its logs under ``log_dir``, the results ``cache`` keeps reused and the others kept
    there; its standings."""
    tournament = tournament_of(contest)
    _names_unique(contestants)
    broken, digests = _builds(grader, contest, contestants, jobs)
    results: list[list[Any]] = []
    for stage in range(tournament.stages):
        scheduled = list(tournament.schedule(stage, contestants, options, broken, results))
        results.append(_play_stage(grader, tournament, scheduled, jobs, log_dir, digests, progress, cache))
    return tournament.standings(contestants, options, results)
