"""The compiled replay loop (numba). Imported only by :mod:`kernel`, lazily: numba is slow to import.

One pass over raw output bytes that tokenises AND replays ordinary turns. It plays a turn
only when the turn is legal and does not reach E, and stops after a turn that kills the
traveller; anything else (an illegal turn, a win, a byte that starts no token, a token of
an unusual shape such as several digits) stops it *before* that token, and the exact
engine reads and plays the token and words the verdict. A token cut by the end of the
bytes given is not consumed either (unless ``final``): the caller hands those few bytes
back with the next chunk.

All state lives in small arrays owned by the caller, so the loop resumes where it stopped.
Every constant comes from :mod:`.rules` (the rules' numbers and moves, as the engine plays
them) or :mod:`.kernel_tables` (the layout of the arrays and codes shared with
:mod:`kernel`); numba compiles their values into the loop.
"""
from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from verify.challenges.desert.kernel_tables import (
    CODE_DIRECTION,
    CODE_KIND,
    K_DROP,
    K_FILL,
    K_PICK,
    MIX1,
    MIX2,
    P_DEFAULT_AMOUNT,
    P_DEFAULT_KIND,
    P_END,
    P_HEIGHT,
    P_ROUTE_SQUARES,
    P_START,
    P_WIDTH,
    R_CHUNK_END,
    R_DEATH,
    R_ILLEGAL,
    R_NOT_A_TOKEN,
    R_OFF_GRID,
    R_WIN,
    S_CARRIED,
    S_DRAWN,
    S_LINE_START,
    S_NEWLINES,
    S_POSITION,
    S_REASON,
    S_STOP,
    S_TURNS,
    SHIFT1,
    SHIFT2,
    T_DIRECTION,
    T_MOD_AMOUNT,
    T_MODIFIER,
    T_SIGN,
    T_SKIP,
)
from verify.challenges.desert.rules import CAPACITY, DELTAS, DIRECTIONS, TILE_LIMIT

# direction index (T_DIRECTION's code - 1) -> row and column step, as the engine moves
DIRECTION_ROWS = np.array([DELTAS[name][0] for name in DIRECTIONS], dtype=np.int64)
DIRECTION_COLS = np.array([DELTAS[name][1] for name in DIRECTIONS], dtype=np.int64)

# offsets of the table rows in the flat table (one base pointer in the loop, not five)
DIRECTION = np.uint64(256 * T_DIRECTION)
SIGN = np.uint64(256 * T_SIGN)
SKIP = np.uint64(256 * T_SKIP)
MODIFIER = np.uint64(256 * T_MODIFIER)
MOD_AMOUNT = np.uint64(256 * T_MOD_AMOUNT)
ROUTE_MIX1 = np.uint64(MIX1)
ROUTE_MIX2 = np.uint64(MIX2)
ROUTE_SHIFT1 = np.uint64(SHIFT1)
ROUTE_SHIFT2 = np.uint64(SHIFT2)
ACTION_BITS = CODE_DIRECTION - 1    # the action part of a turn code
ONE = np.uint64(1)
TWO = np.uint64(2)
THREE = np.uint64(3)
ZERO_BYTE = ord("0")
NINE_BYTE = ord("9")
NEWLINE = ord("\n")

SIGNATURE = "i8(u1[::1], i8, i8, b1, i8[::1], i8[::1], u1[::1], u1[::1], i8[::1], u8[::1])"


