/* The arrow-path generator and search, in C, over the propagation of kernel.c: the same
 * steps, in the same order, drawing the same random numbers as generator.py and the search
 * of solver.py (_search), so that both give the same puzzle for a seed. The random numbers
 * are CPython's: its Mersenne Twister, started from the state Python's random.Random of the
 * generator's seed string has (passed in), and its methods as CPython 3.11-3.13 write them
 * (random, _randbelow by getrandbits, choice, shuffle, sample); a test generates with both
 * and compares. Compiled with kernel.c into one library (kernel_build.py). */
#include "kernel.c"

/* ------------------------------------------------------------ CPython's random numbers */

enum { MT_N = 624, MT_M = 397 };

typedef struct {
    uint32_t mt[MT_N];
    int index;
} Rng;

static uint32_t genrand_uint32(Rng *r)
{
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (r->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (r->mt[kk] & 0x80000000U) | (r->mt[kk + 1] & 0x7fffffffU);
            r->mt[kk] = r->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (r->mt[kk] & 0x80000000U) | (r->mt[kk + 1] & 0x7fffffffU);
            r->mt[kk] = r->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (r->mt[MT_N - 1] & 0x80000000U) | (r->mt[0] & 0x7fffffffU);
        r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        r->index = 0;
    }
    y = r->mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* The state random.Random(key) starts from (Matsumoto and Nishimura's init_by_array, as
 * CPython's random_seed calls it): `key` the seed's absolute value in 32-bit words, least
 * significant first (n >= 1); writes the 624 words and the index, as getstate() gives them. */
void arrows_seed(const uint32_t *key, int64_t n, uint32_t *mt)
{
    mt[0] = 19650218U;
    for (int i = 1; i < MT_N; i++) mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    int64_t i = 1, j = 0;
    for (int64_t k = MT_N > n ? MT_N : n; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) { mt[0] = mt[MT_N - 1]; i = 1; }
        if (j >= n) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) { mt[0] = mt[MT_N - 1]; i = 1; }
    }
    mt[0] = 0x80000000U;
    mt[MT_N] = MT_N;
}

