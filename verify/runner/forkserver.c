/* verify-forkserver: one long-lived sandbox, a fresh process (and writable area) per step.
 *
 *   verify-forkserver hold
 *       The sandbox's PID 1 (`bwrap --as-pid-1 ... verify-forkserver hold`): writes "r" on
 *       stdout once bubblewrap has built the sandbox, then only reaps the processes the
 *       namespace hands it. It runs nothing itself.
 *
 *   verify-forkserver serve PIDFD SOCK
 *       Makes the steps of the sandbox whose PID 1 is PIDFD: joins its mount, network, UTS
 *       and cgroup namespaces, writes "r" on stdout, then forks one child per request verify
 *       sends on the socket SOCK (its arguments and every descriptor of the step: pipes,
 *       report, go, cgroup and seccomp descriptors, at the numbers the options name). The
 *       child answers with a pidfd of itself, then makes its own mount, IPC and PID
 *       namespaces, in which /tmp, /dev/shm and WORKDIR are fresh tmpfs of TMPFS_SIZE bytes
 *       (WORKDIR filled with a copy of the sandbox's pristine one, which stays underneath,
 *       unreachable); the N folders KEEP (read-only mounts of the sandbox below /tmp or
 *       /dev/shm) are mounted again at their paths. Its child, the pid 1 of the step's PID
 *       namespace, mounts that namespace's /proc, leads a new session and runs verify-init
 *       with its own options, exactly as for a run of its own (its code is linked in here,
 *       init_helper.c, and runs without an exec); the step's end is verify-init's wait
 *       status, sent on the reply socket. So verify-init is the step's init, supervisor and
 *       reporter as in any run (the program is pid 2), and nothing a step did (files, SysV
 *       or POSIX shared memory, pids) is seen by the next one. verify starts no process per
 *       step: a step costs a fork of this small process.
 *
 *   verify-forkserver zygote PIDFD -- INTERPRETER [OPTION...]
 *       Joins the sandbox's namespaces as `serve` does and execs the interpreter (a Python
 *       zygote, forkserver.py and zygote_main.py), which loads this file built as a library
 *       (VERIFY_ZYGOTE_LIBRARY) and serves steps with the same loop, verify_zygote_serve,
 *       except that the program's process, once hardened and given go, returns into the
 *       interpreter instead of an exec, and runs the program there.
 *
 * A request's words: T, the T descriptor numbers, E, the E entries of the program's
 * environment, then WORKDIR TMPFS_SIZE N KEEP... VERIFY-INIT [OPTION...] -- COMMAND...
 * Its first two descriptors are verify's end of the step (the read end of a pipe verify
 * holds: its hang-up ends the step) and the reply socket.
 *
 * All are verify's own trusted code, run as root (the fork server is used only then):
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* verify-init as a function of this program: a step's pid 1 runs it without an exec (an
 * exec's dynamic loader and libc start cost more than the rest of that process's start). */
#ifdef VERIFY_ZYGOTE_LIBRARY
/* In an interpreter's process: no atexit handler or stdio buffer of the interpreter runs in
 * the processes forked from it. */
static void leave(int code) { fflush(stderr); _exit(code); }
#define exit leave
#define VERIFY_INIT_RETURNS_PROGRAM (-1000)
#endif
#define main verify_init_main
#include "init_helper.c"
#undef main

#ifndef VERIFY_INIT_RETURNS_PROGRAM
#define VERIFY_INIT_RETURNS_PROGRAM (-1000)   /* (never returned outside a zygote) */
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#define MAX_FDS 64
#define MAX_ARGS 512
#define MAX_REQUEST (1 << 16)

static int verify_end = -1, reply_socket = -1;   /* a step's: verify's end (a pipe's read end), its reply socket */

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

#ifndef VERIFY_ZYGOTE_LIBRARY
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
#endif

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

/* Wait for the step's pid 1 and give its wait status. `end`: the read end of a pipe whose
 * writer is verify's; its hang-up (verify stopped the step, or died) ends the run as a
 * parent's death ends a run of its own (verify-init's SIGUSR1). */
static int await_init(pid_t child, int end) {
    int init = (int)syscall(SYS_pidfd_open, child, 0);
    if (init < 0) fail("pidfd_open");
    struct pollfd watched[2] = {{init, POLLIN, 0}, {end, POLLIN, 0}};
    int told = 0;
    for (;;) {
        if (poll(watched, told ? 1 : 2, -1) < 0) {
            if (errno == EINTR) continue;
            fail("poll");
        }
        if (watched[0].revents) break;
        if (!told && watched[1].revents) { kill(child, SIGUSR1); told = 1; }
    }
    close(init);
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) fail("waitpid");
    }
    return status;
}