def replay(buf, start, end, final, tables, params, water, visited, state, digest):
    """Replay ordinary turns from ``buf[start:end]``; return the stop reason (also in ``state``).

    ``final``: nothing follows ``end`` (a token cut there is complete as it stands).
    ``tables``: the byte tables, flat (row ``T_*`` at ``256 * T_*``).
    ``water`` and ``visited`` are the engine's own flat bytearrays (numpy views);
    ``digest`` the two rolling hashes of the attempt's route so far.
    """
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    start_square = params[P_START]
    end_square = params[P_END]
    default_kind = params[P_DEFAULT_KIND]
    default_amount = params[P_DEFAULT_AMOUNT]
    action_mask = 0 if params[P_ROUTE_SQUARES] != 0 else ACTION_BITS

    size = width * height
    square = state[S_POSITION]
    col = square % width
    carried = state[S_CARRIED]
    drawn = state[S_DRAWN]
    turns = state[S_TURNS]
    h1 = digest[0]
    h2 = digest[1]
    newlines = 0
    line_start = -1
    reason = R_CHUNK_END
    i = start
    while True:
        while i < end and tables[SKIP + np.uint64(buf[np.uint64(i)])] != 0:
            if buf[np.uint64(i)] == NEWLINE:
                newlines += 1
                line_start = i + 1
            i += 1
        if i >= end:
            break
        # fast path: "D+0" and a separator after it, all inside the bytes: one branch
        fast = False
        if i + 4 <= end:
            at = np.uint64(i)          # unsigned indices: no negative-index wraparound code
            direction = tables[DIRECTION + np.uint64(buf[at])] - 1
            kind = tables[SIGN + np.uint64(buf[at + ONE])]
            amount = np.int64(buf[at + TWO]) - ZERO_BYTE
            closing = buf[at + THREE]
            if ((direction >= 0) & (kind != 0) & (amount >= 0) & (amount <= 9)     # the amount: one digit
                    & (tables[SKIP + np.uint64(closing)] != 0)):
                fast = True
                j = i + 4
        if not fast:
            direction = tables[DIRECTION + np.uint64(buf[i])] - 1
            if direction < 0:
                reason = R_NOT_A_TOKEN
                break
            j = i + 1
            if j >= end and not final:
                break                   # cut token: wait for the bytes after it
            if j < end and tables[SIGN + np.uint64(buf[j])] != 0:
                kind = tables[SIGN + np.uint64(buf[j])]
                j += 1
                if j >= end:
                    if final:
                        reason = R_NOT_A_TOKEN
                    break
                amount = np.int64(buf[j]) - ZERO_BYTE
                if amount < 0 or amount > 9:      # not a digit
                    reason = R_NOT_A_TOKEN
                    break
                j += 1
                if j >= end and not final:
                    break               # more digits may follow
                if j < end and buf[j] >= ZERO_BYTE and buf[j] <= NINE_BYTE:
                    reason = R_NOT_A_TOKEN  # several digits: the exact parser reads them
                    break
            elif j < end and tables[MODIFIER + np.uint64(buf[j])] != 0:
                kind = tables[MODIFIER + np.uint64(buf[j])]
                amount = tables[MOD_AMOUNT + np.uint64(buf[j])]
                j += 1
            elif default_kind != 0:
                kind = default_kind
                amount = default_amount
            else:
                reason = R_NOT_A_TOKEN
                break

        # the turn, in the engine's order: move, drink, water action
        new_col = col + DIRECTION_COLS[np.uint64(direction)]
        new_square = square + DIRECTION_COLS[np.uint64(direction)] + DIRECTION_ROWS[np.uint64(direction)] * width
        if new_square < 0 or new_square >= size or new_col < 0 or new_col >= width:
            reason = R_OFF_GRID
            break
        if new_square == end_square:
            reason = R_WIN
            break
        left = carried - 1
        square_at = np.uint64(new_square)
        tile = np.int64(water[square_at])
        if new_square == start_square:      # the well: infinite, dropping there is allowed
            if kind == K_PICK:
                if left + amount > CAPACITY:
                    reason = R_ILLEGAL
                    break
                from_well = amount
            elif kind == K_DROP:
                if amount > left:
                    reason = R_ILLEGAL
                    break
                from_well = -amount
            else:
                from_well = CAPACITY - left
            left += from_well
            drawn += from_well
        elif kind == K_PICK:
            if amount > tile or left + amount > CAPACITY:
                reason = R_ILLEGAL
                break
            water[square_at] = tile - amount
            left += amount
        elif kind == K_DROP:
            if amount > left or tile + amount > TILE_LIMIT:
                reason = R_ILLEGAL
                break
            water[square_at] = tile + amount
            left -= amount
        else:
            taken = min(CAPACITY - left, tile)
            water[square_at] = tile - taken
            left += taken
        visited[square_at] = 1
        square = new_square
        col = new_col
        carried = left
        turns += 1
        # route identity: +0 and -0 are both "no action"; fill stays fill (as the exact path)
        action = kind * CODE_KIND + amount
        if amount == 0 and kind != K_FILL:
            action = 0
        code = np.uint64((direction + 1) * CODE_DIRECTION + (action & action_mask))
        h1 = (h1 ^ code) * ROUTE_MIX1
        h1 ^= h1 >> ROUTE_SHIFT1
        h2 = (h2 + code) * ROUTE_MIX2
        h2 ^= h2 >> ROUTE_SHIFT2
        if fast and closing == NEWLINE:      # the separator the fast path consumed with the token
            newlines += 1
            line_start = j
        i = j
        if left == 0:
            reason = R_DEATH                # played: the caller marks the attempt dead
            break

    state[S_POSITION] = square
    state[S_CARRIED] = carried
    state[S_TURNS] = turns
    state[S_DRAWN] = drawn
    state[S_STOP] = i
    state[S_REASON] = reason
    state[S_NEWLINES] = newlines
    state[S_LINE_START] = line_start
    digest[0] = h1
    digest[1] = h2
    return reason


def jit():
    """``replay`` compiled just in time (cached in __pycache__). No signature given: the
    output buffer may be read-only (bytes) or not, each gets its own cached compilation."""
    return nb.njit(cache=True, nogil=True, boundscheck=False)(replay)


def build_ahead_of_time(name: str, directory: str) -> None:
    """``replay`` compiled into an extension module ``name`` in ``directory`` (imports without numba)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from numba.pycc import CC, compiler

        # numba's compiler module, its Flags swapped for one build (Any: numba's own types forbid that)
        pycc_compiler: Any = compiler
        plain_flags = pycc_compiler.Flags

        def releasing_flags() -> Any:
            # CC.export has no nogil option; its wrapper releases the GIL when the flags say so.
            # Released, the loop replays while the runner's thread reads the next chunk.
            flags = plain_flags()
            flags.release_gil = True
            return flags

        pycc_compiler.Flags = releasing_flags
        try:
            module = CC(name)
            module.output_dir = directory
            module.verbose = False
            module.export("replay", SIGNATURE)(replay)
            module.compile()
        finally:
            pycc_compiler.Flags = plain_flags
