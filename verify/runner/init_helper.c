/* verify's tiny helper, the last step before the program:
 *   verify-init [--go FD] REPORT_FD UID NPROC CPU MEMKIND MEMORY FSIZE NOFILE CGROUP_FD -- COMMAND...
 * joins the memory cgroup whose cgroup.procs is open as CGROUP_FD (unless -1), sets the rlimits (CPU seconds: soft CPU, hard CPU+1; MEMKIND "data" or "as" of MEMORY
 * bytes; FSIZE bytes; NOFILE; no core files), switches to UID (unless it is -1: keep
 * ours) and sets RLIMIT_NPROC to NPROC (unless -1), runs COMMAND as its child, waits for it,
 * writes "utime_us stime_us maxrss_kb wait_status" of the child (and its reaped
 * descendants) to REPORT_FD, then ends the way the child ended (same exit code, or the same signal).
 * Before exiting it kills whatever the program left behind: it is a child subreaper,
 * so orphaned descendants (even those that left the session) become its children.
 * Under bubblewrap it runs as the PID namespace's init (`bwrap --as-pid-1`: one process
 * fewer per run than bubblewrap's own init); when it exits, the kernel kills the rest.
 * Needed because bubblewrap's outer process does not wait for the program itself,
 * so the parent's wait4() cannot see the program's CPU time and peak memory; and one
 * small exec is cheaper than prlimit + setpriv. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void limit(int resource, long long value) {
    struct rlimit r = {(rlim_t)value, (rlim_t)value};
    if (value < 0) return;
    if (setrlimit(resource, &r) != 0) { perror("verify-init: setrlimit"); exit(125); }
}

/* Kill every child we have (orphans of the program come to us as the subreaper), reap
 * them, and repeat until none is left. */
static void kill_leftovers(void) {
    for (int round = 0; round < 5000; round++) {
        DIR *tasks = opendir("/proc/self/task");
        struct dirent *task;
        while (tasks && (task = readdir(tasks)) != NULL) {
            if (task->d_name[0] == '.') continue;
            char path[300];
            snprintf(path, sizeof path, "/proc/self/task/%s/children", task->d_name);
            FILE *children = fopen(path, "r");
            long pid;
            while (children && fscanf(children, "%ld", &pid) == 1) kill((pid_t)pid, SIGKILL);
            if (children) fclose(children);
        }
        if (tasks) closedir(tasks);
        pid_t reaped;
        while ((reaped = waitpid(-1, NULL, WNOHANG)) > 0) {}
        if (reaped < 0 && errno == ECHILD) return;
        usleep(1000);
    }
}

int main(int argc, char **argv) {
    /* Optional first arguments "--go FD": a sandbox built ahead of time waits here, as
     * root and before anything else, until verify writes one byte to FD (the run starts)
     * or closes it (the sandbox is not needed: exit quietly, nothing was run). */
    if (argc > 3 && strcmp(argv[1], "--go") == 0) {
        int go = atoi(argv[2]);
        char byte;
        ssize_t got;
        while ((got = read(go, &byte, 1)) < 0 && errno == EINTR) {}
        if (got != 1) return 125;
        close(go);
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    if (argc < 12 || strcmp(argv[10], "--") != 0) {
        fprintf(stderr, "usage: verify-init REPORT_FD UID NPROC CPU MEMKIND MEMORY FSIZE NOFILE CGROUP_FD -- COMMAND...\n");
        return 125;
    }
    int cgroup = atoi(argv[9]);
    if (cgroup >= 0) {                       /* "0": the writer itself; children follow */
        if (write(cgroup, "0", 1) != 1) { perror("verify-init: cannot join the memory cgroup"); return 125; }
        close(cgroup);
    }
    int report = atoi(argv[1]);
    long uid = atol(argv[2]);
    long long nproc = atoll(argv[3]), cpu = atoll(argv[4]), memory = atoll(argv[6]);
    struct rlimit cpu_limit = {(rlim_t)cpu, (rlim_t)cpu + 1};
    if (cpu > 0 && setrlimit(RLIMIT_CPU, &cpu_limit) != 0) { perror("verify-init: RLIMIT_CPU"); return 125; }
    limit(strcmp(argv[5], "as") == 0 ? RLIMIT_AS : RLIMIT_DATA, memory);
    limit(RLIMIT_FSIZE, atoll(argv[7]));
    limit(RLIMIT_NOFILE, atoll(argv[8]));
    limit(RLIMIT_CORE, 0);
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0) {
            perror("verify-init: cannot switch uid");
            return 125;
        }
    }
    limit(RLIMIT_NPROC, nproc);
    /* Under `bwrap --as-pid-1` we are the namespace's init: our exit kills every process
     * left in it. The uid switch above cleared the parent-death signal bubblewrap set
     * (--die-with-parent), so set it again: if verify (and so bwrap) dies, so do we.
     * Only as init: elsewhere our parent may be a thread of verify that ends first. */
    if (getpid() == 1) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    pid_t child = fork();
    if (child < 0) { perror("verify-init: fork"); return 125; }
    if (child == 0) {
        close(report);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[11], argv + 11);
        fprintf(stderr, "verify-init: cannot run %s: %s\n", argv[11], strerror(errno));
        _exit(127);
    }
    /* our own signals must not kill us before the report is written */
    signal(SIGINT, SIG_IGN); signal(SIGTERM, SIG_IGN); signal(SIGHUP, SIG_IGN); signal(SIGPIPE, SIG_IGN);
    int status; struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {}
    dprintf(report, "%ld %ld %ld %d\n",
            (long)usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec,
            usage.ru_maxrss, status);
    close(report);
    kill_leftovers();
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigset_t all; sigemptyset(&all); sigaddset(&all, sig);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        kill(getpid(), sig);
        return 128 + sig;
    }
    return WEXITSTATUS(status);
}