/* A step, up to its end (argv: "verify-forkserver step PIDFD" and a request's arguments): its
 * pid 1's wait status; or, in a zygote's step, in the program's process,
 * VERIFY_INIT_RETURNS_PROGRAM (the caller runs the program). */
static int step(int argc, char **argv, int *status) {
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

    /* If the server dies, so does this step (verify-init, our child, then takes the run down). */
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
        if (verify_end >= 0) { close(verify_end); close(reply_socket); }
        int ended = verify_init_main(count, command);
        if (ended == VERIFY_INIT_RETURNS_PROGRAM) return ended;   /* the program's process */
        exit(ended);
    }
    *status = await_init(child, verify_end);
    return 0;
}

#ifdef VERIFY_ZYGOTE_LIBRARY
static struct sigaction interpreter_actions[NSIG];
static sigset_t interpreter_mask;
static int program_argc = 0;

int verify_zygote_argc(void) { return program_argc; }
const char *verify_zygote_arg(int index) {
    return index >= 0 && index < program_argc ? returned_command[index] : NULL;
}

/* The program's process, about to run the program in the interpreter: what an exec would
 * have given it. Dumpable again (verify-init's non-dumpable mark is inherited by a fork,
 * reset by an exec), the interpreter's own signal dispositions and mask (verify-init reset
 * them to the defaults for an exec), and no descriptor but its stdin, stdout and stderr (the
 * set-up's were close-on-exec). */
static void as_after_exec(void) {
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &interpreter_actions[sig], NULL);
    }
    sigprocmask(SIG_SETMASK, &interpreter_mask, NULL);
    if (syscall(SYS_close_range, 3, ~0U, 0) != 0) {
        for (int fd = 3; fd < 4096; fd++) close(fd);
    }
    int count = 0;
    while (returned_command[count] != NULL) count++;
    program_argc = count;
}
#endif

static int split(char *request, size_t size, char **words, int most) {
    int count = 0;
    for (size_t at = 0; at < size && count < most;) {
        words[count++] = request + at;
        at += strlen(request + at) + 1;
    }
    return count;
}

/* Move `fd` to a number at `floor` or above (the step's own descriptors go below it). */
static int moved_up(int fd, int floor) {
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (moved < 0) fail("F_DUPFD");
    close(fd);
    return moved;
}

