"""The contract between the core and a contest: everything the core may ask of one.

A contest is rules only. It never starts a process: it says what to run
(cases, or tasks for entries that bring several programs), judges what a
program printed (:class:`StreamJudge`), plays an interactive match through an
``ask`` function the core gives it, and says how entries are scored. The core
(:mod:`verify.grading`) runs the programs and turns runs into verdicts.

A contest is generic over two types of its own: ``Options``, what its ``parse_options``
makes of an entry's table (handed back to every other method), and ``Payload``, what it
derived of a case when it made one (the parsed map or puzzle, the expected output), carried
by :class:`TestCase` for its judge, fuzzer and presenter. The core never looks inside either.

A contest is a :class:`Contest` subclass instance; the built-in ones are the
subpackages of :mod:`verify.contests` (each exposes ``CONTEST``), others are
installed packages (entry-point group ``verify.contests``) or folders given
with ``--contest-path`` (see docs/contests.md).
"""
from __future__ import annotations

import enum
import importlib
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from verify.errors import VerifyError
from verify.runner import Limits, Program
from verify.verdict import Verdict

Options = TypeVar("Options")
"""A contest's parsed entry table (what its ``parse_options`` returns)."""
Payload = TypeVar("Payload")
"""What a contest keeps of a case beside its input (what its judge reads)."""


class Scoring(enum.Enum):
    """How a contest ranks its entries."""

    BYTES = "bytes"            # code golf: entries that pass every case, by source bytes (+ flag penalties)
    TOURNAMENT = "tournament"  # King of the Hill: entries meet each other; ranked by mean score

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class TestCase(Generic[Payload]):
    """One input a program is judged on. ``payload``: what the contest derived of it when it
    made the case (None for a case made elsewhere, from its input alone)."""

    __test__ = False  # not a pytest class

    name: str
    input: bytes                      # given on standard input
    path: Path | None = None          # where it came from, for reports
    args: tuple[str, ...] = ()        # given as command-line arguments when the entry asks
    payload: Payload | None = field(default=None, compare=False)


class StreamJudge(Protocol):
    """Judges a program's stdout as it arrives; memory bounded by the state, not the output."""

    def feed(self, chunk: bytes) -> Verdict | None:
        """Take the next chunk. Return a verdict to stop the program early (a rejection), else None."""

    def finish(self) -> Verdict:
        """The program exited normally and its output ended: the final verdict."""


@dataclass(frozen=True)
class Reply:
    """What one request of an interactive match got back: a line, or why there is none."""

    line: str | None = None
    failure: str | None = None     # "time limit: ...", "runtime error: exit code 1", "no answer", ...


Ask = Callable[[bytes], Reply]
"""Sends one request (a state) to the program and returns its reply; given by the core."""


@dataclass(frozen=True)
class BatchTask:
    """One run of a program on one input, its output streamed into ``judge()``.

    ``strict_exit``: a non-zero exit code fails the run even after an accepted output."""

    name: str
    program: Program
    stdin: bytes
    judge: Callable[[], StreamJudge]
    args: tuple[str, ...] = ()
    limits: Limits | None = None      # None: the limits of the check
    strict_exit: bool = True


@dataclass(frozen=True)
class InteractiveTask:
    """A match: ``play(ask)`` sends requests through ``ask`` and returns the verdict.

    ``persistent``: one process answers request after request (restarted after a
    failure); otherwise a fresh process per request, answering its first line."""

    name: str
    program: Program
    play: Callable[[Ask], Verdict]
    persistent: bool
    limits: Limits                     # each request's run; a persistent process's whole life
    step_timeout: float                # seconds to answer one request


Task = BatchTask | InteractiveTask
T = TypeVar("T")
R = TypeVar("R")


