/* Desert crossing, recursive caching (standard notation: one "D+0" turn per line).
 *
 * The traveller follows one shortest path from S to E (along S's row, then
 * along E's column).  Tile j of the path is stocked by round trips from S;
 * a round trip to tile j takes one unit from every tile before j on the way
 * out and one on the way back, so those tiles are stocked to 2 first,
 * farthest first (stocking a nearer tile never touches a farther one).
 * Stocking tile j from nothing costs 2^(j+1)-2 turns: the output doubles
 * with every square of distance.  The winning walk keeps the bottle full,
 * taking one unit from every tile on the way.  Water already on the map is
 * used as if it had been cached.  Before that, when E is more than 5 squares
 * away, one attempt walks straight at E and dies of thirst.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *grid;             /* the input map, rows without their '\n' */
static int W, H;
static int *water;             /* units per square now (S: infinite, unused) */
static char *visited;
static int *path, d;           /* path[0] = S ... path[d] = E, as square indices */
static char *ahead, *behind;   /* letters of the moves path[i] -> path[i+1] and back */
static int at, carried;        /* index on the path, units carried */

static char out[1 << 20];
static size_t used;

static void flush(void) { fwrite(out, 1, used, stdout); used = 0; }

static void put(const char *text, size_t n)
{
    if (used + n > sizeof out) flush();
    memcpy(out + used, text, n);
    used += n;
}

/* One turn: move one square along the path, drink, then pick up (units > 0) or drop. */
static void turn(int forward, int units)
{
    char line[8];
    char letter = forward ? ahead[at] : behind[at - 1];
    at += forward ? 1 : -1;
    carried -= 1;
    int square = path[at];
    visited[square] = 1;
    if (at != 0) water[square] -= units;   /* S never runs dry */
    carried += units;
    line[0] = letter;
    line[1] = units < 0 ? '-' : '+';
    line[2] = (char)('0' + (units < 0 ? -units : units));
    line[3] = '\n';
    put(line, 4);
}

static void stock(int j, int need);

/* From S with 5 units: drop `units` on tile j and come back to S with 5 units. */
static void round_trip(int j, int units)
{
    for (int i = j - 1; i >= 1; i--) stock(i, 2);
    for (int i = 1; i < j; i++) turn(1, 1);
    turn(1, -units);
    for (int i = j - 1; i >= 1; i--) turn(0, 1);
    turn(0, 5 - (carried - 1));
}

/* Make tile j of the path hold at least `need` units (traveller at S, full). */
static void stock(int j, int need)
{
    while (water[path[j]] < need) round_trip(j, need - water[path[j]]);
}

static void print_map(void)
{
    for (int r = 0; r < H; r++) {
        for (int c = 0; c < W; c++) {
            int square = r * W + c;
            char shown = grid[square];
            if (shown != 'S' && shown != 'E')
                shown = water[square] ? (char)('0' + water[square]) : visited[square] ? '#' : '.';
            put(&shown, 1);
        }
        put("\n", 1);
    }
}

static void start_attempt(void)
{
    for (int square = 0; square < W * H; square++) {
        char c = grid[square];
        water[square] = c >= '1' && c <= '9' ? c - '0' : 0;
        visited[square] = 0;
    }
    at = 0;
    carried = 5;
    visited[path[0]] = 1;
}

static char *read_all(size_t *length)
{
    size_t size = 1 << 16, n = 0, got;
    char *text = malloc(size);
    while ((got = fread(text + n, 1, size - n, stdin)) > 0) {
        n += got;
        if (n == size) text = realloc(text, size *= 2);
    }
    *length = n;
    return text;
}

int main(void)
{
    size_t length;
    char *text = read_all(&length);
    W = (int)(strchr(text, '\n') - text);
    H = (int)(length / (size_t)(W + 1));
    grid = malloc((size_t)W * H);
    for (int r = 0; r < H; r++) memcpy(grid + (size_t)r * W, text + (size_t)r * (W + 1), (size_t)W);
    water = malloc(sizeof *water * (size_t)W * H);
    visited = malloc((size_t)W * H);

    int start = (int)(strchr(grid, 'S') - grid), end = (int)(memchr(grid, 'E', (size_t)W * H) - (void *)grid);
    int r = start / W, c = start % W, er = end / W, ec = end % W;
    d = abs(er - r) + abs(ec - c);
    path = malloc(sizeof *path * (size_t)(d + 1));
    ahead = malloc((size_t)d + 1);
    behind = malloc((size_t)d + 1);
    for (int i = 0; i <= d; i++) {
        path[i] = r * W + c;
        if (i == d) break;
        if (c != ec) { ahead[i] = c < ec ? 'R' : 'L'; c += c < ec ? 1 : -1; }
        else { ahead[i] = r < er ? 'D' : 'U'; r += r < er ? 1 : -1; }
        behind[i] = ahead[i] == 'R' ? 'L' : ahead[i] == 'L' ? 'R' : ahead[i] == 'D' ? 'U' : 'D';
    }

    if (d > 5) {                        /* walk at E without caches: dies on turn 5 */
        start_attempt();
        for (int i = 0; i < 5; i++) turn(1, 0);
        print_map();
    }
    start_attempt();
    for (int i = d - 1; i >= 1; i--) stock(i, 1);
    for (int i = 1; i < d; i++) turn(1, 1);
    turn(1, 0);
    print_map();
    flush();
    return 0;
}
