/* The generator of generate.c as a program of its own, which the quick `verify gen arrows`
 * (quick.py) starts instead of loading the library with ctypes: Python's start is most of that
 * command's time, and this costs less than importing ctypes.
 *
 *     arrows-generate ROWS COLS START_COUNT MINIMIZE HARD MAX_NODES KEY
 *
 * KEY is the seed's key for random.Random (generation.seed_key): its 32-bit words, least
 * significant first, each as 8 hex digits. On success it writes to stdout, in this machine's
 * byte order, the solution's arrows, its numbers and the puzzle's givens (ROWS * COLS int32 each),
 * then the search nodes and branching points of the uniqueness proof (two int64), and exits 0.
 * Otherwise it writes nothing: exit 2 for arguments it does not take, 3 out of memory, 4 when
 * the result is not unique (cannot happen), 5 when stdout cannot take it all. It ends with the
 * process that started it. */
#include "generate.c"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

enum { MAX_KEY_WORDS = 64 };

/* a plain decimal in [low, high] (0 <= low), or -1 */
static int64_t number(const char *text, int64_t low, int64_t high)
{
    char *end;
    if (*text < '0' || *text > '9') return -1;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    return !errno && !*end && value >= low && value <= high ? (int64_t)value : -1;
}

static int write_all(const void *data, size_t length)
{
    const char *bytes = data;
    while (length) {
        ssize_t written = write(1, bytes, length);
        if (written <= 0) return -1;
        bytes += written;
        length -= (size_t)written;
    }
    return 0;
}

int main(int argc, char **argv)
{
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);       /* no work left running for a verify that is gone */
    if (getppid() != parent) return 1;
    if (argc != 8) return 2;
    int64_t rows = number(argv[1], 1, 2500), cols = number(argv[2], 1, 2500);
    int64_t start_count = number(argv[3], 0, 2500), minimize = number(argv[4], 0, 1);
    int64_t hard = number(argv[5], 0, 1), max_nodes = number(argv[6], 1, INT64_MAX);
    size_t digits = strlen(argv[7]), words = digits / 8;
    if (rows < 0 || cols < 0 || rows * cols < 2 || rows * cols > 2500 || start_count < 0 || start_count > rows * cols || minimize < 0
            || hard < 0 || max_nodes < 0 || !words || words > MAX_KEY_WORDS || digits % 8)
        return 2;
    uint32_t key[MAX_KEY_WORDS], mt[MT_N + 1];
    for (size_t w = 0; w < words; w++) {
        uint32_t word = 0;
        for (size_t d = 8 * w; d < 8 * w + 8; d++) {
            char c = argv[7][d];
            int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0) return 2;
            word = word << 4 | (uint32_t)digit;
        }
        key[w] = word;
    }
    arrows_seed(key, (int64_t)words, mt);
    size_t size = (size_t)(rows * cols);
    int32_t *cells = malloc(sizeof(int32_t) * 3 * size);
    int64_t figures[2];
    if (!cells) return 3;
    int64_t code = arrows_generate(rows, cols, mt, start_count, minimize, hard, max_nodes, cells, cells + size,
                                   cells + 2 * size, figures);
    if (code == -2) return 3;
    if (code) return 4;
    if (write_all(cells, sizeof(int32_t) * 3 * size) || write_all(figures, sizeof figures)) return 5;
    return 0;
}
