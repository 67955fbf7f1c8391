"""The desert replay loop by itself: this checkout's C loop against a commit's numba loop.

Builds the recursive-caching C entry (submissions/desert/recursive-c), saves its output on a
straight one-row map at distance --distance (standard notation, "D+0\\n": 4 bytes a turn), and
replays that output attempt by attempt with the compiled loop alone, 64 KiB a call, as the
judge calls it (no Python work between calls beyond the call). Each round times this
checkout's loop (``kernel.c`` through ctypes) and, when numba and numpy are installed, the
numba loop of ``--against REF`` (its ``kernel_jit.py``, read with ``git show``, compiled with
``numba.njit``), alternated, so the machine's noise hits both alike. Prints the medians in
MB/s and M turns/s per CPU second and their ratio; asserts nothing.

``--notation lrud-xy`` replays instead the output of the golfed Perl entry in that notation
(submissions/desert/perl-lrud-xy: "DXUUU ", about 1.5 bytes a turn, the final map first)
(the numba loop read the standard notation's output only in this benchmark). ``--against-c REF``
adds the C loop of commit REF (its ``kernel.c``, compiled with this checkout's header and flags),
alternated with this checkout's, in either notation.

    python3 tests/benchmarks/bench_desert_loop.py [--distance 24] [--rounds 5] [--against REF]
                                                  [--notation standard|lrud-xy] [--against-c REF]
"""
from __future__ import annotations

import argparse
import ctypes
import statistics
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from verify.contests.desert.kernel import (  # noqa: E402
    REPLAY_ARGUMENTS,
    Digest,
    Params,
    State,
    byte_view,
    compiled_replay,
)
from verify.contests.desert.kernel_build import FLAGS, compiler_path, constants_header  # noqa: E402
from verify.contests.desert.kernel_tables import (  # noqa: E402
    P_END,
    P_HEIGHT,
    P_START,
    P_WIDTH,
    R_DEATH,
    R_WIN,
    S_STOP,
    S_TURNS,
    STATE_COUNT,
    TABLE_ROWS,
    compile_notation,
)
from verify.contests.desert.map import DesertMap  # noqa: E402
from verify.contests.desert.notation import LRUD_XY, STANDARD, Notation  # noqa: E402

ENTRY = ROOT / "submissions" / "desert" / "recursive-c"
LRUD_XY_ENTRY = ROOT / "submissions" / "desert" / "perl-lrud-xy"
CHUNK = 1 << 16
OLD_DEFAULT = "66e7958"      # the last commit with the numba loop


def the_output(distance: int, scratch: Path) -> tuple[DesertMap, bytes]:
    binary = scratch / "desert"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(ENTRY / "desert.c")], check=True)
    map_bytes = b"S" + b"." * (distance - 1) + b"E\n"
    output = subprocess.run([str(binary)], input=map_bytes, capture_output=True, check=True).stdout
    return DesertMap.parse(map_bytes), output


def lrud_xy_output(distance: int) -> tuple[DesertMap, bytes]:
    """The Perl lrud-xy entry's moves on a straight map (its final map, printed first, cut off)."""
    map_bytes = b"S" + b"." * (distance - 1) + b"E\n"
    output = subprocess.run(["perl", str(LRUD_XY_ENTRY / "golf.pl")], input=map_bytes, capture_output=True,
                            check=True).stdout
    desert = DesertMap.parse(map_bytes)
    moves = output
    for _ in range(desert.height):
        moves = moves[moves.index(b"\n") + 1:]
    return desert, moves


def params_of(desert: DesertMap, notation: Notation = STANDARD) -> list[int]:
    compiled = compile_notation(notation)
    assert compiled is not None, f"{notation.name}: not a notation the compiled loop reads"
    params = list(compiled.params)
    params[P_WIDTH], params[P_HEIGHT] = desert.width, desert.height
    params[P_START] = desert.start[0] * desert.width + desert.start[1]
    params[P_END] = desert.end[0] * desert.width + desert.end[1]
    return params


def replay_all(desert: DesertMap, output: bytes, call: Callable, fresh: Callable) -> tuple[float, int, int]:
    """(CPU seconds inside the loop's calls, turns, bytes read) over the whole output, attempt by attempt
    (CPU time: on a shared machine, wall time would also count the waits for a core)."""
    spent, turns, read, position = 0.0, 0, 0, 0
    while position < len(output):
        arrays = fresh()
        begun, first = time.process_time(), position
        while position < len(output):
            stop = min(len(output), position + CHUNK)
            reason, position, played = call(arrays, output, position, stop)
            if reason != 0:
                break
        spent += time.process_time() - begun
        read += position - first
        turns += played
        if reason == R_WIN or position >= len(output):
            break
        rows = desert.height + (0 if output[position - 1] == 10 else 1)
        for _ in range(rows):             # past the stopping line's end and the map block
            position = output.find(b"\n", position) + 1
        if reason not in (R_DEATH, R_WIN):
            break
    return spent, turns, read


def old_c_replay(reference: str, scratch: Path) -> Callable[..., int] | None:
    """The C loop of commit ``reference`` (None if that commit has no kernel.c or it does not build)."""
    shown = subprocess.run(["git", "show", f"{reference}:verify/contests/desert/kernel.c"], cwd=ROOT,
                           capture_output=True, text=True)
    compiler = compiler_path()
    if shown.returncode != 0 or compiler is None:
        return None
    (scratch / "kernel.c").write_text(shown.stdout)
    (scratch / "kernel_constants.h").write_text(constants_header())
    library = scratch / "old_kernel.so"
    built = subprocess.run([compiler, *FLAGS, "-I", str(scratch), "-o", str(library), str(scratch / "kernel.c")],
                           capture_output=True)
    if built.returncode != 0:
        return None
    replay = ctypes.CDLL(str(library)).desert_replay
    replay.argtypes = REPLAY_ARGUMENTS
    replay.restype = ctypes.c_int64
    return replay


