/* The arrow-path solver's propagation, in C: the same deductions, in the same order, as
 * the pure-Python propagation of solver.py (_number_options, _sweep_links, _possible,
 * _link, _assign_segment), so that both give the same branching points and the generator
 * the same puzzles for a seed. Compiled once into verify's cache (kernel_build.py) and
 * called through ctypes by kernel.py.
 *
 * Sets of cells and of numbers are bitsets of W 64-bit words (W covers size + 2 bits).
 * The caller owns every buffer: a geometry (arrows_geo_words, arrows_geo_init) and states
 * (arrows_state_words); a state is plain words, so copying one is copying its bytes.
 * A contradiction unwinds with longjmp to the entry point, which returns -1. */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

enum { G_ROWS, G_COLS, G_SIZE, G_WORDS, G_LAST, G_HEADER = 8 };
enum { MOVE_LINK = 0, MOVE_NUMBER = 1 };
/* Joining the rays of a set cell by cell costs W words a cell; sliding the whole set along
 * the eight directions (by doubling) about 8 x 2 log2(side) shifts of W words: rays are joined
 * while the set has at most RAY_JOIN_PER_SIDE cells per cell of the board's longer side, slid
 * beyond (measured: about even at 20x20, sliding ahead from 30x30 on). */
#define RAY_JOIN_PER_SIDE 12

