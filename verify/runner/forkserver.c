/* verify-forkserver: one long-lived sandbox, a fresh process (and writable area) per step.
 *
 *   verify-forkserver hold
 *       The sandbox's PID 1 (`bwrap --as-pid-1 ... verify-forkserver hold`): writes "r" on
 *       stdout once bubblewrap has built the sandbox, then only reaps the processes the
 *       namespace hands it. It runs nothing itself.
 *
 *   verify-forkserver step PIDFD WORKDIR TMPFS_SIZE N KEEP... VERIFY-INIT [OPTION...] -- COMMAND...
 *       One step, started by verify on the host: joins the mount, network, UTS and cgroup
 *       namespaces of the sandbox whose PID 1 is PIDFD, then makes its own mount, IPC and
 *       PID namespaces, in which /tmp, /dev/shm and WORKDIR are fresh tmpfs of TMPFS_SIZE
 *       bytes (WORKDIR filled with a copy of the sandbox's pristine one, which stays
 *       underneath, unreachable); the N folders KEEP (read-only mounts of the sandbox below
 *       /tmp or /dev/shm) are mounted again at their paths. Its child, the pid 1 of the
 *       step's PID namespace, mounts that namespace's /proc, leads a new session and runs
 *       verify-init with its own options, exactly as for a run of its own (VERIFY-INIT is
 *       its argv[0]: its code is linked in here, init_helper.c, and runs without an exec);
 *       the step ends the way verify-init ended. So verify-init is the step's init,
 *       supervisor and reporter as in any run (the program is pid 2), and nothing a step
 *       did (files, SysV or POSIX shared memory, pids) is seen by the next one.
 *
 * Both are verify's own trusted code, run as root (the fork server is used only then):
 * the step's program runs as the fresh uid verify-init switches to, without capabilities. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* verify-init as a function of this program: a step's pid 1 runs it without an exec (an
 * exec's dynamic loader and libc start cost more than the rest of that process's start). */
#define main verify_init_main
#include "init_helper.c"
#undef main

#define MAX_DEPTH 64
#define MAX_KEEP 16
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#define SYS_move_mount 429
#endif

static void fail(const char *what) {
    fprintf(stderr, "verify-forkserver: %s: %s\n", what, strerror(errno));
    exit(125);
}

static int hold(void) {
    sigset_t children;
    sigemptyset(&children);
    sigaddset(&children, SIGCHLD);
    sigprocmask(SIG_BLOCK, &children, NULL);
    if (write(1, "r", 1) != 1) return 1;
    close(1);
    for (;;) {
        int sig;
        sigwait(&children, &sig);
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
    }
}

static void copy_file(int from, int to, const char *name, mode_t mode) {
    int in = openat(from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0) fail("open pristine file");
    int out = openat(to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (out < 0) fail("create file");
    char buffer[1 << 16];
    for (;;) {
        ssize_t got = read(in, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail("read pristine file");
        if (got == 0) break;
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(out, buffer + done, (size_t)(got - done));
            if (put < 0 && errno == EINTR) continue;
            if (put < 0) fail("write file");
            done += put;
        }
    }
    if (fchmod(out, mode) != 0) fail("fchmod");
    close(in);
    close(out);
}

/* Copy the folder `from` into the (empty) folder `to`: folders, regular files and
 * symlinks with their modes, as bubblewrap laid them out for the sandbox. */
static void copy_tree(int from, int to, int depth) {
    if (depth > MAX_DEPTH) { errno = ELOOP; fail("copy"); }
    int listing = dup(from);
    if (listing < 0) fail("dup");
    DIR *folder = fdopendir(listing);
    if (folder == NULL) fail("fdopendir");
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        const char *name = entry->d_name;
        if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
        struct stat info;
        if (fstatat(from, name, &info, AT_SYMLINK_NOFOLLOW) != 0) fail("fstatat");
        mode_t mode = info.st_mode & 07777;
        if (S_ISDIR(info.st_mode)) {
            if (mkdirat(to, name, mode) != 0) fail("mkdir");
            int sub_from = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int sub_to = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub_from < 0 || sub_to < 0) fail("open folder");
            copy_tree(sub_from, sub_to, depth + 1);
            if (fchmod(sub_to, mode) != 0) fail("fchmod");
            close(sub_from);
            close(sub_to);
        } else if (S_ISREG(info.st_mode)) {
            copy_file(from, to, name, mode);
        } else if (S_ISLNK(info.st_mode)) {
            char target[4096];
            ssize_t length = readlinkat(from, name, target, sizeof target - 1);
            if (length < 0) fail("readlink");
            target[length] = 0;
            if (symlinkat(target, to, name) != 0) fail("symlink");
        }
    }
    closedir(folder);
}