class Grader(Protocol):
    """What a contest's tournament may ask of the core: runs, never processes of its own."""

    def broken(self, program: Program) -> str | None:
        """Why ``program`` cannot run (it does not build, its interpreter is missing), or None."""

    def run_batch(self, task: BatchTask) -> tuple[Verdict, float]:
        """The verdict of one batch run, and its wall time in seconds."""

    def interactive(self, program: Program, persistent: bool, limits: Limits,
                    step_timeout: float) -> AbstractContextManager[Ask]:
        """An ``ask`` function for one match (see :class:`InteractiveTask`); its processes
        end when the context ends."""

    def map(self, job: Callable[[Grader, T], R], items: Sequence[T], parallel: int,
            on_done: Callable[[int, R], None] | None = None) -> list[R]:
        """``job(grader, item)`` for every item, the results in the items' order; ``on_done(index,
        result)`` as each finishes. The jobs run in threads here or on the workers of a cluster:
        ``job`` is a module-level function, items and results plain data (they may be pickled)."""


class Contest(ABC, Generic[Options, Payload]):
    """A contest. Subclasses set the class attributes and implement the rules, naming their
    options and case payload: ``class EchoContest(Contest[EchoOptions, bytes])``
    (``None`` for a payload it has no use for)."""

    name: ClassVar[str]
    title: ClassVar[str]
    scoring: ClassVar[Scoring]
    judge_beside_run: ClassVar[bool] = False
    """Whether the core feeds this contest's judge on a worker thread while the program runs
    (worth it when the judge's replay releases the GIL, as a compiled loop does)."""
    flag_rule: ClassVar[str] = "penalty"
    """Code golf: how interpreter flags count (verify/golf.py). "penalty": the classic Code Golf
    Stack Exchange rule, a flag costs what it adds to the plain invocation (`254 + 1 = 255`);
    "language": the current one, a language with flags is another language (no penalty, a
    board of its own)."""
    speed_table: ClassVar[bool] = False
    """Code golf: whether the contest's rules rank entries by speed too, in a second table
    (``verify speed``, which with no contest named gives the tables of every such contest)."""
    commands: ClassVar[Mapping[str, str]] = {}
    """The contest's own commands, as ``"module:attribute"`` of click commands, imported only
    when used: under ``judge``, ``solve``, ``gen`` or ``koth`` (``verify judge <name>``), and
    ``""`` for a group of its own (``verify <name> ...``)."""
    cache_folders: ClassVar[Mapping[str, str]] = {}
    """Folders of verify's cache this contest keeps its own builds in (a compiled kernel), each
    with what it holds for people: ``{"echo-kernel": "echo kernel builds"}``. ``verify cache``
    lists, prunes and clears them with the core's own parts."""

    @abstractmethod
    def parse_options(self, entry: str, table: dict[str, Any], folder: Path) -> Options:
        """Validate the contest's own table of entry.toml (``[<name>]``); raise EntryError naming the field."""

    def needs_program(self) -> bool:
        """Whether an entry must name one program (``language`` and ``source``) run on the cases."""
        return self.scoring is Scoring.BYTES

    def testcases(self, root: Path) -> list[TestCase[Payload]]:
        """The cases under ``root`` (normally ``testcases/<name>/``), in a stable order."""
        return []

    def entry_cases(self, options: Options, folder: Path) -> list[TestCase[Payload]]:
        """Extra cases an entry brings with it (a demo case its table names); checked like the others."""
        return []

    def input_for(self, options: Options, case: TestCase[Payload]) -> TestCase[Payload]:
        """The case as this entry reads it (in the symbols its table chose); by default the case itself."""
        return case

    def judge(self, options: Options, case: TestCase[Payload]) -> StreamJudge:
        """A fresh judge for one run of an entry (with its parsed options) on one case."""
        raise NotImplementedError(f"{self.name} entries are not judged on cases")

    def entry_tasks(self, options: Options) -> Sequence[Task]:
        """What ``verify check`` runs for an entry without a program of its own (its roles)."""
        return []

    def programs(self, options: Options) -> Iterator[Program]:
        """The programs an entry's contest table declares (built before anything runs)."""
        return iter(())

    def fuzzer(self, options: Options, budget: FuzzBudget) -> Fuzzer[Payload] | None:
        """Generated inputs for an entry (``verify fuzz``, ``check --fuzz``); None: the contest has none."""
        return None

    presenter: ClassVar[str] = ""
    """What the site shows of this contest beyond its verdicts, as ``"module:attribute"`` of a
    :class:`Presenter`, imported only when a site is written; ``""``: the verdicts only."""

    def load_presenter(self) -> Presenter[Options, Payload] | None:
        """The contest's :class:`Presenter` (see :attr:`presenter`), or None."""
        if not self.presenter:
            return None
        found = self.load_part("presenter", self.presenter)
        if not isinstance(found, Presenter):
            raise VerifyError(f"contest {self.name}: its presenter {self.presenter} is not a Presenter")
        return found

    tournament: ClassVar[str] = ""
    """King of the Hill: the contest's :class:`Tournament`, as ``"module:attribute"``, imported only
    when one is played (``verify koth <name>``); ``""``: entries do not meet each other."""

    def load_tournament(self) -> Tournament[Options, Any] | None:
        """The contest's :class:`Tournament` (see :attr:`tournament`), or None."""
        if not self.tournament:
            return None
        found = self.load_part("tournament", self.tournament)
        if not isinstance(found, Tournament):
            raise VerifyError(f"contest {self.name}: its tournament {self.tournament} is not a Tournament")
        return found

    def load_part(self, part: str, path: str) -> object:
        """A part of the contest named ``module:attribute`` (a command, its presenter, its
        tournament), imported; one that fails to load is one line naming the contest (exit 2)."""
        module, _, attribute = path.partition(":")
        try:
            return getattr(importlib.import_module(module), attribute)
        except Exception as error:      # the contest's code, whatever it raises
            raise VerifyError(f"contest {self.name}: its {part} {path} failed to load: "
                              f"{type(error).__name__}: {error}") from None


