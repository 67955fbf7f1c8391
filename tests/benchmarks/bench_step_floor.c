/* The least a per-step run can cost with a step's isolation, against a bare spawn, in C with no
 * judge around it: what is left for verify's own work under the goal of "a served C step at most
 * 1.5x a bare spawn". Run as root (namespaces); each mode's steps alternate in blocks, so the
 * machine's noise hits them alike. Prints the median wall time of a step in each mode and its
 * ratio to bare.
 *
 *   cc -O2 -o /tmp/step_floor tests/benchmarks/bench_step_floor.c
 *   /tmp/step_floor PROGRAM [RUNS] [BLOCK]     (PROGRAM: e.g. a C `int main(){return 0;}`)
 *   /tmp/step_floor --serve PROGRAM            (bench_per_step.py: one step of the mode each
 *                                               line of stdin names, its seconds on stdout)
 *
 * bare: fork, exec PROGRAM, wait (what `subprocess.run` of the program does, minus Python).
 * fresh: a step made at its request: fork; the child unshares mount, IPC and PID namespaces,
 *   makes its mounts private, mounts a fresh tmpfs (a step's /tmp), forks the namespace's pid 1,
 *   which forks the program's process (pid 2), which execs PROGRAM; pid 1 waits for it and exits
 *   with its status; the parent waits for the child, which waits for pid 1.
 * ahead: the same step, made before it is asked for: the program's process waits on a pipe just
 *   before its exec; a step is timed from the write that lets it go to its end, while the next
 *   step is made beside it (as the fork server makes its next step while one runs).
 * None of these loads a seccomp filter, Landlock rules or rlimits, switches uid, joins a cgroup
 * or reports to a judge: a served step does all of that too, so its cost is above "ahead". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *program;
static char scratch[] = "/tmp/step-floor-XXXXXX";

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void quiet_stdio(void) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    close(null);
}

static void run_program(void) {
    char *argv[] = {program, NULL};
    quiet_stdio();
    execv(program, argv);
    _exit(127);
}

static int wait_for(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {}
    return status;
}

/* The step's own namespaces and mounts; then pid 1 and the program's process. `go`: the read end
 * the program's process waits on before its exec (-1: no wait). Returns in the maker's child only
 * to exit with the step's status. */
static void make_step(int go) {
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID) != 0) { perror("unshare"); _exit(125); }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) { perror("mount private"); _exit(125); }
    if (mount("tmpfs", scratch, "tmpfs", 0, "size=1m,mode=1777") != 0) { perror("tmpfs"); _exit(125); }
    pid_t init = fork();
    if (init == 0) {
        setsid();
        pid_t child = fork();
        if (child == 0) {
            if (go >= 0) {
                char byte;
                if (read(go, &byte, 1) != 1) _exit(126);
                close(go);
            }
            run_program();
        }
        if (go >= 0) close(go);
        int status = wait_for(child);
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128);
    }
    if (go >= 0) close(go);
    int status = wait_for(init);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

static double bare_step(void) {
    double started = now();
    pid_t pid = fork();
    if (pid == 0) run_program();
    wait_for(pid);
    return now() - started;
}

static double fresh_step(void) {
    double started = now();
    pid_t pid = fork();
    if (pid == 0) make_step(-1);
    wait_for(pid);
    return now() - started;
}

struct made { pid_t pid; int go; };

static struct made make_ahead(void) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) { perror("pipe"); exit(1); }
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_fds[1]);
        make_step(pipe_fds[0]);
    }
    close(pipe_fds[0]);
    return (struct made){pid, pipe_fds[1]};
}

static struct made next_step;

static double ahead_step(void) {
    struct made step = next_step;
    double started = now();
    if (write(step.go, "g", 1) != 1) { perror("go"); exit(1); }
    close(step.go);
    next_step = make_ahead();          /* the next step, made while this one runs */
    wait_for(step.pid);
    return now() - started;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof *values, by_value);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

/* One step per line of stdin ("bare", "fresh" or "ahead"), its wall seconds a line on stdout:
 * for a benchmark that alternates these steps with its own. */
static int serve(void) {
    char line[64];
    next_step = make_ahead();
    while (fgets(line, sizeof line, stdin) != NULL) {
        double spent;
        if (!strcmp(line, "bare\n")) spent = bare_step();
        else if (!strcmp(line, "fresh\n")) spent = fresh_step();
        else if (!strcmp(line, "ahead\n")) spent = ahead_step();
        else { fprintf(stderr, "step_floor: no mode %s", line); return 2; }
        printf("%.9f\n", spent);
        fflush(stdout);
    }
    close(next_step.go);
    wait_for(next_step.pid);
    rmdir(scratch);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--serve")) {
        program = argv[2];
        if (mkdtemp(scratch) == NULL) { perror("mkdtemp"); return 1; }
        return serve();
    }
    if (argc < 2) { fprintf(stderr, "usage: step_floor PROGRAM [RUNS] [BLOCK]\n"); return 2; }
    program = argv[1];
    int runs = argc > 2 ? atoi(argv[2]) : 300, block = argc > 3 ? atoi(argv[3]) : 10;
    if (runs < 1 || block < 1) { fprintf(stderr, "step_floor: RUNS and BLOCK are positive\n"); return 2; }
    if (mkdtemp(scratch) == NULL) { perror("mkdtemp"); return 1; }
    double (*modes[])(void) = {bare_step, fresh_step, ahead_step};
    const char *names[] = {"bare", "fresh", "ahead"};
    enum { MODES = 3 };
    double *times[MODES];
    for (int m = 0; m < MODES; m++) times[m] = calloc((size_t)runs, sizeof(double));
    next_step = make_ahead();
    for (int m = 0; m < MODES; m++) modes[m]();    /* warm: the program's pages, the first namespaces */
    for (int done = 0; done < runs; done += block) {
        for (int m = 0; m < MODES; m++) {
            for (int k = done; k < done + block && k < runs; k++) times[m][k] = modes[m]();
        }
    }
    close(next_step.go);
    wait_for(next_step.pid);
    rmdir(scratch);
    double bare = median(times[0], runs);
    for (int m = 0; m < MODES; m++) {
        double value = m == 0 ? bare : median(times[m], runs);
        printf("%-6s %.3f ms  %.2fx bare\n", names[m], value * 1e3, value / bare);
    }
    return 0;
}