/* Tell verify which process the step is: its pid and a pidfd of it, on the reply socket. */
static void send_pidfd(void) {
    int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (self < 0) fail("pidfd_open");
    union { char bytes[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    char pid[24];    /* (the serving process, hence this one, is in verify's PID namespace) */
    int length = snprintf(pid, sizeof pid, "%d", (int)getpid());
    struct iovec part = {pid, (size_t)length};
    struct msghdr message = {0};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control.bytes;
    message.msg_controllen = sizeof control.bytes;
    struct cmsghdr *rights = CMSG_FIRSTHDR(&message);
    rights->cmsg_level = SOL_SOCKET;
    rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(rights), &self, sizeof(int));
    while (sendmsg(reply_socket, &message, MSG_NOSIGNAL) < 0) {
        if (errno != EINTR) fail("cannot answer verify");
    }
    close(self);
}

/* One request, in the serving process's child: fds[0] verify's end (a pipe whose writer verify
 * holds: its hang-up ends the step), fds[1] the reply socket, the rest the step's descriptors,
 * put at the numbers the request names. The request's words: T, T numbers, E, E environment
 * entries (the program's whole environment), then the arguments of `step` after its PIDFD.
 * The step's status goes to the reply socket; in a zygote, returns in the program's process. */
static int serve_step(char *request, size_t size, int *fds, int nfds, int server) {
    char *words[MAX_ARGS + 4];
    int nwords = split(request, size, words, MAX_ARGS);
    int ntargets = nwords > 0 ? atoi(words[0]) : -1;
    if (ntargets < 0 || ntargets != nfds - 2 || nwords < 2 + ntargets) { errno = EINVAL; fail("step request"); }
    int nenv = atoi(words[1 + ntargets]);
    int first = 2 + ntargets + nenv;          /* the first argument of `step` */
    if (nenv < 0 || nwords < first + 4) { errno = EINVAL; fail("step request"); }
    int targets[MAX_FDS];
    int floor = server;
    for (int k = 0; k < nfds; k++) if (fds[k] > floor) floor = fds[k];
    for (int k = 0; k < ntargets; k++) {
        targets[k] = atoi(words[1 + k]);
        if (targets[k] < 0) { errno = EBADF; fail("step request"); }
        if (targets[k] > floor) floor = targets[k];
    }
    floor += 1;
    server = moved_up(server, floor);
    verify_end = moved_up(fds[0], floor);
    reply_socket = moved_up(fds[1], floor);
    int high[MAX_FDS];
    for (int k = 0; k < ntargets; k++) high[k] = moved_up(fds[2 + k], floor);
    /* nothing of the server's own below the floor (its stdin, stdout, stderr, socket) */
    if (syscall(SYS_close_range, 0, floor - 1, 0) != 0) {
        for (int fd = 0; fd < floor; fd++) close(fd);
    }
    for (int k = 0; k < ntargets; k++) {
        if (dup2(high[k], targets[k]) < 0) fail("dup2");
        close(high[k]);
    }
    setsid();                          /* its own process group, as verify's runs lead theirs */
    send_pidfd();
    if (clearenv() != 0) fail("clearenv");
    for (int k = 0; k < nenv; k++) {
        if (strchr(words[2 + ntargets + k], '=') == NULL || putenv(words[2 + ntargets + k]) != 0) {
            errno = EINVAL;
            fail("step environment");
        }
    }
    char number[16];
    snprintf(number, sizeof number, "%d", server);
    char *argv[MAX_ARGS + 4];
    int argc = 0;
    argv[argc++] = "verify-forkserver";
    argv[argc++] = "step";
    argv[argc++] = number;
    for (int k = first; k < nwords; k++) argv[argc++] = words[k];
    argv[argc] = NULL;
    int status = 0;
    if (step(argc, argv, &status) == VERIFY_INIT_RETURNS_PROGRAM) return VERIFY_INIT_RETURNS_PROGRAM;
    dprintf(reply_socket, "%d\n", status);
    _exit(0);
}

/* The serving loop, on its socket to verify (requests from verify) and the sandbox's pidfd.
 * In a zygote (called once by the interpreter) it returns 0 in a step's program process,
 * which then runs the program (its command line: verify_zygote_arg); -1 once verify has
 * closed the socket. */
int verify_zygote_serve(int sock, int server) {
#ifdef VERIFY_ZYGOTE_LIBRARY
    for (int sig = 1; sig < NSIG; sig++) sigaction(sig, NULL, &interpreter_actions[sig]);
    sigprocmask(SIG_SETMASK, NULL, &interpreter_mask);
#endif
    static char request[MAX_REQUEST + 1];
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        union { char bytes[CMSG_SPACE(sizeof(int) * MAX_FDS)]; struct cmsghdr align; } control;
        struct iovec part = {request, MAX_REQUEST};
        struct msghdr message = {0};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
        ssize_t got = recvmsg(sock, &message, MSG_CMSG_CLOEXEC);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        int fds[MAX_FDS], nfds = 0;
        for (struct cmsghdr *part = CMSG_FIRSTHDR(&message); part != NULL; part = CMSG_NXTHDR(&message, part)) {
            if (part->cmsg_level != SOL_SOCKET || part->cmsg_type != SCM_RIGHTS) continue;
            int count = (int)((part->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int k = 0; k < count && nfds < MAX_FDS; k++) memcpy(&fds[nfds++], CMSG_DATA(part) + k * sizeof(int), sizeof(int));
        }
        request[got] = 0;
        if (!(message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) && nfds >= 2) {
            pid_t child = fork();
            if (child == 0) {
                close(sock);
                serve_step(request, (size_t)got, fds, nfds, server);
#ifdef VERIFY_ZYGOTE_LIBRARY
                as_after_exec();
#endif
                return 0;
            }
        }
        for (int k = 0; k < nfds; k++) close(fds[k]);
        /* nothing of this request stays in the memory the next steps are forked with */
        memset(request, 0, (size_t)got);
        memset(&control, 0, sizeof control);
        memset(fds, 0, sizeof fds);
    }
}

#ifndef VERIFY_ZYGOTE_LIBRARY
/* Join the sandbox whose PID 1 is the pidfd `sandbox`, as a step does. */
static void enter_sandbox(int sandbox) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (setns(sandbox, CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWCGROUP) != 0)
        fail("cannot enter the sandbox");
    if (chdir("/") != 0) fail("chdir /");
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "hold")) return hold();
    if (argc == 4 && !strcmp(argv[1], "serve")) {
        int sandbox = atoi(argv[2]), sock = atoi(argv[3]);
        enter_sandbox(sandbox);
        if (write(1, "r", 1) != 1) return 125;
        verify_zygote_serve(sock, sandbox);
        return 0;
    }
    if (argc >= 5 && !strcmp(argv[1], "zygote") && !strcmp(argv[3], "--")) {
        enter_sandbox(atoi(argv[2]));
        /* the interpreter starts with the signals a step's program starts with (it keeps them) */
        reset_program_signals();
        execvp(argv[4], argv + 4);
        fail("cannot start the zygote's interpreter");
    }
    fprintf(stderr, "usage: verify-forkserver hold | serve PIDFD SOCK | zygote PIDFD -- COMMAND...\n");
    return 125;
}
#endif
