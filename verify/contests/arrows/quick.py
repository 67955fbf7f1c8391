"""``verify gen arrows`` as a quick command (:mod:`verify.contests.quick`): the options of the
click command (:func:`.cli.gen_command`) read here, the compiled generator run, the same output
written. It imports neither click nor the model nor the solver, nor ctypes and random: the
generator runs as a program of its own (``generate_main.c``, built into the cache beside the
library and checked as it is), started with the key of the seed's random numbers, and writes
its puzzle back through a pipe.

It takes only what it reads exactly as the click command does: each option at most once,
written ``--name VALUE`` or ``--name=VALUE``, integers in plain decimal, a notation by its exact
name, a board the generator accepts. Anything else (``--help``, an unknown or repeated option,
``+5``, a board too big, no compiled generator) returns False with nothing written, and the
click command runs instead, with its own help and messages.
"""
from __future__ import annotations

import os
import sys
import time

from verify.contests.arrows.generation import (
    DEFAULT_MAX_NODES,
    MAX_GENERATION_CELLS,
    NO_BUDGET_REACHED,
    seed_key,
    seed_text,
)
from verify.contests.arrows.text import NOTATIONS, board_text

TYPE_CHECKING = False     # (typing.TYPE_CHECKING without importing typing: this runs at every quick start)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

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


def gen(arguments: Sequence[str]) -> bool:
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
    if (rows is None or cols is None or seed is None or notation not in NOTATIONS or max_nodes is None or max_nodes < 1
            or rows < 1 or cols < 1 or not 2 <= rows * cols <= MAX_GENERATION_CELLS):
        return False
    assert isinstance(notation, str)
    started = time.perf_counter()
    generated = _generated(rows, cols, seed, bool(given.get("--hard")), max_nodes)
    if generated is None:
        return False            # (no program, or it failed: the click command says why, its way)
    arrows, solution, givens, nodes, branches = generated
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


def _generated(rows: int, cols: int, seed: int, hard: bool,
               max_nodes: int) -> tuple[Sequence[int], Sequence[int], Sequence[int], int, int] | None:
    """What :func:`.library.generate` gives (the solution's arrows and numbers, the givens, the
    search nodes and branching points), from the generator's program; None when there is no
    program or it did not give it all."""
    from verify.contests.arrows.kernel_build import program_path
    program = program_path()
    if program is None:
        return None
    arguments = [program, str(rows), str(cols), "0", "1", "1" if hard else "0", str(min(max_nodes, NO_BUDGET_REACHED)),
                 seed_key(seed_text(rows, cols, seed))]
    import _signal  # type: ignore[import-not-found]  # (signal without its enums: no stubs)
    reader, writer = os.pipe()
    try:
        # its stdout the pipe (stdin and stderr are verify's), SIGPIPE the default again (Python ignores it)
        process = os.posix_spawn(program, arguments, {}, file_actions=[(os.POSIX_SPAWN_DUP2, writer, 1)],
                                 setsigdef=(_signal.SIGPIPE,))
    except OSError:
        os.close(reader)
        return None
    finally:
        os.close(writer)
    chunks = []
    with open(reader, "rb", buffering=0) as output:
        while chunk := output.read(1 << 16):
            chunks.append(chunk)
    _, status = os.waitpid(process, 0)
    data, size = b"".join(chunks), rows * cols
    if os.waitstatus_to_exitcode(status) or len(data) != 12 * size + 16:
        return None
    cells, figures = memoryview(data[:12 * size]).cast("i"), memoryview(data[12 * size:]).cast("q")
    return cells[:size], cells[size:2 * size], cells[2 * size:], figures[0], figures[1]


def _write(stream: TextIO, text: str) -> None:
    """As click.echo writes: the text, then a flush."""
    stream.write(text)
    stream.flush()


COMMANDS = {"gen": gen}