static const int STEP_ROW[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
static const int STEP_COL[8] = {0, 1, 1, 1, 0, -1, -1, -1};

typedef struct {
    int rows, cols, size, W, last;
    const u64 *succ, *pred, *arrow_cells, *enter;
    u64 *links_word;
    u64 *used, *open_heads, *open_tails, *unnumbered;
    int32_t *nxt, *prv, *num, *cell_of, *head_of, *tail_of, *length;
    jmp_buf fail;
} Ctx;

static int words_for(int size) { return (size + 2 + 63) / 64; }

static inline int has(const u64 *s, int i) { return (int)((s[i >> 6] >> (i & 63)) & 1); }
static inline void set_bit(u64 *s, int i) { s[i >> 6] |= 1ULL << (i & 63); }
static inline void clear_bit(u64 *s, int i) { s[i >> 6] &= ~(1ULL << (i & 63)); }

static int count_bits(const u64 *s, int W)
{
    int n = 0;
    for (int w = 0; w < W; w++) n += __builtin_popcountll(s[w]);
    return n;
}

static int lowest_bit(const u64 *s, int W)
{
    for (int w = 0; w < W; w++)
        if (s[w]) return w * 64 + __builtin_ctzll(s[w]);
    return -1;
}

/* any of the bits lo .. lo+count-1 set */
static int any_in_range(const u64 *s, int lo, int count)
{
    for (int i = lo; i < lo + count; i++)
        if (has(s, i)) return 1;
    return 0;
}

/* out = in shifted by k bit positions (k > 0: towards higher bits) */
static void shift_bits(u64 *restrict out, const u64 *restrict in, int k, int W)
{
    int q = (k >= 0 ? k : -k) / 64, r = (k >= 0 ? k : -k) % 64;
    if (q >= W) {
        memset(out, 0, sizeof(u64) * W);
        return;
    }
    if (k >= 0) {
        if (r == 0)
            for (int w = W - 1; w >= q; w--) out[w] = in[w - q];
        else {
            for (int w = W - 1; w > q; w--) out[w] = (in[w - q] << r) | (in[w - q - 1] >> (64 - r));
            out[q] = in[0] << r;
        }
        memset(out, 0, sizeof(u64) * q);
    } else {
        int top = W - 1 - q;
        if (r == 0)
            for (int w = 0; w <= top; w++) out[w] = in[w + q];
        else {
            for (int w = 0; w < top; w++) out[w] = (in[w + q] >> r) | (in[w + q + 1] << (64 - r));
            out[top] = in[W - 1] >> r;
        }
        memset(out + top + 1, 0, sizeof(u64) * q);
    }
}

/* out |= every cell on the rays from `cells` in direction d (not the cells themselves), by
 * doubling: `cur` holds the cells 1..span steps away, `mask` the cells that span steps in
 * direction d reach from inside the board */
static void fill_into(const Ctx *c, u64 *out, const u64 *cells, int d, u64 *cur, u64 *tmp, u64 *mask)
{
    int W = c->W, shift = STEP_ROW[d] * c->cols + STEP_COL[d];
    int longest = (c->rows > c->cols ? c->rows : c->cols) - 1;
    const u64 *enter = c->enter + d * W;
    shift_bits(cur, cells, shift, W);
    for (int w = 0; w < W; w++) { cur[w] &= enter[w]; mask[w] = enter[w]; }
    for (int span = 1; span < longest; span *= 2) {
        shift_bits(tmp, cur, span * shift, W);
        for (int w = 0; w < W; w++) cur[w] |= tmp[w] & mask[w];
        if (2 * span < longest) {
            shift_bits(tmp, mask, span * shift, W);
            for (int w = 0; w < W; w++) mask[w] &= tmp[w];
        }
    }
    for (int w = 0; w < W; w++) out[w] |= cur[w];
}

/* out = cells on the ray of some cell of `cells` (forward) or whose ray holds one (backward),
 * joined from the ray tables (join) or slid along the eight directions; `scratch`: 5 W */
static void rays_of(const Ctx *c, u64 *out, const u64 *cells, int forward, int join, u64 *scratch)
{
    int W = c->W;
    memset(out, 0, sizeof(u64) * W);
    if (join) {
        const u64 *table = forward ? c->succ : c->pred;
        for (int w = 0; w < W; w++) {
            u64 x = cells[w];
            while (x) {
                int cell = w * 64 + __builtin_ctzll(x);
                x &= x - 1;
                const u64 *row = table + (size_t)cell * W;
                for (int v = 0; v < W; v++) out[v] |= row[v];
            }
        }
        return;
    }
    u64 *part = scratch, *cur = scratch + W, *tmp = scratch + 2 * W, *fill = scratch + 3 * W, *mask = scratch + 4 * W;
    for (int d = 0; d < 8; d++) {
        const u64 *arrows = c->arrow_cells + d * W;
        if (forward) {
            u64 any = 0;
            for (int w = 0; w < W; w++) { part[w] = cells[w] & arrows[w]; any |= part[w]; }
            if (any) fill_into(c, out, part, d, cur, tmp, mask);
        } else {
            memset(fill, 0, sizeof(u64) * W);
            fill_into(c, fill, cells, (d + 4) % 8, cur, tmp, mask);
            for (int w = 0; w < W; w++) out[w] |= fill[w] & arrows[w];
        }
    }
}

static void move_cells(const Ctx *c, u64 *out, const u64 *cells, int forward, u64 *scratch)
{
    int join = count_bits(cells, c->W) <= RAY_JOIN_PER_SIDE * (c->rows > c->cols ? c->rows : c->cols);
    rays_of(c, out, cells, forward, join, scratch);
}

static void fail(Ctx *c) { longjmp(c->fail, 1); }

static void assign(Ctx *c, int cell, int number)
{
    if (number < 1 || number > c->size || has(c->used, number)) fail(c);
    c->num[cell] = number;
    c->cell_of[number] = cell;
    set_bit(c->used, number);
    clear_bit(c->unnumbered, cell);
    if (number == 1) clear_bit(c->open_heads, cell);
}

static void link_cells(Ctx *c, int a, int b)
{
    int head_a = c->head_of[a], tail_b = c->tail_of[b];
    int len_a = c->length[head_a], len_b = c->length[b];
    c->nxt[a] = b;
    c->prv[b] = a;
    clear_bit(c->open_tails, a);
    clear_bit(c->open_heads, b);
    c->tail_of[head_a] = tail_b;
    c->head_of[tail_b] = head_a;
    c->length[head_a] = len_a + len_b;
    c->links_word[0] += 1;
    int32_t *num = c->num;
    if (num[a] && !num[b]) {
        int number = num[a] + 1, cell = b;
        for (int i = 0; i < len_b; i++) { assign(c, cell, number); number++; cell = c->nxt[cell]; }
    } else if (num[b] && !num[a]) {
        int number = num[b] - 1, cell = a;
        for (int i = 0; i < len_a; i++) { assign(c, cell, number); number--; cell = c->prv[cell]; }
    } else if (num[a] && num[b] && num[b] != num[a] + 1) {
        fail(c);
    }
}

static void assign_segment(Ctx *c, int cell, int number)
{
    if (c->num[cell]) {
        if (c->num[cell] != number) fail(c);
        return;
    }
    int head = cell, offset = 0;
    while (c->prv[head] >= 0) { head = c->prv[head]; offset++; }
    int here = head, value = number - offset, count = c->length[head];
    for (int i = 0; i < count; i++) { assign(c, here, value); here = c->nxt[here]; value++; }
}

static int longest_free_run(const Ctx *c)
{
    int best = 0, run = 0;
    for (int n = 1; n <= c->size; n++) {
        if (has(c->used, n)) run = 0;
        else if (++run > best) best = run;
    }
    return best;
}

static void bind_geometry(Ctx *c, const u64 *geo)
{
    c->rows = (int)geo[G_ROWS];
    c->cols = (int)geo[G_COLS];
    c->size = (int)geo[G_SIZE];
    c->W = (int)geo[G_WORDS];
    c->last = (int)geo[G_LAST];
    size_t sw = (size_t)c->size * c->W;
    c->succ = geo + G_HEADER;
    c->pred = c->succ + sw;
    c->arrow_cells = c->pred + sw;
    c->enter = c->arrow_cells + 8 * c->W;
}

static void bind(Ctx *c, const u64 *geo, u64 *state)
{
    bind_geometry(c, geo);
    c->links_word = state;
    c->used = state + 1;
    c->open_heads = c->used + c->W;
    c->open_tails = c->open_heads + c->W;
    c->unnumbered = c->open_tails + c->W;
    int32_t *ints = (int32_t *)(c->unnumbered + c->W);
    int n = c->size;
    c->nxt = ints;
    c->prv = c->nxt + n;
    c->num = c->prv + n;
    c->cell_of = c->num + n;
    c->head_of = c->cell_of + n + 2;
    c->tail_of = c->head_of + n;
    c->length = c->tail_of + n;
}

/* ------------------------------------------------------------------ entry points */

int64_t arrows_geo_words(int64_t rows, int64_t cols)
{
    int64_t size = rows * cols, W = words_for((int)size);
    return G_HEADER + 2 * size * W + 16 * W;
}

int64_t arrows_state_words(int64_t size)
{
    int64_t W = words_for((int)size);
    return 1 + 4 * W + (7 * size + 2 + 1) / 2;
}

/* arrows: the direction index per cell (0..7 clockwise from north), -1 for the last cell */
void arrows_geo_init(u64 *geo, int64_t rows, int64_t cols, const int32_t *arrows)
{
    int size = (int)(rows * cols), W = words_for(size);
    memset(geo, 0, sizeof(u64) * (size_t)arrows_geo_words(rows, cols));
    geo[G_ROWS] = (u64)rows;
    geo[G_COLS] = (u64)cols;
    geo[G_SIZE] = (u64)size;
    geo[G_WORDS] = (u64)W;
    geo[G_LAST] = 0;
    u64 *succ = geo + G_HEADER, *pred = succ + (size_t)size * W, *arrow_cells = pred + (size_t)size * W;
    u64 *enter = arrow_cells + 8 * W;
    for (int cell = 0; cell < size; cell++) {
        int d = arrows[cell];
        if (d < 0) { geo[G_LAST] = (u64)cell; continue; }
        set_bit(arrow_cells + d * W, cell);
        int r = cell / (int)cols + STEP_ROW[d], col = cell % (int)cols + STEP_COL[d];
        while (r >= 0 && r < rows && col >= 0 && col < cols) {
            int other = r * (int)cols + col;
            set_bit(succ + (size_t)cell * W, other);
            set_bit(pred + (size_t)other * W, cell);
            r += STEP_ROW[d];
            col += STEP_COL[d];
        }
    }
    for (int d = 0; d < 8; d++)
        for (int cell = 0; cell < size; cell++) {
            int r = cell / (int)cols - STEP_ROW[d], col = cell % (int)cols - STEP_COL[d];
            if (r >= 0 && r < rows && col >= 0 && col < cols) set_bit(enter + d * W, cell);
        }
}

/* the state of the givens `numbers` (0: none; the last cell holds size): 0, or -1 when they contradict */
int64_t arrows_state_init(const u64 *geo, u64 *state, const int32_t *numbers)
{
    Ctx c;
    int size = (int)geo[G_SIZE];
    memset(state, 0, sizeof(u64) * (size_t)arrows_state_words(size));
    bind(&c, geo, state);
    for (int i = 0; i < size; i++) {
        c.nxt[i] = c.prv[i] = -1;
        c.head_of[i] = c.tail_of[i] = i;
        c.length[i] = 1;
        set_bit(c.open_heads, i);
        set_bit(c.unnumbered, i);
        if (i != c.last) set_bit(c.open_tails, i);
    }
    for (int i = 0; i < size + 2; i++) c.cell_of[i] = -1;
    if (setjmp(c.fail)) return -1;
    for (int cell = 0; cell < size; cell++) {
        int number = cell == c.last ? size : numbers[cell];
        if (number) assign(&c, cell, number);
    }
    return 0;
}

/* a move: MOVE_LINK (tail a, head b) or MOVE_NUMBER (cell, number): 0, or -1 on a contradiction */
int64_t arrows_apply(const u64 *geo, u64 *state, int64_t kind, int64_t first, int64_t second)
{
    Ctx c;
    bind(&c, geo, state);
    if (setjmp(c.fail)) return -1;
    if (kind == MOVE_LINK) link_cells(&c, (int)first, (int)second);
    else assign_segment(&c, (int)first, (int)second);
    return 0;
}

/* the numbers numbers[i] given on cells[i], in order: 0, or -1 at the first contradiction
 * (the ones before it stay given) */
int64_t arrows_give(const u64 *geo, u64 *state, const int32_t *cells, const int32_t *numbers, int64_t count)
{
    Ctx c;
    bind(&c, geo, state);
    if (setjmp(c.fail)) return -1;
    for (int64_t i = 0; i < count; i++) assign_segment(&c, cells[i], numbers[i]);
    return 0;
}

/* out = the cells on the rays of `cells` (forward) or whose rays hold one, joined from the ray
 * tables (join) or slid: the two ways propagation takes, each checked on its own by the tests.
 * 0, or -2 when the work space cannot be allocated */
int64_t arrows_rays(const u64 *geo, const u64 *cells, int64_t forward, int64_t join, u64 *out)
{
    Ctx c;
    bind_geometry(&c, geo);
    u64 *scratch = malloc(sizeof(u64) * 5 * (size_t)c.W);
    if (!scratch) return -2;
    rays_of(&c, out, cells, (int)forward, (int)join, scratch);
    free(scratch);
    return 0;
}

void arrows_numbers(const u64 *geo, u64 *state, int32_t *out)
{
    Ctx c;
    bind(&c, geo, state);
    memcpy(out, c.num, sizeof(int32_t) * (size_t)c.size);
}

typedef struct {
    u64 *options;     /* per cell: the numbers it may hold */
    u64 *cells_of;    /* per number: the cells that may hold it */
    u64 *layers;      /* per step back from a placed number: the cells it may be on */
    u64 *t1, *t2, *t3, *scratch, *snapshot;
    u64 *reached[2];  /* the forward moves of the last two steps (number_options) */
    int32_t *forced;  /* (cell, number) pairs */
    int nforced;
    int best_number;  /* the free number with the fewest cells, 0: none */
    int32_t *cand;
    int32_t *best;    /* moves: kind, first, second */
    int nbest;
} Work;

static int same_bits(const u64 *a, const u64 *b, int W)
{
    return memcmp(a, b, sizeof(u64) * (size_t)W) == 0;
}

static void one_step(Ctx *c, u64 *out, const u64 *layer, int forward, Work *k)
{
    int W = c->W;
    const u64 *open_out = forward ? c->open_tails : c->open_heads;
    const u64 *open_in = forward ? c->open_heads : c->open_tails;
    const int32_t *links = forward ? c->nxt : c->prv;
    for (int w = 0; w < W; w++) k->t3[w] = layer[w] & open_out[w];
    move_cells(c, out, k->t3, forward, k->scratch);
    for (int w = 0; w < W; w++) out[w] &= open_in[w];
    for (int w = 0; w < W; w++) {
        u64 linked = layer[w] & ~open_out[w];
        while (linked) {
            int cell = w * 64 + __builtin_ctzll(linked);
            linked &= linked - 1;
            int other = links[cell];
            if (other >= 0) set_bit(out, other);
        }
    }
}

static void record(Ctx *c, Work *k, int number, const u64 *cells, int *best_count)
{
    int W = c->W;
    memcpy(k->cells_of + (size_t)number * W, cells, sizeof(u64) * W);
    int count = count_bits(cells, W);
    if (count == 1) {
        k->forced[2 * k->nforced] = lowest_bit(cells, W);
        k->forced[2 * k->nforced + 1] = number;
        k->nforced++;
    } else if (count < *best_count) {
        k->best_number = number;
        *best_count = count;
    }
}

static void number_options(Ctx *c, Work *k)
{
    int size = c->size, W = c->W, best_count = size + 1;
    const u64 *free_cells = c->unnumbered;
    memset(k->cells_of, 0, sizeof(u64) * (size_t)(size + 1) * W);
    k->nforced = 0;
    k->best_number = 0;
    int previous = 0;
    for (int number = 1; number <= size; number++) {
        if (c->cell_of[number] < 0) continue;
        int gap = number - previous;
        if (gap > 1) {
            u64 *layers = k->layers;
            memset(layers, 0, sizeof(u64) * W);
            set_bit(layers, c->cell_of[number]);
            /* a layer is a function of the one before (the state does not change here): when
             * that one equals the layer two before it, so does this one the layer two before */
            for (int i = 1; i < gap; i++) {
                u64 *layer = layers + (size_t)i * W;
                if (i >= 3 && same_bits(layer - W, layer - 3 * W, W)) {
                    memcpy(layer, layer - 2 * W, sizeof(u64) * W);
                    continue;
                }
                one_step(c, layer, layer - W, 0, k);
                u64 any = 0;
                for (int w = 0; w < W; w++) { layer[w] &= free_cells[w]; any |= layer[w]; }
                if (!any) fail(c);
            }
            if (previous) {
                /* the same going forward for the step's moves (reached[step % 2]), before
                 * they are narrowed by the backward layer */
                u64 *layer = k->t1, *next = k->t2;
                memset(layer, 0, sizeof(u64) * W);
                set_bit(layer, c->cell_of[previous]);
                for (int step = 1; step < gap; step++) {
                    u64 *reached = k->reached[step & 1];
                    if (step < 4 || !same_bits(layer, k->cells_of + (size_t)(previous + step - 3) * W, W))
                        one_step(c, reached, layer, 1, k);
                    const u64 *back = layers + (size_t)(gap - step) * W;
                    u64 any = 0;
                    for (int w = 0; w < W; w++) { next[w] = reached[w] & free_cells[w] & back[w]; any |= next[w]; }
                    if (!any) fail(c);
                    record(c, k, previous + step, next, &best_count);
                    u64 *swap = layer; layer = next; next = swap;
                }
            } else {
                for (int step = 1; step < gap; step++)
                    record(c, k, step, layers + (size_t)(gap - step) * W, &best_count);
            }
        }
        previous = number;
    }
    memset(k->options, 0, sizeof(u64) * (size_t)size * W);
    for (int number = 1; number <= size; number++) {
        const u64 *cells = k->cells_of + (size_t)number * W;
        for (int w = 0; w < W; w++) {
            u64 x = cells[w];
            while (x) {
                int cell = w * 64 + __builtin_ctzll(x);
                x &= x - 1;
                set_bit(k->options + (size_t)cell * W, number);
            }
        }
    }
    for (int cell = 0; cell < size; cell++)
        if (c->num[cell]) {
            u64 *o = k->options + (size_t)cell * W;
            memset(o, 0, sizeof(u64) * W);
            set_bit(o, c->num[cell]);
        }
    for (int cell = 0; cell < size; cell++) {
        if (!has(free_cells, cell)) continue;
        const u64 *o = k->options + (size_t)cell * W;
        int count = count_bits(o, W);
        if (!count) fail(c);
        if (count == 1) {
            k->forced[2 * k->nforced] = cell;
            k->forced[2 * k->nforced + 1] = lowest_bit(o, W);
            k->nforced++;
        }
    }
}

/* some number of a, plus one, is a number of b */
static int follows(const Ctx *c, const u64 *options, int a, int b)
{
    int W = c->W;
    const u64 *oa = options + (size_t)a * W, *ob = options + (size_t)b * W;
    u64 carry = 0;
    for (int w = 0; w < W; w++) {
        u64 shifted = (oa[w] << 1) | carry;
        carry = oa[w] >> 63;
        if (shifted & ob[w]) return 1;
    }
    return 0;
}

static int possible(const Ctx *c, int a, int b, int max_free, const u64 *options)
{
    if (!follows(c, options, a, b)) return 0;
    int xa = c->num[a], yb = c->num[b];
    if (xa) {
        if (yb) return yb == xa + 1;
        int span = c->length[b], top = xa + span;
        if (top >= c->size || any_in_range(c->used, xa + 1, span)) return 0;
        if (has(c->used, top + 1))
            return has(c->succ + (size_t)c->tail_of[b] * c->W, c->cell_of[top + 1]);
        return 1;
    }
    int head_a = c->head_of[a];
    if (yb) {
        int span = c->length[head_a], low = yb - span;
        if (low < 1 || any_in_range(c->used, low, span)) return 0;
        if (low > 1 && has(c->used, low - 1))
            return has(c->succ + (size_t)c->cell_of[low - 1] * c->W, head_a);
        return 1;
    }
    return c->length[head_a] + c->length[b] <= max_free;
}

/* one pass making every forced link: 1 when something changed, else 0 with k->best set */
static int sweep_links(Ctx *c, Work *k)
{
    int size = c->size, W = c->W, changed = 0, have_best = 0;
    const u64 *options = k->options;
    int max_free = longest_free_run(c);
    k->nbest = 0;
    memcpy(k->snapshot, c->open_tails, sizeof(u64) * W);
    for (int w = 0; w < W; w++) {
        u64 x = k->snapshot[w];
        while (x) {
            int a = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (!has(c->open_tails, a)) continue;
            int head_a = c->head_of[a];
            int enough = changed ? 2 : have_best ? (k->nbest > 2 ? k->nbest : 2) : size;
            int n = 0;
            const u64 *succ = c->succ + (size_t)a * W;
            for (int v = 0; v < W && n < enough; v++) {
                u64 mask = succ[v] & c->open_heads[v];
                if (v == head_a >> 6) mask &= ~(1ULL << (head_a & 63));
                while (mask) {
                    int b = v * 64 + __builtin_ctzll(mask);
                    mask &= mask - 1;
                    if (possible(c, a, b, max_free, options)) {
                        k->cand[n++] = b;
                        if (n == enough) break;
                    }
                }
            }
            if (!n) fail(c);
            if (n == 1) {
                link_cells(c, a, k->cand[0]);
                changed = 1;
            } else if (!changed && (!have_best || n < k->nbest)) {
                for (int i = 0; i < n; i++) {
                    k->best[3 * i] = MOVE_LINK;
                    k->best[3 * i + 1] = a;
                    k->best[3 * i + 2] = k->cand[i];
                }
                k->nbest = n;
                have_best = 1;
            }
        }
    }
    memcpy(k->snapshot, c->open_heads, sizeof(u64) * W);
    for (int w = 0; w < W; w++) {
        u64 x = k->snapshot[w];
        while (x) {
            int b = w * 64 + __builtin_ctzll(x);
            x &= x - 1;
            if (!has(c->open_heads, b)) continue;
            int tail_b = c->tail_of[b];
            int enough = changed ? 2 : have_best ? (k->nbest > 2 ? k->nbest : 2) : size;
            int n = 0;
            const u64 *pred = c->pred + (size_t)b * W;
            for (int v = 0; v < W && n < enough; v++) {
                u64 mask = pred[v] & c->open_tails[v];
                if (v == tail_b >> 6) mask &= ~(1ULL << (tail_b & 63));
                while (mask) {
                    int a = v * 64 + __builtin_ctzll(mask);
                    mask &= mask - 1;
                    if (possible(c, a, b, max_free, options)) {
                        k->cand[n++] = a;
                        if (n == enough) break;
                    }
                }
            }
            int may_start = !c->num[b] && !has(c->used, 1) && has(options + (size_t)b * W, 1);
            if (!n) {
                if (!may_start) fail(c);
                assign_segment(c, b, 1);
                changed = 1;
            } else if (n == 1 && !may_start) {
                link_cells(c, k->cand[0], b);
                changed = 1;
            } else if (!changed && (!have_best || n + may_start < k->nbest)) {
                for (int i = 0; i < n; i++) {
                    k->best[3 * i] = MOVE_LINK;
                    k->best[3 * i + 1] = k->cand[i];
                    k->best[3 * i + 2] = b;
                }
                if (may_start) {
                    k->best[3 * n] = MOVE_NUMBER;
                    k->best[3 * n + 1] = b;
                    k->best[3 * n + 2] = 1;
                }
                k->nbest = n + may_start;
                have_best = 1;
            }
        }
    }
    return changed;
}

static int propagate(Ctx *c, Work *k, int32_t *moves)
{
    int size = c->size, W = c->W, fresh = 1;
    number_options(c, k);
    for (;;) {
        if ((int)c->links_word[0] == size - 1) return 0;
        if (k->nforced) {
            for (int i = 0; i < k->nforced; i++) assign_segment(c, k->forced[2 * i], k->forced[2 * i + 1]);
            k->nforced = 0;
            fresh = 0;
            continue;
        }
        if (sweep_links(c, k)) {
            fresh = 0;
            continue;
        }
        if (fresh) {
            if (k->best_number) {
                const u64 *cells = k->cells_of + (size_t)k->best_number * W;
                int count = count_bits(cells, W);
                if (count < k->nbest) {
                    int n = 0;
                    for (int w = 0; w < W; w++) {
                        u64 x = cells[w];
                        while (x) {
                            moves[3 * n] = MOVE_NUMBER;
                            moves[3 * n + 1] = w * 64 + __builtin_ctzll(x);
                            moves[3 * n + 2] = k->best_number;
                            n++;
                            x &= x - 1;
                        }
                    }
                    return n;
                }
            }
            memcpy(moves, k->best, sizeof(int32_t) * 3 * (size_t)k->nbest);
            return k->nbest;
        }
        number_options(c, k);
        fresh = 1;
    }
}

/* propagate until stalled: 0 when solved, -1 on a contradiction, else the number of moves of
 * the branching point written to `moves` (kind, first, second each; room for size + 2) */
int64_t arrows_propagate(const u64 *geo, u64 *state, int32_t *moves)
{
    Ctx c;
    bind(&c, geo, state);
    int size = c.size, W = c.W;
    size_t words = (size_t)size * W + (size_t)(size + 1) * W + (size_t)(size + 1) * W + 11 * (size_t)W;
    u64 *block = malloc(sizeof(u64) * words);
    int32_t *ints = malloc(sizeof(int32_t) * (2 * (size_t)(2 * size + 2) + (size_t)(size + 2) + 3 * (size_t)(size + 2)));
    if (!block || !ints) {
        free(block);
        free(ints);
        return -2;
    }
    Work k;
    k.options = block;
    k.cells_of = k.options + (size_t)size * W;
    k.layers = k.cells_of + (size_t)(size + 1) * W;
    k.t1 = k.layers + (size_t)(size + 1) * W;
    k.t2 = k.t1 + W;
    k.t3 = k.t2 + W;
    k.snapshot = k.t3 + W;
    k.scratch = k.snapshot + W;   /* 5 W */
    k.reached[0] = k.scratch + 5 * W;
    k.reached[1] = k.reached[0] + W;
    k.forced = ints;
    k.cand = k.forced + 2 * (2 * size + 2);
    k.best = k.cand + size + 2;
    k.nforced = k.nbest = k.best_number = 0;
    int64_t result;
    if (setjmp(c.fail)) result = -1;
    else result = propagate(&c, &k, moves);
    free(block);
    free(ints);
    return result;
}
