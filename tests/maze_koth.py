"""A maze tournament for tests: the core's driver over the maze's Tournament, its result back."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from verify.contests import get
from verify.contests.contract import Contestant, Grader
from verify.contests.maze.match import DEFAULT_PATIENCE
from verify.contests.maze.play import MazeLimits
from verify.contests.maze.tournament import MazeOptions, TournamentResult
from verify.pipeline.tournament import play_tournament


def run_tournament(grader: Grader, contestants: Sequence[Contestant], sizes: Sequence[int], seeds: Sequence[int], *,
                   jobs: int = 2, limits: MazeLimits = MazeLimits(), log_dir: Path | None = None,
                   patience: int = DEFAULT_PATIENCE,
                   progress: Callable[[str], None] = lambda message: None) -> TournamentResult:
    options = MazeOptions(tuple(sizes), tuple(seeds), limits, patience)
    standings = play_tournament(grader, get("maze"), contestants, options, jobs=jobs, log_dir=log_dir,
                                progress=progress)
    return standings.result
