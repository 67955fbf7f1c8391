/* The desert replay loop: one pass over raw output bytes that tokenises AND replays
 * ordinary turns. Compiled once into verify's cache (kernel_build.py) and called through
 * ctypes by kernel.py, which releases the GIL for the call.
 *
 * It plays a turn only when the turn is legal and does not reach E, and stops after a turn
 * that kills the traveller; anything else (an illegal turn, a win, a byte that starts no
 * token, a token of an unusual shape such as several digits) stops it *before* that token,
 * and the exact engine reads and plays the token and words the verdict. A token cut by the
 * end of the bytes given is not consumed either (unless `final`): the caller hands those
 * few bytes back with the next chunk.
 *
 * All state lives in small arrays owned by the caller, so the loop resumes where it stopped.
 * Every constant comes from kernel_constants.h, which kernel_build.py writes from rules.py
 * (the rules' numbers and moves, as the engine plays them) and kernel_tables.py (the layout
 * of the arrays and codes shared with kernel.py). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "kernel_constants.h"

#define NEWLINE 10

int64_t desert_replay(const uint8_t *buf, int64_t start, int64_t end, int64_t final,
                      const uint8_t *tables, const int64_t *params, uint8_t *water, uint8_t *visited,
                      int64_t *state, uint64_t *digest)
{
    const uint8_t *direction_of = tables + 256 * T_DIRECTION;   /* 1 + direction index, 0: none */
    const uint8_t *sign_of = tables + 256 * T_SIGN;
    const uint8_t *skip = tables + 256 * T_SKIP;
    const uint8_t *modifier_of = tables + 256 * T_MODIFIER;
    const uint8_t *modifier_amount = tables + 256 * T_MOD_AMOUNT;
    const int64_t width = params[P_WIDTH];
    const int64_t size = width * params[P_HEIGHT];
    const int64_t start_square = params[P_START];
    const int64_t end_square = params[P_END];
    const int64_t default_kind = params[P_DEFAULT_KIND];
    const int64_t default_amount = params[P_DEFAULT_AMOUNT];
    const int64_t action_mask = params[P_ROUTE_SQUARES] != 0 ? 0 : CODE_DIRECTION - 1;
    int has_signs = 0;      /* a sign and a digit ("D+0"); without signs, one-byte modifiers ("DX", "D ") */
    for (int b = 0; b < 256; b++)
        has_signs |= sign_of[b] != 0;
    int64_t square_step[4], column_step[4];
    for (int d = 0; d < 4; d++) {
        column_step[d] = DIRECTION_COLS[d];
        square_step[d] = DIRECTION_COLS[d] + DIRECTION_ROWS[d] * width;
    }

    int64_t square = state[S_POSITION];
    int64_t col = square % width;
    int64_t carried = state[S_CARRIED];
    int64_t drawn = state[S_DRAWN];
    int64_t turns = state[S_TURNS];
    uint64_t h1 = digest[0], h2 = digest[1];
    int64_t newlines = 0, line_start = -1;
    int64_t reason = R_CHUNK_END;
    int64_t i = start;

    for (;;) {
        while (i < end && skip[buf[i]]) {
            if (buf[i] == NEWLINE) {
                newlines++;
                line_start = i + 1;
            }
            i++;
        }
        if (i >= end)
            break;
        int64_t direction, kind, amount, j;
        int fast = 0;
        uint8_t closing = 0;
        /* the usual shape, "D+0" and a separator, all inside the bytes: one branch */
        if (has_signs && i + 4 <= end) {
            direction = (int64_t)direction_of[buf[i]] - 1;
            kind = sign_of[buf[i + 1]];
            amount = (int64_t)buf[i + 2] - '0';
            closing = buf[i + 3];
            if ((direction >= 0) & (kind != 0) & ((uint64_t)amount <= 9) & (skip[closing] != 0)) {
                fast = 1;
                j = i + 4;
            }
        } else if (!has_signs && i + 2 <= end) {
            /* one-byte modifiers ("DX", "D "): the byte after the letter is a modifier or starts
             * what follows (a bare letter); either way the token is complete inside the bytes */
            uint8_t next = buf[i + 1];
            int64_t modifier = modifier_of[next];
            direction = (int64_t)direction_of[buf[i]] - 1;
            kind = modifier != 0 ? modifier : default_kind;
            amount = modifier != 0 ? (int64_t)modifier_amount[next] : default_amount;
            if ((direction >= 0) & (kind != 0)) {
                fast = 1;
                j = modifier != 0 ? i + 2 : i + 1;
            }
        }
        if (!fast) {
            direction = (int64_t)direction_of[buf[i]] - 1;
            if (direction < 0) {
                reason = R_NOT_A_TOKEN;
                break;
            }
            j = i + 1;
            if (j >= end && !final)
                break;                          /* cut token: wait for the bytes after it */
            if (j < end && sign_of[buf[j]] != 0) {
                kind = sign_of[buf[j]];
                j++;
                if (j >= end) {
                    if (final)
                        reason = R_NOT_A_TOKEN;
                    break;
                }
                amount = (int64_t)buf[j] - '0';
                if (amount < 0 || amount > 9) {   /* not a digit */
                    reason = R_NOT_A_TOKEN;
                    break;
                }
                j++;
                if (j >= end && !final)
                    break;                      /* more digits may follow */
                if (j < end && buf[j] >= '0' && buf[j] <= '9') {
                    reason = R_NOT_A_TOKEN;     /* several digits: the exact parser reads them */
                    break;
                }
            } else if (j < end && modifier_of[buf[j]] != 0) {
                kind = modifier_of[buf[j]];
                amount = modifier_amount[buf[j]];
                j++;
            } else if (default_kind != 0) {
                kind = default_kind;
                amount = default_amount;
            } else {
                reason = R_NOT_A_TOKEN;
                break;
            }
        }

        /* the turn, in the engine's order: move, drink, water action */
        int64_t new_col = col + column_step[direction];
        int64_t new_square = square + square_step[direction];
        /* unsigned: a negative square or column wraps to a huge value, so one compare each */
        if (((uint64_t)new_square >= (uint64_t)size) | ((uint64_t)new_col >= (uint64_t)width)) {
            reason = R_OFF_GRID;
            break;
        }
        if (new_square == end_square) {
            reason = R_WIN;
            break;
        }
        int64_t left = carried - 1;
        int64_t tile = water[new_square];
        if (new_square == start_square) {       /* the well: infinite, dropping there is allowed */
            int64_t from_well;
            if (kind == K_PICK) {
                if (left + amount > CAPACITY) {
                    reason = R_ILLEGAL;
                    break;
                }
                from_well = amount;
            } else if (kind == K_DROP) {
                if (amount > left) {
                    reason = R_ILLEGAL;
                    break;
                }
                from_well = -amount;
            } else {
                from_well = CAPACITY - left;
            }
            left += from_well;
            drawn += from_well;
        } else if (kind == K_PICK) {
            if (amount > tile || left + amount > CAPACITY) {
                reason = R_ILLEGAL;
                break;
            }
            water[new_square] = (uint8_t)(tile - amount);
            left += amount;
        } else if (kind == K_DROP) {
            if (amount > left || tile + amount > TILE_LIMIT) {
                reason = R_ILLEGAL;
                break;
            }
            water[new_square] = (uint8_t)(tile + amount);
            left -= amount;
        } else {
            int64_t taken = CAPACITY - left < tile ? CAPACITY - left : tile;
            water[new_square] = (uint8_t)(tile - taken);
            left += taken;
        }
        visited[new_square] = 1;
        square = new_square;
        col = new_col;
        carried = left;
        turns++;
        /* route identity: +0 and -0 are both "no action"; fill stays fill (as the exact path) */
        int64_t action = kind * CODE_KIND + amount;
        if (amount == 0 && kind != K_FILL)
            action = 0;
        uint64_t code = (uint64_t)((direction + 1) * CODE_DIRECTION + (action & action_mask));
        h1 = (h1 ^ code) * MIX1;
        h1 ^= h1 >> SHIFT1;
        h2 = (h2 + code) * MIX2;
        h2 ^= h2 >> SHIFT2;
        if (fast && closing == NEWLINE) {       /* the separator the usual shape consumed with the token */
            newlines++;
            line_start = j;
        }
        i = j;
        if (left == 0) {
            reason = R_DEATH;                   /* played: the caller marks the attempt dead */
            break;
        }
    }

    state[S_POSITION] = square;
    state[S_CARRIED] = carried;
    state[S_TURNS] = turns;
    state[S_DRAWN] = drawn;
    state[S_STOP] = i;
    state[S_REASON] = reason;
    state[S_NEWLINES] = newlines;
    state[S_LINE_START] = line_start;
    digest[0] = h1;
    digest[1] = h2;
    return reason;
}