def c_loop(desert: DesertMap, output: bytes, notation: Notation = STANDARD,
           replay: Callable[..., int] | None = None) -> tuple[float, int, int]:
    replay = replay or compiled_replay()
    assert replay is not None, "no C compiler: no compiled loop"
    compiled = compile_notation(notation)
    assert compiled is not None
    tables = compiled.tables
    params = Params(*params_of(desert, notation))

    def fresh():
        water, visited = bytearray(desert.flat_water()), bytearray(desert.width * desert.height)
        state = State()
        state[0], state[1] = params[P_START], 5
        return state, Digest(), byte_view(water), byte_view(visited), water, visited

    def call(arrays, data, position, stop):
        state, digest, water, visited = arrays[:4]
        chunk = data[position:stop]           # the judge hands the loop one chunk at a time
        reason = replay(chunk, 0, stop - position, stop == len(data), tables, params, water, visited, state, digest)
        return reason, position + state[S_STOP], state[S_TURNS]

    return replay_all(desert, output, call, fresh)


def numba_loop(reference: str) -> Callable | None:
    """The numba loop of commit ``reference`` (None without numba, numpy, or that file)."""
    try:
        import numba
        import numpy  # noqa: F401
    except ImportError:
        return None
    shown = subprocess.run(["git", "show", f"{reference}:verify/contests/desert/kernel_jit.py"], cwd=ROOT,
                           capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    module = types.ModuleType("old_kernel_jit")
    exec(compile(shown.stdout, f"{reference}:kernel_jit.py", "exec"), module.__dict__)
    return numba.njit(nogil=True, boundscheck=False)(module.replay)


def old_loop(replay: Callable, desert: DesertMap, output: bytes) -> tuple[float, int, int]:
    import numpy as np
    flat = np.zeros(TABLE_ROWS * 256, dtype=np.int64)
    compiled = compile_notation(STANDARD)
    assert compiled is not None
    flat[:] = list(compiled.tables)
    params = np.array(params_of(desert), dtype=np.int64)

    def fresh():
        state = np.zeros(STATE_COUNT, dtype=np.int64)
        state[0], state[1] = params[P_START], 5
        water = np.frombuffer(bytearray(desert.flat_water()), dtype=np.uint8)
        return state, np.zeros(2, dtype=np.uint64), water, np.zeros(desert.width * desert.height, dtype=np.uint8)

    def call(arrays, data, position, stop):
        state, digest, water, visited = arrays
        chunk = np.frombuffer(data[position:stop], dtype=np.uint8)
        reason = replay(chunk, 0, stop - position, stop == len(data), flat, params, water, visited, state, digest)
        return reason, position + int(state[S_STOP]), int(state[S_TURNS])

    return replay_all(desert, output, call, fresh)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--distance", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", default=OLD_DEFAULT, help="the commit whose numba loop to compare with")
    parser.add_argument("--notation", choices=("standard", "lrud-xy"), default="standard",
                        help="lrud-xy: replay the Perl lrud-xy entry's output")
    parser.add_argument("--against-c", metavar="REF", help="also the C loop of this commit, side by side")
    options = parser.parse_args()
    notation = LRUD_XY if options.notation == "lrud-xy" else STANDARD
    if notation is LRUD_XY:
        desert, output = lrud_xy_output(options.distance)
        old = None
    else:
        with tempfile.TemporaryDirectory() as scratch:
            desert, output = the_output(options.distance, Path(scratch))
        old = numba_loop(options.against)
    loops: dict[str, Callable[[], tuple[float, int, int]]] = {
        "C (ctypes)": lambda: c_loop(desert, output, notation)}
    scratch_c = tempfile.TemporaryDirectory()
    if options.against_c:
        old_c = old_c_replay(options.against_c, Path(scratch_c.name))
        if old_c is None:
            print(f"no C loop at {options.against_c} (or it does not build)")
        else:
            loops[f"C ({options.against_c})"] = lambda: c_loop(desert, output, notation, old_c)
    if old is not None:
        old_loop(old, desert, output[:1 << 16])        # compiles before the clock
        loops[f"numba ({options.against})"] = lambda: old_loop(old, desert, output)
    elif notation is STANDARD:
        print(f"no numba loop to compare with (numba/numpy missing, or {options.against} has none)")
    times: dict[str, list[float]] = {name: [] for name in loops}
    counted: dict[str, tuple[int, int]] = {}
    for _ in range(options.rounds):
        for name, run in loops.items():
            spent, turns, read = run()
            times[name].append(spent)
            counted[name] = (turns, read)
    print(f"distance {options.distance}, notation {notation.name}: {len(output)} bytes of output, {options.rounds} rounds, medians "
          "(the machine may be shared: compare the ratio, measured side by side)")
    for name, values in times.items():
        turns, read = counted[name]
        median = statistics.median(values)
        print(f"  {name:<22} {median:7.3f} CPU s  {read / median / 1e6:7.0f} MB/s  {turns / median / 1e6:6.0f} M turns/s")
    new, *others = list(times)
    for other in others:
        assert counted[new] == counted[other], counted
        ratio = statistics.median(times[other]) / statistics.median(times[new])
        print(f"  this checkout's C loop is {ratio:.2f}x the speed of {other}")
    scratch_c.cleanup()


if __name__ == "__main__":
    main()