@dataclass(frozen=True)
class FuzzBudget:
    """How large generated inputs may be: ``--max-size`` and ``--step-timeout`` (None: the contest's own)."""

    max_size: int | None = None
    step_timeout: float | None = None


class Fuzzer(ABC, Generic[Payload]):
    """A contest's generated inputs for one entry, and the steps that shrink one. Pure: it
    never starts a process. An input is any hashable value; :meth:`work` turns it into
    what the core grades: a case (graded as the entry's own cases are) or a task."""

    budget: str = ""      # what is generated, one line for the report
    subject: str = ""     # the entry's programs fuzzed, when it has several ("architect and solver")

    @abstractmethod
    def generate(self, rng: random.Random) -> Hashable:
        """One input, from a generator seeded for it alone."""

    @abstractmethod
    def shrink_steps(self, value: Any) -> Iterable[Hashable]:
        """Inputs one step smaller than ``value``, the most promising first."""

    @abstractmethod
    def work(self, value: Any, name: str) -> TestCase[Payload] | Task:
        """What the core runs and judges for ``value``, named ``name``."""

    def judge(self, case: TestCase[Payload]) -> StreamJudge | None:
        """A judge for a generated case that also names the failure class (None: the contest's own)."""
        return None

    @abstractmethod
    def failure_kind(self, verdict: Verdict) -> str:
        """The class a failure belongs to; a shrink keeps only variants that fail in the same class."""

    def kind_slug(self, kind: str) -> str:
        """A file name for a failure class: ``wrong answer: TileOverNine`` -> ``tile-over-nine``."""
        words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", kind.rpartition(": ")[2] or kind)
        return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")

    @abstractmethod
    def show(self, value: Any) -> str:
        """``value`` for people."""

    def file_text(self, value: Any) -> str:
        """``value`` as a test case file (by default as shown)."""
        return self.show(value)

    @abstractmethod
    def parse(self, data: bytes, source: str) -> Hashable:
        """An input read back from a saved file; an InputError naming ``source`` when malformed."""

    @abstractmethod
    def size(self, value: Any) -> dict[str, int]:
        """How big ``value`` is, for reports and tests."""


