/* Arrow path: read a puzzle on stdin (Dutch arrow names), print the solved board.
 *
 * The given numbers cut the path into gaps (from a given k to the next given m).
 * Depth-first search fills the gaps one cell at a time, always extending the
 * gap whose next cell has the fewest possibilities. Before going deeper every
 * unfinished gap must still be walkable over unused cells (the cells reachable
 * from its front in j steps and reaching its end in the remaining steps exist
 * for every j), and every unused cell must lie in some gap. Cell sets are
 * bitsets of 64-bit words.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MAXW 64                       /* up to 4096 cells */
typedef struct { uint64_t w[MAXW]; } Set;

static int rows, cols, n, words;
static int arrow[4096], given[4096], cell_of[4097], answer[4096];
static Set succ[4096], pred[4096];
static int given_numbers[4097], given_count;
static char names[4096][3];
static char header[64];
static const char *NAMES[8] = {"N", "NO", "O", "ZO", "Z", "ZW", "W", "NW"};  /* Dutch names */
static const int DR[8] = {-1, -1, 0, 1, 1, 1, 0, -1}, DC[8] = {0, 1, 1, 1, 0, -1, -1, -1};

static void set_clear(Set *s) { memset(s->w, 0, sizeof(uint64_t) * words); }
static void set_add(Set *s, int c) { s->w[c >> 6] |= 1ULL << (c & 63); }
static int set_has(const Set *s, int c) { return (s->w[c >> 6] >> (c & 63)) & 1; }

/* out = (union of moves[c] for c in layer) & allowed */
static void step(const Set *layer, const Set *moves, const Set *allowed, Set *out) {
    set_clear(out);
    for (int i = 0; i < words; i++) {
        uint64_t bits = layer->w[i];
        while (bits) {
            int c = i * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            for (int j = 0; j < words; j++) out->w[j] |= moves[c].w[j];
        }
    }
    for (int j = 0; j < words; j++) out->w[j] &= allowed->w[j];
}

static Set back_layers[4097];
static int gaps, front[4097], front_number[4097], goal_number[4097];

static int popcount(const Set *s) {
    int total = 0;
    for (int i = 0; i < words; i++) total += __builtin_popcountll(s->w[i]);
    return total;
}

/* Can every unfinished gap still be walked over the free cells, covering them all?
 * Also picks the gap whose next step has the fewest possible cells (*best, *options). */
static int feasible(const Set *free, int *best, Set *options) {
    Set covered, layer, next;
    set_clear(&covered);
    int fewest = 1 << 30;
    *best = -1;
    for (int g = 0; g < gaps; g++) {
        int length = goal_number[g] - front_number[g], goal = cell_of[goal_number[g]];
        if (length == 1) {
            if (!set_has(&succ[front[g]], goal)) return 0;
            continue;
        }
        set_clear(&back_layers[0]);
        set_add(&back_layers[0], goal);
        for (int j = 1; j < length; j++) step(&back_layers[j - 1], pred, free, &back_layers[j]);
        set_clear(&layer);
        set_add(&layer, front[g]);
        for (int j = 1; j < length; j++) {
            step(&layer, succ, free, &next);
            int any = 0;
            for (int i = 0; i < words; i++) {
                layer.w[i] = next.w[i] & back_layers[length - j].w[i];
                covered.w[i] |= layer.w[i];
                any |= layer.w[i] != 0;
            }
            if (!any) return 0;
            if (j == 1) {
                int count = popcount(&layer);
                if (count < fewest) { fewest = count; *best = g; *options = layer; }
            }
        }
    }
    for (int i = 0; i < words; i++) if (covered.w[i] != free->w[i]) return 0;
    return 1;
}

/* Fill the gaps, always extending the one with the fewest options by one cell. */
static int search(const Set *free) {
    int g;
    Set options;
    if (!feasible(free, &g, &options)) return 0;
    if (g < 0) return 1;                       /* every gap filled, every cell used */
    int old_front = front[g];
    for (int i = 0; i < words; i++) {
        uint64_t bits = options.w[i];
        while (bits) {
            int cell = i * 64 + __builtin_ctzll(bits);
            bits &= bits - 1;
            Set rest = *free;
            rest.w[cell >> 6] &= ~(1ULL << (cell & 63));
            front[g] = cell;
            front_number[g]++;
            answer[cell] = front_number[g];
            if (search(&rest)) return 1;
            front_number[g]--;
        }
    }
    front[g] = old_front;
    return 0;
}

int main(void) {
    if (!fgets(header, sizeof header, stdin)) return 1;
    int got = sscanf(header, "%d %d", &rows, &cols);
    if (got == 1) cols = rows;
    header[strcspn(header, "\r\n")] = 0;
    n = rows * cols;
    words = (n + 63) / 64;
    for (int i = 0; i <= n; i++) cell_of[i] = -1;
    int last = -1;
    for (int c = 0; c < n; c++) {
        char token[32];
        if (scanf("%31s", token) != 1) return 1;
        char *p = token;
        given[c] = (int)strtol(p, &p, 10);
        strcpy(names[c], p);
        arrow[c] = -1;
        for (int d = 0; d < 8; d++) if (!strcmp(p, NAMES[d])) arrow[c] = d;
        if (arrow[c] < 0) last = c;
    }
    given[last] = n;
    for (int c = 0; c < n; c++) if (given[c]) cell_of[given[c]] = c;
    for (int v = 1; v <= n; v++) if (cell_of[v] >= 0) given_numbers[given_count++] = v;
    for (int c = 0; c < n; c++) {
        set_clear(&succ[c]);
        set_clear(&pred[c]);
    }
    for (int c = 0; c < n; c++) {
        if (arrow[c] < 0) continue;
        int r = c / cols + DR[arrow[c]], q = c % cols + DC[arrow[c]];
        while (r >= 0 && r < rows && q >= 0 && q < cols) {
            set_add(&succ[c], r * cols + q);
            set_add(&pred[r * cols + q], c);
            r += DR[arrow[c]];
            q += DC[arrow[c]];
        }
    }
    Set free;
    set_clear(&free);
    for (int c = 0; c < n; c++) if (!given[c]) set_add(&free, c);
    for (int c = 0; c < n; c++) if (given[c]) answer[c] = given[c];
    /* gaps between consecutive given numbers (1 is assumed given, as in every test case) */
    for (int g = 0; g + 1 < given_count; g++) {
        front[gaps] = cell_of[given_numbers[g]];
        front_number[gaps] = given_numbers[g];
        goal_number[gaps++] = given_numbers[g + 1];
    }
    if (cell_of[1] < 0 || !search(&free)) {
        fprintf(stderr, "no solution\n");
        return 1;
    }
    printf("%s\n", header);
    for (int r = 0; r < rows; r++)
        for (int q = 0; q < cols; q++)
            printf("%d%s%c", answer[r * cols + q], names[r * cols + q], q == cols - 1 ? '\n' : ' ');
    return 0;
}
