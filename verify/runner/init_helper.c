/* verify's tiny helper inside the sandbox:
 *   verify-init REPORT_FD UID -- COMMAND...
 * switches to UID (unless it is -1: keep ours), runs COMMAND as its child, waits for it,
 * writes "utime_us stime_us maxrss_kb" of the child (and its reaped descendants) to
 * REPORT_FD, then ends the way the child ended (same exit code, or the same signal).
 * Needed because bubblewrap's outer process does not wait for the program itself,
 * so the parent's wait4() cannot see the program's CPU time and peak memory. */
#define _GNU_SOURCE
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

int main(int argc, char **argv) {
    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: verify-init REPORT_FD UID -- COMMAND...\n");
        return 125;
    }
    int report = atoi(argv[1]);
    long uid = atol(argv[2]);
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0) {
            perror("verify-init: cannot switch uid");
            return 125;
        }
    }
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    pid_t child = fork();
    if (child < 0) { perror("verify-init: fork"); return 125; }
    if (child == 0) {
        close(report);
        signal(SIGPIPE, SIG_DFL);
        execvp(argv[4], argv + 4);
        fprintf(stderr, "verify-init: cannot run %s: %s\n", argv[4], strerror(errno));
        _exit(127);
    }
    /* our own signals must not kill us before the report is written */
    signal(SIGINT, SIG_IGN); signal(SIGTERM, SIG_IGN); signal(SIGHUP, SIG_IGN); signal(SIGPIPE, SIG_IGN);
    int status; struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {}
    dprintf(report, "%ld %ld %ld\n",
            (long)usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec,
            usage.ru_maxrss);
    close(report);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(sig, SIG_DFL);
        sigset_t all; sigemptyset(&all); sigaddset(&all, sig);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        kill(getpid(), sig);
        return 128 + sig;
    }
    return WEXITSTATUS(status);
}