# ---------------------------------------------------------------- what the site shows of a contest

@dataclass(frozen=True)
class Page:
    """A page (or a part of one) of the site: a template and its values. A template is named
    ``"package:path"`` (a contest's own, e.g. ``"verify_echo:templates/echo.html"``)
    or by its bare name among the site's generic templates (``base.html``, ``replay_head.html``,
    ``controls.html``), which a contest's templates may extend or include. Everything an entry
    printed or named goes in the values, never in a template's name."""

    template: str
    values: Mapping[str, Any] = field(default_factory=dict)


Drawing = Page
"""An SVG picture: its template and values, drawn by the site (in a page: ``{{ value | draw }}``)."""


class Captured(Protocol):
    """What the site kept of one output: its first and last bytes and its length."""

    @property
    def head(self) -> bytes | bytearray: ...

    @property
    def tail(self) -> bytes: ...

    @property
    def total(self) -> int: ...

    def output(self) -> bytes | None:
        """The whole output when nothing of it was dropped, else None."""


@dataclass(frozen=True)
class CaseJob:
    """Work a case's page needs that may be done in a helper process while the other cases run:
    ``function(captured, *args)`` (a module-level function, picklable arguments). Its result is
    used for a page only when the page's own job has the same ``key`` and the output kept is
    the one it was built from."""

    function: Callable[..., Any]
    args: tuple[Any, ...]
    key: object         # compared with ==


class PagePlace(Protocol):
    """Where a presenter's extra pages go (the site names the files)."""

    def place(self, folder: str, name: str, page: Page) -> str:
        """Write ``page`` as a page of ``folder`` named after ``name``; its path from the site's root."""


class Presenter(Generic[Options, Payload]):
    """What the site asks of a contest: the page of one case of an entry (its replay), the work
    that page needs (done ahead when it can be), the board of a tournament, and the script and
    styles its pages use. Pure: it never writes a file; the site renders its pages. By default
    a contest shows its verdicts only."""

    scripts: tuple[str, ...] = ()
    """Its pages' scripts (``"package:path"``), appended to the site's one script, which gives
    them the replay controls and runs ``replays[kind](data)`` for a page's ``.replay[data-kind]``."""
    styles: tuple[str, ...] = ()
    """Its pages' styles (``"package:path"``), appended to the site's one stylesheet."""

    def case_job(self, options: Options, case: TestCase[Payload], verdict: Verdict) -> CaseJob | None:
        """The work the page of ``case`` needs, from the output kept (None: none)."""
        return None

    def case_page(self, options: Options, case: TestCase[Payload], verdict: Verdict, captured: Captured,
                  built: Any) -> Page | None:
        """The replay page of one case (``built``: the result of :meth:`case_job`, None without
        one); its values are added to the verdict's (``title``, ``status``, ``message``, ...)."""
        return None

    def tournament_board(self, result: Any, pages: PagePlace) -> Page | None:
        """The index's section for a tournament's ``result`` (its match pages placed in ``pages``)."""
        return None


# ---------------------------------------------------------------- a King-of-the-Hill tournament

@dataclass(frozen=True)
class Contestant(Generic[Options]):
    """An entry in a tournament: its name and its parsed contest table."""

    name: str
    options: Options


@dataclass(frozen=True)
class Standing:
    """One row of a board: a contestant, its score (None: nothing to average), the games it
    counts, and the board's other columns."""

    name: str
    score: float | None
    games: int
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Board:
    """A ranked board. ``columns``: after the rank, the name and the score, each ``(key,
    header)``, a key of :attr:`Standing.detail` or ``"games"``. ``caption``: the text table's
    words beside the title; ``about``: Markdown's sentence under it."""

    title: str
    name_header: str
    columns: tuple[tuple[str, str], ...]
    standings: Sequence[Standing]
    caption: str = ""
    about: str = ""


@dataclass(frozen=True)
class Matrix:
    """A score per (row, column) contestant pair; a missing pair is shown as a dash."""

    title: str
    corner: str
    rows: Sequence[str]
    columns: Sequence[str]
    scores: Mapping[str, Mapping[str, float | None]]
    caption: str = ""
    about: str = ""