/* The pump: the loop reading the entry's stdout itself (a non-blocking pipe), so the bytes go
 * from the pipe into one buffer and are replayed there, with no Python between reads. It
 * reads into buf[IO_FILLED:capacity], replays buf[IO_START:IO_FILLED] with desert_replay
 * (never `final`: a cut token waits for the next read, moved to the buffer's front), and
 * returns when the loop stops for any reason but the end of the bytes (the caller's reading
 * loop reads from IO_START on), when it has read `budget` bytes, when the pipe is closed, or
 * when read() fails (EAGAIN among them: nothing written yet; the caller waits for the pipe).
 * IO_LINES and IO_COLUMN follow the bytes consumed, as the loop's S_NEWLINES does. */
int64_t desert_pump(int64_t fd, uint8_t *buf, int64_t capacity, int64_t budget, int64_t *io,
                    const uint8_t *tables, const int64_t *params, uint8_t *water, uint8_t *visited,
                    int64_t *state, uint64_t *digest)
{
    int64_t start = io[IO_START], filled = io[IO_FILLED], column = io[IO_COLUMN];
    int64_t lines = 0, taken = 0, reason;
    for (;;) {
        if (start < filled) {
            reason = desert_replay(buf, start, filled, 0, tables, params, water, visited, state, digest);
            int64_t stop = state[S_STOP];
            if (state[S_NEWLINES] != 0) {
                lines += state[S_NEWLINES];
                column = stop - state[S_LINE_START];
            } else {
                column += stop - start;
            }
            start = stop;
            if (reason != R_CHUNK_END)
                break;
        }
        if (taken >= budget) {
            reason = R_BUDGET;
            break;
        }
        if (start > 0) {                        /* a cut token (a few bytes) to the front */
            memmove(buf, buf + start, (size_t)(filled - start));
            filled -= start;
            start = 0;
        }
        int64_t room = capacity - filled;
        if (room > budget - taken)
            room = budget - taken;
        if (room <= 0) {                        /* no room: the caller's reading loop takes the bytes */
            reason = R_CHUNK_END;
            break;
        }
        ssize_t got = read((int)fd, buf + filled, (size_t)room);
        if (got > 0) {
            filled += got;
            taken += got;
        } else if (got == 0) {
            reason = R_PIPE_END;
            break;
        } else {
            io[IO_ERRNO] = errno;
            reason = R_READ_FAILED;
            break;
        }
    }
    io[IO_START] = start;
    io[IO_FILLED] = filled;
    io[IO_LINES] = lines;
    io[IO_COLUMN] = column;
    io[IO_READ] = taken;
    return reason;
}
