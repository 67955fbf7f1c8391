"""The compiled replay loop (numba). Imported only by :mod:`kernel`, lazily: numba is slow to import.

One pass over raw output bytes that tokenises AND replays ordinary turns. It plays a turn
only when the turn is legal and does not reach E, and stops after a turn that kills the
traveller; anything else (an illegal turn, a win, a byte that starts no token, a token of
an unusual shape such as several digits) stops it *before* that token, and the exact engine reads and plays the
token and words the verdict. A token cut by the end of the bytes given is not consumed
either (unless ``final``): the caller hands those few bytes back with the next chunk.

All state lives in small arrays owned by the caller, so the loop resumes where it stopped.
Keep the constants below in step with ``kernel_tables`` and ``kernel`` (which must not
import this module eagerly).
"""
from __future__ import annotations

import numba as nb
import numpy as np

# rows of the byte tables (passed flat: row r at offset 256 * r)
T_DIRECTION = 0     # 1 + direction index (U D L R), 0: not a direction
T_SIGN = 1          # action kind of a sign that ONE digit follows (1 pick, 2 drop), else 0
T_MODIFIER = 2      # action kind of a one-byte modifier (1 pick, 2 drop, 3 fill), else 0
T_MOD_AMOUNT = 3    # its amount
T_SKIP = 4          # 1: a separator, skipped between tokens

# params
P_DEFAULT_KIND = 0      # action kind of a bare direction (0: a bare direction is not a token)
P_DEFAULT_AMOUNT = 1
P_ROUTE_SQUARES = 2     # 1: a route is the squares visited only (the directions)
P_WIDTH = 3
P_HEIGHT = 4
P_START = 5             # flat index of S
P_END = 6               # flat index of E

# state
S_POSITION = 0      # flat index of the traveller
S_CARRIED = 1
S_TURNS = 2         # turns played in this attempt
S_DRAWN = 3         # net units taken from S (the engine's ``drawn``)
S_STOP = 4          # offset of the first byte not consumed
S_REASON = 5        # why it stopped (R_*)
S_NEWLINES = 6      # newlines consumed by this call (the caller keeps line numbers without recounting)
S_LINE_START = 7    # offset just after the last newline consumed, -1 if none

R_CHUNK_END = 0     # ran out of bytes (a cut token may be left)
R_NOT_A_TOKEN = 1   # a byte that starts no token here, or an unusual token shape
R_OFF_GRID = 2
R_ILLEGAL = 3       # breaks a water rule: the exact engine says which
R_DEATH = 4         # the dying turn IS played (a legal turn); nothing after it is
R_WIN = 5

# direction index -> (row delta, column delta), in the order U D L R
DIRECTION_ROWS = np.array([-1, 1, 0, 0], dtype=np.int64)
DIRECTION_COLS = np.array([0, 0, -1, 1], dtype=np.int64)

# offsets of the table rows in the flat table (one base pointer in the loop, not five)
SIGN = np.uint64(256 * T_SIGN)
SKIP = np.uint64(256 * T_SKIP)
MODIFIER = np.uint64(256 * T_MODIFIER)
MOD_AMOUNT = np.uint64(256 * T_MOD_AMOUNT)
MIX1 = np.uint64(0x9E3779B97F4A7C15)
MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)
SHIFT1 = np.uint64(29)
SHIFT2 = np.uint64(31)
ONE = np.uint64(1)
TWO = np.uint64(2)
THREE = np.uint64(3)

SIGNATURE = "i8(u1[::1], i8, i8, b1, i8[::1], i8[::1], u1[::1], u1[::1], i8[::1], u8[::1])"


def replay(buf, start, end, final, tables, params, water, visited, state, digest):  # noqa: C901
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
    action_mask = 0 if params[P_ROUTE_SQUARES] != 0 else 255

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
            if buf[np.uint64(i)] == 10:
                newlines += 1
                line_start = i + 1
            i += 1
        if i >= end:
            break
        # fast path: "D+0" and a separator after it, all inside the bytes: one branch
        fast = False
        if i + 4 <= end:
            at = np.uint64(i)          # unsigned indices: no negative-index wraparound code
            direction = tables[np.uint64(buf[at])] - 1
            kind = tables[SIGN + np.uint64(buf[at + ONE])]
            amount = np.int64(buf[at + TWO]) - 48
            closing = buf[at + THREE]
            if (direction >= 0) & (kind != 0) & (amount >= 0) & (amount <= 9) & (tables[SKIP + np.uint64(closing)] != 0):
                fast = True
                j = i + 4
        if not fast:
            direction = tables[np.uint64(buf[i])] - 1
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
                amount = np.int64(buf[j]) - 48
                if amount < 0 or amount > 9:
                    reason = R_NOT_A_TOKEN
                    break
                j += 1
                if j >= end and not final:
                    break               # more digits may follow
                if j < end and buf[j] >= 48 and buf[j] <= 57:
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
            if kind == 1:
                if left + amount > 5:
                    reason = R_ILLEGAL
                    break
                from_well = amount
            elif kind == 2:
                if amount > left:
                    reason = R_ILLEGAL
                    break
                from_well = -amount
            else:
                from_well = 5 - left
            left += from_well
            drawn += from_well
        elif kind == 1:
            if amount > tile or left + amount > 5:
                reason = R_ILLEGAL
                break
            water[square_at] = tile - amount
            left += amount
        elif kind == 2:
            if amount > left or tile + amount > 9:
                reason = R_ILLEGAL
                break
            water[square_at] = tile + amount
            left -= amount
        else:
            taken = min(5 - left, tile)
            water[square_at] = tile - taken
            left += taken
        visited[square_at] = 1
        square = new_square
        col = new_col
        carried = left
        turns += 1
        # route identity: +0 and -0 are both "no action"; fill stays fill (as the exact path)
        action = kind * 16 + amount
        if amount == 0 and kind != 3:
            action = 0
        code = np.uint64((direction + 1) * 64 + (action & action_mask))
        h1 = (h1 ^ code) * MIX1
        h1 ^= h1 >> SHIFT1
        h2 = (h2 + code) * MIX2
        h2 ^= h2 >> SHIFT2
        if fast and closing == 10:      # the separator the fast path consumed with the token
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
        from numba.pycc import CC
        from numba.pycc import compiler as pycc_compiler
        plain_flags = pycc_compiler.Flags

        def releasing_flags():
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