@dataclass(frozen=True)
class Standings:
    """What a tournament ends with, for every report: its boards and matrices, the JSON form
    (``record``) and the contest's own result, for its :class:`Presenter`."""

    title: str
    intro: str
    boards: Sequence[Board]
    matrices: Sequence[Matrix] = ()
    record: Mapping[str, Any] = field(default_factory=dict)
    result: Any = None


@dataclass(frozen=True)
class TournamentOption:
    """An option of ``verify koth <contest>`` of the contest's own: ``--name TEXT``, given to
    :meth:`Tournament.parse_options` as text (None when not given and without a default)."""

    name: str
    help: str
    default: str | None = None


@dataclass(frozen=True)
class TournamentPreset:
    """A named set of a tournament's options (``verify koth <contest> --preset NAME``): each
    option's text by its key (its name without the dashes, ``-`` as ``_``); an option given
    on the command line wins over the preset's."""

    name: str
    help: str
    values: Mapping[str, str]


KothOptions = TypeVar("KothOptions")
"""A tournament's own options (what its ``parse_options`` makes of ``verify koth``'s)."""


class Tournament(ABC, Generic[Options, KothOptions]):
    """King of the Hill: what the core's driver asks of a contest. Pure: it never starts a
    process of its own, its matches run over the :class:`Grader`.

    The driver builds every program first, then plays :attr:`stages` rounds of jobs: the jobs
    of a stage are scheduled from the results of the stages before (a first stage has each
    entry build a board, a second has the entries play on them). A job is plain, hashable data (it may
    be pickled to a cluster's worker), and so is the result of :meth:`play`. The driver keeps each
    result between runs under the job and the files of the programs it runs
    (:mod:`verify.pipeline.match_cache`): a job holds everything its result depends on."""

    stages: ClassVar[int] = 1
    options: ClassVar[tuple[TournamentOption, ...]] = ()
    presets: ClassVar[tuple[TournamentPreset, ...]] = ()

    @abstractmethod
    def parse_options(self, values: Mapping[str, str | None]) -> KothOptions:
        """The tournament's options from the text of :attr:`options` (keyed by their names
        without the dashes, ``-`` as ``_``); a VerifyError naming the option when one is bad."""

    @abstractmethod
    def schedule(self, stage: int, contestants: Sequence[Contestant[Options]], options: KothOptions,
                 broken: Mapping[Program, str], earlier: Sequence[Sequence[Any]]) -> Sequence[Hashable]:
        """The jobs of ``stage`` (from 0): ``broken`` says why a program cannot run; ``earlier``
        holds the results of each stage before, in the order of its jobs."""

    @abstractmethod
    def play(self, grader: Grader, job: Any, log: Path | None) -> Any:
        """One job over the grader; its log (JSON lines) written to ``log`` when given."""

    @abstractmethod
    def standings(self, contestants: Sequence[Contestant[Options]], options: KothOptions,
                  results: Sequence[Sequence[Any]]) -> Standings:
        """The boards, from every stage's results (each in the order of its jobs)."""

    def programs(self, job: Any) -> Sequence[Program]:
        """The programs ``job`` runs: a worker checks their folders are the ones loaded."""
        return ()

    def describe(self, job: Any, result: Any) -> str:
        """One progress line for a job done."""
        return str(job)

    def log_name(self, job: Any) -> str | None:
        """Where ``job`` logs, as a path under the tournament's log folder (None: no log)."""
        return None

    def relogged(self, job: Any, result: Any, log: Path | None) -> Any:
        """``result``, kept from an earlier run, as :meth:`play` would have returned it with its
        log at ``log`` (the kept log is copied there): a result that names its log names this one."""
        return result

    def cost(self, job: Any) -> float:
        """How long ``job`` takes, relatively: the costliest of a stage start first, so that every
        worker stays busy to the end."""
        return 1.0