/* random.random(): 53 random bits */
static double rng_random(Rng *r)
{
    uint32_t a = genrand_uint32(r) >> 5, b = genrand_uint32(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* random._randbelow(n) for 1 <= n < 2**31: getrandbits(n.bit_length()) until below n */
static int rng_below(Rng *r, int n)
{
    int k = 32 - __builtin_clz((unsigned)n);
    uint32_t x;
    do x = genrand_uint32(r) >> (32 - k);
    while (x >= (uint32_t)n);
    return (int)x;
}

static void rng_shuffle(Rng *r, int32_t *x, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rng_below(r, i + 1);
        int32_t t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* random.sample(range(n), k) into out: the pool or the set-of-selected way, as CPython
 * picks one (its 4 ** ceil(log(3k, 4)) is the least power of 4 from 3k on: 3k is never
 * one); `work`: room for n ints. */
static void rng_sample(Rng *r, int n, int k, int32_t *out, int32_t *work)
{
    long setsize = 21, power = 1;
    while (power < 3L * k) power *= 4;
    if (k > 5) setsize += power;
    if (n <= setsize) {
        for (int i = 0; i < n; i++) work[i] = i;
        for (int i = 0; i < k; i++) {
            int j = rng_below(r, n - i);
            out[i] = work[j];
            work[j] = work[n - i - 1];
        }
        return;
    }
    memset(work, 0, sizeof(int32_t) * (size_t)n);
    for (int i = 0; i < k; i++) {
        int j = rng_below(r, n);
        while (work[j]) j = rng_below(r, n);
        work[j] = 1;
        out[i] = j;
    }
}

/* ------------------------------------------------------------ the search (solver.py) */

typedef struct {
    const u64 *geo;
    size_t state_bytes;
    int size, limit;
    int64_t max_nodes;      /* -1: no budget */
    int64_t nodes, branches;
    int found;
    int32_t *solutions;     /* limit x size numbers */
} Search;

enum { SEARCH_DONE = 0, SEARCH_OVER_BUDGET = 1, SEARCH_NO_MEMORY = -2 };

static void numbers_of(const u64 *geo, u64 *state, int32_t *out)
{
    arrows_numbers(geo, state, out);
}

static int search(Search *s, u64 *state)
{
    s->nodes++;
    if (s->max_nodes >= 0 && s->nodes > s->max_nodes) return SEARCH_OVER_BUDGET;
    int32_t *moves = malloc(sizeof(int32_t) * 3 * (size_t)(s->size + 2));
    u64 *child = malloc(s->state_bytes);
    int result = SEARCH_DONE;
    if (!moves || !child) {
        result = SEARCH_NO_MEMORY;
        goto done;
    }
    int64_t count = arrows_propagate(s->geo, state, moves);
    if (count < -1) result = SEARCH_NO_MEMORY;
    if (count == 0) numbers_of(s->geo, state, s->solutions + (size_t)s->found++ * s->size);
    if (count <= 0) goto done;
    s->branches++;
    for (int64_t i = 0; i < count; i++) {
        memcpy(child, state, s->state_bytes);
        if (arrows_apply(s->geo, child, moves[3 * i], moves[3 * i + 1], moves[3 * i + 2]) < 0) continue;
        result = search(s, child);
        if (result != SEARCH_DONE || s->found >= s->limit) break;
    }
done:
    free(moves);
    free(child);
    return result;
}

/* Up to `limit` solutions of the givens `numbers` written to `solutions` (limit x size):
 * their count, -1 past `max_nodes` search nodes (-1: no budget), -2 out of memory; the nodes
 * and branching points in figures[0], figures[1]. */
int64_t arrows_solutions(const u64 *geo, const int32_t *numbers, int64_t limit, int64_t max_nodes,
                         int32_t *solutions, int64_t *figures)
{
    int size = (int)geo[G_SIZE];
    Search s = {geo, sizeof(u64) * (size_t)arrows_state_words(size), size, (int)limit, max_nodes, 0, 0, 0,
                solutions};
    u64 *state = malloc(s.state_bytes);
    if (!state) return -2;
    int result = SEARCH_DONE;
    if (arrows_state_init(geo, state, numbers) == 0) result = search(&s, state);
    free(state);
    figures[0] = s.nodes;
    figures[1] = s.branches;
    if (result == SEARCH_NO_MEMORY) return -2;
    return result == SEARCH_OVER_BUDGET ? -1 : s.found;
}

/* ------------------------------------------------------------ the generator (generator.py) */

static const int STEP_D_ROW[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
static const int STEP_D_COL[8] = {0, 1, 1, 1, 0, -1, -1, -1};

typedef struct {
    int rows, cols, size;
    Rng rng;
    u64 *geo;
    size_t state_bytes;
    int32_t *answer;        /* the solution's numbers */
    int32_t *givens;
    int32_t *moves, *cells, *numbers, *work;
    u64 *saved;             /* the deductions saved before each given step 3 added */
    int32_t *added;         /* those givens' cells */
    int nadded, room;       /* (room: of `saved`, in states) */
} Gen;

enum { GEN_OK = 0, GEN_NO_MEMORY = -2, GEN_NOT_UNIQUE = -3 };

/* the cells on the eight lines from each cell, in the directions' order, nearest first */
static int queen_lines(int rows, int cols, int32_t *start, int32_t *cells)
{
    int count = 0;
    for (int cell = 0; cell < rows * cols; cell++) {
        start[cell] = count;
        for (int d = 0; d < 8; d++) {
            int r = cell / cols + STEP_D_ROW[d], c = cell % cols + STEP_D_COL[d];
            while (r >= 0 && r < rows && c >= 0 && c < cols) {
                cells[count++] = r * cols + c;
                r += STEP_D_ROW[d];
                c += STEP_D_COL[d];
            }
        }
    }
    start[rows * cols] = count;
    return count;
}

/* step 1: generator.random_path into `path` */
static int random_path(Gen *g, int32_t *path)
{
    int size = g->size, lines = 8 * size * (g->rows > g->cols ? g->rows : g->cols);
    int32_t *start = malloc(sizeof(int32_t) * (size_t)(size + 1)), *reach = malloc(sizeof(int32_t) * (size_t)lines);
    int32_t *free_degree = malloc(sizeof(int32_t) * (size_t)size), *options = malloc(sizeof(int32_t) * (size_t)size);
    int32_t *pool = malloc(sizeof(int32_t) * (size_t)size);
    char *visited = malloc((size_t)size);
    int result = GEN_NO_MEMORY;
    if (!start || !reach || !free_degree || !options || !pool || !visited) goto done;
    queen_lines(g->rows, g->cols, start, reach);
    for (;;) {
        int first = rng_below(&g->rng, size), length = 1;
        memset(visited, 0, (size_t)size);
        visited[first] = 1;
        for (int c = 0; c < size; c++) free_degree[c] = start[c + 1] - start[c];
        for (int i = start[first]; i < start[first + 1]; i++) free_degree[reach[i]]--;
        path[0] = first;
        while (length < size) {
            int here = path[length - 1], noptions = 0, fewest = size;
            for (int i = start[here]; i < start[here + 1]; i++)
                if (!visited[reach[i]]) options[noptions++] = reach[i];
            if (!noptions) break;
            for (int i = 0; i < noptions; i++)
                if (free_degree[options[i]] < fewest) fewest = free_degree[options[i]];
            /* mostly Warnsdorff, sometimes any cell, so paths stay varied */
            const int32_t *from = options;
            int npool = noptions;
            if (!(rng_random(&g->rng) < 0.25)) {
                npool = 0;
                for (int i = 0; i < noptions; i++)
                    if (free_degree[options[i]] == fewest) pool[npool++] = options[i];
                from = pool;
            }
            int next = from[rng_below(&g->rng, npool)];
            visited[next] = 1;
            for (int i = start[next]; i < start[next + 1]; i++) free_degree[reach[i]]--;
            path[length++] = next;
        }
        if (length == size) break;
    }
    result = GEN_OK;
done:
    free(start);
    free(reach);
    free(free_degree);
    free(options);
    free(pool);
    free(visited);
    return result;
}

static int number_at(Gen *g, u64 *state, int cell)
{
    Ctx c;
    bind(&c, g->geo, state);
    return c.num[cell];
}

/* propagation alone: 1 when it completes the board, 0 when it stalls (the branching point's
 * moves in g->moves, their count in *count), -1 on a contradiction, -2 out of memory */
static int deduce(Gen *g, u64 *state, int64_t *count)
{
    int64_t n = arrows_propagate(g->geo, state, g->moves);
    if (n < 0) return (int)n;
    *count = n;
    return n == 0;
}

/* step 3: generator._give_until_deduced */
static int give_until_deduced(Gen *g)
{
    int size = g->size;
    u64 *state = malloc(g->state_bytes);
    char *marked = malloc((size_t)size);
    int result = GEN_NO_MEMORY;
    if (!state || !marked) goto done;
    result = GEN_NOT_UNIQUE;        /* (the solution's own givens cannot contradict) */
    if (arrows_state_init(g->geo, state, g->givens) < 0) goto done;
    for (;;) {
        int64_t count = 0;
        int deduced = deduce(g, state, &count);
        if (deduced < 0) {
            result = deduced == -2 ? GEN_NO_MEMORY : GEN_NOT_UNIQUE;
            goto done;
        }
        if (deduced) break;
        memset(marked, 0, (size_t)size);
        for (int64_t i = 0; i < count; i++) {
            marked[g->moves[3 * i + 1]] = 1;
            if (g->moves[3 * i] == MOVE_LINK) marked[g->moves[3 * i + 2]] = 1;
        }
        int nopen = 0;
        for (int cell = 0; cell < size; cell++)
            if (marked[cell] && !number_at(g, state, cell)) g->cells[nopen++] = cell;
        if (!nopen)     /* (the branching point is on numbers alone) any cell still open */
            for (int cell = 0; cell < size; cell++)
                if (!number_at(g, state, cell)) g->cells[nopen++] = cell;
        int cell = g->cells[rng_below(&g->rng, nopen)];
        if (g->nadded == g->room) {
            int room = g->room ? 2 * g->room : 16;
            u64 *grown = realloc(g->saved, g->state_bytes * (size_t)room);
            if (!grown) {
                result = GEN_NO_MEMORY;
                goto done;
            }
            g->saved = grown;
            g->room = room;
        }
        memcpy((char *)g->saved + (size_t)g->nadded * g->state_bytes, state, g->state_bytes);
        g->added[g->nadded++] = cell;
        g->givens[cell] = g->answer[cell];
        int32_t number = g->answer[cell];
        if (arrows_give(g->geo, state, &cell, &number, 1) < 0) goto done;
    }
    result = GEN_OK;
done:
    free(state);
    free(marked);
    return result;
}

/* step 4 for the givens step 3 added: generator._take_away_added */
static int take_away_added(Gen *g)
{
    u64 *trial = malloc(g->state_bytes);
    int nkept = 0, result = GEN_NO_MEMORY;
    if (!trial) return result;
    for (int index = 0; index < g->nadded; index++) {
        int at = g->nadded - 1 - index, cell = g->added[at], complete = 0;
        if (index) {
            memcpy(trial, (char *)g->saved + (size_t)at * g->state_bytes, g->state_bytes);
            for (int i = 0; i < nkept; i++) g->numbers[i] = g->answer[g->cells[i]];
            if (arrows_give(g->geo, trial, g->cells, g->numbers, nkept) == 0) {
                int64_t count;
                int deduced = deduce(g, trial, &count);
                if (deduced == -2) goto done;
                complete = deduced == 1;
            }
        }
        if (complete) g->givens[cell] = 0;
        else g->cells[nkept++] = cell;
    }
    result = GEN_OK;
done:
    free(trial);
    return result;
}

/* propagation alone completes the givens: 1, 0, or -2 out of memory */
static int deduces(Gen *g)
{
    u64 *state = malloc(g->state_bytes);
    if (!state) return -2;
    int64_t count;
    int deduced = arrows_state_init(g->geo, state, g->givens) < 0 ? -1 : deduce(g, state, &count);
    free(state);
    return deduced == -2 ? -2 : deduced == 1;
}

/* exactly the solution, proven within max_nodes search nodes: 1, 0, or -2 out of memory */
static int unique_within(Gen *g, int64_t max_nodes, int32_t *found)
{
    int64_t figures[2];
    int64_t n = arrows_solutions(g->geo, g->givens, 2, max_nodes, found, figures);
    if (n == -2) return -2;
    return n == 1 && !memcmp(found, g->answer, sizeof(int32_t) * (size_t)g->size);
}

/* The generator of generator.py for a board, from Python's random state `mt` (624 words and
 * the index, as random.Random.getstate() gives them): writes the solution's arrows and
 * numbers, the puzzle's givens, and figures[0..1] the nodes and branching points of proving
 * it unique. 0, -2 out of memory, -3 when the result is not unique (cannot happen). */
int64_t arrows_generate(int64_t rows, int64_t cols, const uint32_t *mt, int64_t start_count, int64_t minimize,
                        int64_t hard, int64_t max_nodes, int32_t *arrows, int32_t *answer, int32_t *givens,
                        int64_t *figures)
{
    Gen g;
    memset(&g, 0, sizeof g);
    g.rows = (int)rows;
    g.cols = (int)cols;
    int size = g.size = (int)(rows * cols);
    memcpy(g.rng.mt, mt, sizeof g.rng.mt);
    g.rng.index = (int)mt[MT_N];
    g.answer = answer;
    g.givens = givens;
    g.state_bytes = sizeof(u64) * (size_t)arrows_state_words(size);
    int32_t *path = malloc(sizeof(int32_t) * (size_t)size);
    int32_t *found = malloc(sizeof(int32_t) * 2 * (size_t)size);
    g.geo = malloc(sizeof(u64) * (size_t)arrows_geo_words(rows, cols));
    g.moves = malloc(sizeof(int32_t) * 3 * (size_t)(size + 2));
    g.cells = malloc(sizeof(int32_t) * (size_t)size);
    g.numbers = malloc(sizeof(int32_t) * (size_t)size);
    g.work = malloc(sizeof(int32_t) * (size_t)size);
    g.added = malloc(sizeof(int32_t) * (size_t)size);
    int result = GEN_NO_MEMORY;
    if (!path || !found || !g.geo || !g.moves || !g.cells || !g.numbers || !g.work || !g.added) goto done;
    if ((result = random_path(&g, path)) != GEN_OK) goto done;
    /* step 2: generator.board_of_path */
    for (int i = 0; i < size; i++) {
        int cell = path[i];
        answer[cell] = i + 1;
        arrows[cell] = -1;
        if (i + 1 < size) {
            int r0 = cell / g.cols, c0 = cell % g.cols, r1 = path[i + 1] / g.cols, c1 = path[i + 1] % g.cols;
            int dr = (r1 > r0) - (r1 < r0), dc = (c1 > c0) - (c1 < c0);
            for (int d = 0; d < 8; d++)
                if (STEP_D_ROW[d] == dr && STEP_D_COL[d] == dc) arrows[cell] = d;
        }
    }
    memset(givens, 0, sizeof(int32_t) * (size_t)size);
    givens[path[0]] = 1;
    givens[path[size - 1]] = size;
    rng_sample(&g.rng, size, (int)start_count, g.cells, g.work);
    for (int i = 0; i < start_count; i++) givens[g.cells[i]] = answer[g.cells[i]];
    arrows_geo_init(g.geo, rows, cols, arrows);
    int nbase = 0;
    for (int cell = 0; cell < size; cell++)
        if (givens[cell] && answer[cell] != 1 && answer[cell] != size) g.work[nbase++] = cell;
    if ((result = give_until_deduced(&g)) != GEN_OK) goto done;
    if (minimize || hard) {
        if ((result = take_away_added(&g)) != GEN_OK) goto done;
        rng_shuffle(&g.rng, g.work, nbase);
        for (int i = 0; i < nbase; i++) {
            int cell = g.work[i];
            givens[cell] = 0;
            int deduced = deduces(&g);
            if (deduced < 0) { result = GEN_NO_MEMORY; goto done; }
            if (!deduced) givens[cell] = answer[cell];
        }
    }
    int nremovable = 0;
    for (int cell = 0; cell < size; cell++)
        if (givens[cell] && answer[cell] != 1 && answer[cell] != size) g.work[nremovable++] = cell;
    rng_shuffle(&g.rng, g.work, nremovable);
    if (hard)       /* step 5: generator._take_away_within */
        for (int i = 0; i < nremovable; i++) {
            int cell = g.work[i];
            if (!givens[cell]) continue;
            givens[cell] = 0;
            int unique = unique_within(&g, max_nodes, found);
            if (unique < 0) { result = GEN_NO_MEMORY; goto done; }
            if (!unique) givens[cell] = answer[cell];
        }
    int64_t n = arrows_solutions(g.geo, givens, 2, -1, found, figures);
    if (n == -2) result = GEN_NO_MEMORY;
    else if (n != 1 || memcmp(found, answer, sizeof(int32_t) * (size_t)size)) result = GEN_NOT_UNIQUE;
    else result = GEN_OK;
done:
    free(path);
    free(found);
    free(g.geo);
    free(g.moves);
    free(g.cells);
    free(g.numbers);
    free(g.work);
    free(g.added);
    free(g.saved);
    return result;
}
