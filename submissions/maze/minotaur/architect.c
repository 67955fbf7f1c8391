/* The Minotaur's architect: a labyrinth with an island at its heart.
 *
 * It carves a perfect maze (recursive backtracker), then puts the start in
 * the centre cell and turns the eight cells around it into a ring corridor
 * (the walls between ring cells are removed) while the centre keeps three of
 * its walls. Those three walls then touch no other wall: a wall follower
 * leaving the start keeps its hand on them and circles the ring forever.
 * Every cell stays reachable (the ring is one loop and the centre opens onto
 * it). The end is the cell farthest from the start.
 *
 * Input: "size seed" on stdin (or as two arguments). Same size and seed, same maze.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX 64
static int n;
static char hwall[MAX * MAX], vwall[MAX * MAX];  /* 1 = wall, indexed as in the format */
static uint64_t rng;

static uint64_t next_random(void) { /* splitmix64 */
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* pointer to the wall between adjacent cells (r1,c1) and (r2,c2) */
static char *wall(int r1, int c1, int r2, int c2) {
    if (r2 < r1 || c2 < c1) { int t = r1; r1 = r2; r2 = t; t = c1; c1 = c2; c2 = t; }
    return r1 == r2 ? &vwall[r1 * (n - 1) + c1] : &hwall[r1 * n + c1];
}

static const int DR[4] = {-1, 0, 0, 1}, DC[4] = {0, -1, 1, 0};

static void carve(void) {
    static int stack[MAX * MAX], seen[MAX * MAX];
    int top = 0;
    memset(seen, 0, sizeof seen);
    stack[top++] = 0; seen[0] = 1;
    while (top) {
        int cell = stack[top - 1], r = cell / n, c = cell % n, options[4], count = 0;
        for (int d = 0; d < 4; d++) {
            int rr = r + DR[d], cc = c + DC[d];
            if (rr >= 0 && rr < n && cc >= 0 && cc < n && !seen[rr * n + cc]) options[count++] = d;
        }
        if (!count) { top--; continue; }
        int d = options[next_random() % count], rr = r + DR[d], cc = c + DC[d];
        *wall(r, c, rr, cc) = 0;
        seen[rr * n + cc] = 1;
        stack[top++] = rr * n + cc;
    }
}

static int farthest_from(int start) {
    static int dist[MAX * MAX], queue[MAX * MAX];
    int head = 0, tail = 0, best = start;
    for (int i = 0; i < n * n; i++) dist[i] = -1;
    dist[start] = 0; queue[tail++] = start;
    while (head < tail) {
        int cell = queue[head++], r = cell / n, c = cell % n;
        if (dist[cell] > dist[best]) best = cell;
        for (int d = 0; d < 4; d++) {
            int rr = r + DR[d], cc = c + DC[d];
            if (rr < 0 || rr >= n || cc < 0 || cc >= n || *wall(r, c, rr, cc) || dist[rr * n + cc] >= 0) continue;
            dist[rr * n + cc] = dist[cell] + 1;
            queue[tail++] = rr * n + cc;
        }
    }
    return best;
}

int main(int argc, char **argv) {
    char request[256] = "";
    unsigned long long seed = 0;
    if (!fgets(request, sizeof request, stdin) || sscanf(request, "%d %llu", &n, &seed) < 1) {
        if (argc < 2) { fprintf(stderr, "usage: size [seed]\n"); return 2; }
        n = atoi(argv[1]);
        seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;
    }
    if (n < 5 || n > MAX) { fprintf(stderr, "size %d not supported\n", n); return 2; }
    rng = seed * 1000003ULL + (uint64_t)n;
    memset(hwall, 1, sizeof hwall);
    memset(vwall, 1, sizeof vwall);
    carve();

    int m = n / 2;
    /* the ring: walls between consecutive cells around the centre go */
    static const int ring[8][2] = {{-1,-1},{-1,0},{-1,1},{0,1},{1,1},{1,0},{1,-1},{0,-1}};
    for (int i = 0; i < 8; i++) {
        const int *a = ring[i], *b = ring[(i + 1) % 8];
        *wall(m + a[0], m + a[1], m + b[0], m + b[1]) = 0;
    }
    /* the centre keeps one opening (the first it had, else upward) and three walls */
    int opening = -1;
    for (int d = 0; d < 4 && opening < 0; d++)
        if (!*wall(m, m, m + DR[d], m + DC[d])) opening = d;
    if (opening < 0) opening = 0;
    for (int d = 0; d < 4; d++) *wall(m, m, m + DR[d], m + DC[d]) = d != opening;

    int start = m * n + m, end = farthest_from(start);
    printf("%d\n%d %d\n%d %d\n", n, m, m, end / n, end % n);
    for (int i = 0; i < n * (n - 1); i++) putchar('0' + hwall[i]);
    putchar('\n');
    for (int i = 0; i < n * (n - 1); i++) putchar('0' + vwall[i]);
    putchar('\n');
    return 0;
}