/* Keep only what bubblewrap leaves verify-init in a run of its own (--cap-drop ALL, then
 * SETUID, SETGID and KILL), in the bounding set too. */
static void drop_capabilities(void) {
    const uint64_t kept = (1ULL << CAP_SETUID) | (1ULL << CAP_SETGID) | (1ULL << CAP_KILL);
    for (int cap = 0; cap < 64; cap++) {
        if (kept & (1ULL << cap)) continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) fail("PR_CAPBSET_DROP");
    }
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2] = {{(uint32_t)kept, (uint32_t)kept, 0}, {0, 0, 0}};
    if (syscall(SYS_capset, &header, data) != 0) fail("capset");
}

static void fresh_tmpfs(const char *where, const char *options) {
    if (mount("tmpfs", where, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) fail(where);
}

/* /proc of the step's own PID namespace (mounted by its pid 1, the namespace's only
 * process then), with the folders bubblewrap's --proc covers read-only covered too. */
static void fresh_proc(void) {
    static const char *const covered[] = {"sys", "sysrq-trigger", "irq", "bus"};
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) fail("mount /proc");
    for (size_t k = 0; k < sizeof covered / sizeof *covered; k++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%s", covered[k]);
        if (access(path, F_OK) != 0) continue;
        if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) != 0) fail("bind /proc");
        if (mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
            fail("remount /proc read-only");
    }
}

static int step(int argc, char **argv) {
    if (argc < 7) { fprintf(stderr, "usage: verify-forkserver step PIDFD WORKDIR SIZE N KEEP... COMMAND...\n"); return 125; }
    int sandbox = atoi(argv[2]);
    const char *workdir = argv[3];
    char options[64];
    snprintf(options, sizeof options, "size=%s,mode=1777", argv[4]);
    int nkeep = atoi(argv[5]);
    if (nkeep < 0 || nkeep > MAX_KEEP || argc < 7 + nkeep) { fprintf(stderr, "verify-forkserver: bad KEEP list\n"); return 125; }
    char **keep = argv + 6;
    char **command = argv + 6 + nkeep;
    int kept[MAX_KEEP];

    /* If verify dies, so does this step (verify-init, our child, then takes the run down). */
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (setns(sandbox, CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWCGROUP) != 0)
        fail("cannot enter the sandbox");
    close(sandbox);
    /* A PID namespace of the step's own (the child below is its pid 1): no pid, no
     * process and no PID counter is shared with an earlier step. */
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWPID) != 0) fail("unshare");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail("mount --make-rprivate /");
    int pristine = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pristine < 0) fail("open the folder");
    for (int k = 0; k < nkeep; k++) {
        kept[k] = (int)syscall(SYS_open_tree, AT_FDCWD, keep[k], OPEN_TREE_CLONE | AT_RECURSIVE | O_CLOEXEC);
        if (kept[k] < 0) fail("open_tree");
    }
    mode_t mask = umask(0);
    fresh_tmpfs("/tmp", options);
    fresh_tmpfs("/dev/shm", options);
    for (int k = 0; k < nkeep; k++) {   /* as bubblewrap: parents 0755, the binds, then the folder */
        make_folders(keep[k]);
        if (syscall(SYS_move_mount, kept[k], "", AT_FDCWD, keep[k], MOVE_MOUNT_F_EMPTY_PATH) != 0) fail("move_mount");
        close(kept[k]);
    }
    make_folders(workdir);
    fresh_tmpfs(workdir, options);
    int fresh = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fresh < 0) fail("open the fresh folder");
    copy_tree(pristine, fresh, 0);
    umask(mask);
    close(pristine);
    close(fresh);
    if (chdir(workdir) != 0) fail("chdir");

    pid_t child = fork();
    if (child < 0) fail("fork");
    if (child == 0) {
        fresh_proc();
        setsid();                      /* as bubblewrap's --new-session */
        drop_capabilities();
        int count = 0;
        while (command[count] != NULL) count++;
        exit(verify_init_main(count, command));
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) fail("waitpid");
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        sigset_t only; sigemptyset(&only); sigaddset(&only, sig);
        sigprocmask(SIG_UNBLOCK, &only, NULL);
        kill(getpid(), sig);
        return 128 + sig;
    }
    return WEXITSTATUS(status);
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "hold")) return hold();
    if (argc >= 2 && !strcmp(argv[1], "step")) return step(argc, argv);
    fprintf(stderr, "usage: verify-forkserver hold | step PIDFD WORKDIR SIZE COMMAND...\n");
    return 125;
}
