"""``verify gen arrows`` as a quick command (:mod:`verify.contests.quick`): the options of the
click command (:func:`.cli.gen_command`) read here, the compiled generator called, the same
output written. It imports neither click nor the model nor the solver.

It takes only what it reads exactly as the click command does: each option at most once,
written ``--name VALUE`` or ``--name=VALUE``, integers in plain decimal, a notation by its exact
name, a board the generator accepts. Anything else (``--help``, an unknown or repeated option,
``+5``, a board too big, no compiled generator) returns False with nothing written, and the
click command runs instead, with its own help and messages.
"""
from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from verify.contests.arrows.library import DEFAULT_MAX_NODES, MAX_GENERATION_CELLS, generate, library
from verify.contests.arrows.text import NOTATIONS, board_text

if TYPE_CHECKING:
    from verify.settings import Settings

VALUES = ("--size", "--rows", "--cols", "--seed", "--arrows", "--max-nodes")
FLAGS = ("--hard", "--solution", "--stats")


def read_options(arguments: Sequence[str]) -> dict[str, str | bool] | None:
    """The options as given (option -> its value, or True for a flag), or None when the
    arguments are not only these options, each once, each as the click command reads it."""
    given: dict[str, str | bool] = {}
    words = list(arguments)
    while words:
        word = words.pop(0)
        name, equals, value = word.partition("=")
        if name in FLAGS and not equals:
            found: str | bool = True
        elif name in VALUES and (equals or words):
            found = value if equals else words.pop(0)
        else:
            return None
        if name in given:
            return None
        given[name] = found
    return given


def _integer(given: dict[str, str | bool], name: str, default: int | None) -> int | None:
    """The option's integer: its default when not given; ValueError unless plain decimal."""
    value = given.get(name)
    if value is None:
        return default
    if not isinstance(value, str) or str(int(value)) != value:     # (int() alone takes "+5", " 5", "5_0")
        raise ValueError(value)
    return int(value)


def gen(arguments: Sequence[str], settings: Settings) -> bool:
    """Run ``verify gen arrows`` on ``arguments`` and return True, or return False having done nothing."""
    given = read_options(arguments)
    if given is None:
        return False
    try:
        size, rows, cols = (_integer(given, name, None) for name in ("--size", "--rows", "--cols"))
        seed = _integer(given, "--seed", 0)
        max_nodes = _integer(given, "--max-nodes", DEFAULT_MAX_NODES)
    except ValueError:
        return False
    notation = given.get("--arrows", "english")
    rows = rows if rows is not None else size
    cols = cols if cols is not None else (size if size is not None else rows)
    if (rows is None or cols is None or notation not in NOTATIONS or max_nodes is None or max_nodes < 1
            or rows < 1 or cols < 1 or not 2 <= rows * cols <= MAX_GENERATION_CELLS):
        return False
    assert isinstance(notation, str)
    started = time.perf_counter()
    lib = library()
    if lib is None:
        return False
    state = random.Random(f"arrows {rows}x{cols} seed {seed}").getstate()[1]
    try:
        arrows, solution, givens, nodes, branches = generate(lib, rows, cols, state, 0, True, bool(given.get("--hard")),
                                                             max_nodes)
    except (MemoryError, RuntimeError):
        return False            # (the click command says so, its way)
    elapsed = time.perf_counter() - started
    _write(sys.stdout, board_text(rows, cols, arrows, givens, notation))
    if given.get("--solution"):
        _write(sys.stderr, board_text(rows, cols, arrows, solution, notation))
    if given.get("--stats"):
        count = sum(1 for number in givens if number)
        nodes_named = f"{nodes} search node{'s' if nodes != 1 else ''}"
        _write(sys.stderr, f"{count} givens of {rows * cols}, difficulty {nodes_named} "
                           f"({branches} branching points), {elapsed * 1000:.0f} ms\n")
    return True


def _write(stream: TextIO, text: str) -> None:
    """As click.echo writes: the text, then a flush."""
    stream.write(text)
    stream.flush()


COMMANDS = {"gen": gen}
