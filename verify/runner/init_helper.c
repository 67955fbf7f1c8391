/* verify-init: the last step before a contestant's program, and its supervisor.
 *
 *   verify-init [OPTION...] -- COMMAND...
 *
 *   --go FD            built ahead: everything below is done at once, up to the program's
 *                      process hardened (uid, rlimits, Landlock, seccomp) and waiting, right
 *                      before its exec, for one byte on FD; then it joins the --cgroup groups
 *                      itself (verify-init stays out of them) and execs. EOF: exit 125, no run
 *   --report FD        write "utime_us stime_us maxrss_kb wait_status" there at the end
 *   --cgroup FD        join the cgroup whose cgroup.procs is open as FD (repeatable)
 *   --private-tmp SIZE (as root) own mount and IPC namespaces with fresh tmpfs of SIZE
 *                      bytes on /tmp and /dev/shm: shared memory and temporary files die
 *                      with the run, and SysV segments are private to it; and a /proc
 *                      that shows the program only its own uid's processes
 *   --keep PATH        with --private-tmp: this folder stays visible at its path
 *   --cpu S --memory data|as:BYTES --fsize BYTES --nofile N --nproc N   the rlimits
 *   --uid UID          COMMAND runs as UID (and gid UID, no groups); verify-init keeps its own
 *   --landlock ABI     confine COMMAND with Landlock (ABI = the kernel's version): writes only
 *   --writable PATH    beneath these folders (repeatable) and to
 *   --writable-file PATH  these files (repeatable); from ABI 4 no TCP bind/connect; from
 *                      ABI 6 no signal to, and no abstract socket of, any process outside
 *                      the run (the judge, this supervisor)
 *   --readable PATH    (repeatable) reads and executions, too, only beneath these and the
 *                      writable ones (without bubblewrap: the folders bubblewrap would show)
 *   --seccomp FD       install the classic-BPF seccomp filter read from FD in COMMAND
 *   --guard 1          (same uid as verify, no PID namespace, no Landlock signal scope) a
 *                      second, stacked filter in COMMAND: no signal, pidfd or rlimit change
 *                      aimed at verify-init, verify or verify's process group, nor kill(-1)
 *
 * It forks COMMAND in a process group of its own, waits for it, kills everything the
 * program left behind (it is a child subreaper, so every orphan, even one that left the
 * session, comes back to it), writes the report (the CPU time covers every reaped
 * descendant), then ends the way COMMAND ended. SIGUSR2 asks it to end the run now (verify
 * at a limit): it kills the program's group and everything it left, reports, and exits.
 * If its parent dies (verify killed, even by SIGKILL) it kills the whole run first.
 * Under bubblewrap it is the PID namespace's init (`bwrap --as-pid-1`): its exit kills the
 * rest, and the program cannot signal it.
 *
 * The report is "utime_us stime_us maxrss_kb wait_status started refused": started is 0 when
 * the run's set-up failed in the child before the exec, or the exec itself (the judge's
 * failure, never the program's; the reason is on stderr), else 1. refused counts the
 * requests for memory (mmap, mremap, mprotect, brk) the kernel refused at the --memory
 * rlimit, or -1 when they could not be watched: with --memory, a seccomp listener (user
 * notification) shows verify-init each such request before the kernel decides, and it
 * counts those the kernel's own rule (data size or address space, plus the request, over
 * the limit) refuses; it never changes the answer. A failure before the fork leaves no
 * report and exit code 125. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LIST 16
#define MAX_READABLE 256

/* Landlock (linux/landlock.h of older systems lacks the newer fields). */
struct ll_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
struct ll_path_beneath { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_READ_ANY (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
#define LL_FS_WRITE_ANY_ABI1 0x1ff2ULL /* write_file, remove_dir/file, make_char/dir/reg/sock/fifo/block/sym */
#define LL_FS_REFER (1ULL << 13)
#define LL_FS_TRUNCATE (1ULL << 14)
#define LL_FS_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

static volatile sig_atomic_t parent_died = 0, stop_requested = 0;
static volatile pid_t program = 0;
#ifdef VERIFY_INIT_RETURNS_PROGRAM
static char **returned_command = NULL;   /* in the program's process: its command line */
#endif
static int setup_status = -1;   /* in the child: the close-on-exec pipe that says the set-up failed */
static void on_parent_death(int sig) { (void)sig; parent_died = 1; }
/* verify asks for the end of the run: the program's group dies at once (async-signal-safe);
 * main() then kills what it left and reports. */
static void on_stop(int sig) {
    (void)sig;
    stop_requested = 1;
    if (program > 0) { kill(-program, SIGKILL); kill(program, SIGKILL); }
}

static void die(const char *what) {
    int error = errno;
    fprintf(stderr, "verify-init: %s: %s\n", what, strerror(error));
    if (setup_status >= 0) { char failed = 'f'; (void)!write(setup_status, &failed, 1); _exit(125); }
    exit(125);
}

/* The signals the program's process gets back at their default before its exec: those this
 * supervisor handles or ignores for itself. The others stay as verify left them. */
static void reset_program_signals(void) {
    signal(SIGUSR1, SIG_DFL); signal(SIGUSR2, SIG_DFL); signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL); signal(SIGTERM, SIG_DFL); signal(SIGHUP, SIG_DFL);
}

/* End the way a process whose wait status is `status` ended (its signal raised again). */
static int end_as(int status) {
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

static void set_limit(int resource, long long soft, long long hard) {
    struct rlimit r = {(rlim_t)soft, (rlim_t)hard};
    if (soft < 0) return;
    if (setrlimit(resource, &r) != 0) die("setrlimit");
}

/* Kill every child we have (orphans of the program come to us as the subreaper), reap
 * them, and repeat until none is left. */
static void kill_leftovers(void) {
    /* no child left (none alive, none to reap): no process of the run is left, since every
     * orphan comes back to this subreaper; the common end, without reading /proc */
    if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) return;
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

static void make_folders(const char *path) {
    char partial[4096];
    for (size_t i = 1; path[i] && i < sizeof partial - 1; i++) {
        if (path[i] != '/') continue;
        memcpy(partial, path, i);
        partial[i] = 0;
        mkdir(partial, 0755);
    }
    mkdir(path, 0755);
}

/* Fresh tmpfs on /tmp and /dev/shm; the folders in `keep` (the run's own folder, which
 * may live there) are bound back at their paths. */
/* SIGKILL every process of `uid`, from a child that takes that uid (kill(-1) as root
 * would reach every process of the machine). */
static void kill_uid(long uid) {
    pid_t killer = fork();
    if (killer == 0) {
        if (setgroups(0, NULL) == 0 && setgid((gid_t)uid) == 0 && setuid((uid_t)uid) == 0) kill(-1, SIGKILL);
        _exit(0);
    }
    if (killer > 0) while (waitpid(killer, NULL, 0) < 0 && errno == EINTR) {}
}

/* A /proc of its own that shows a process only to its own uid (and to root): the program,
 * under a uid of its own, sees no command line, environment or status of the judge's
 * processes or other runs'. From Linux 5.8 each mount of proc has options of its own
 * (before, hidepid would have changed the host's /proc too: left alone there); where proc
 * cannot be mounted (a container that masks parts of its /proc) the host's stays. */
static void private_proc(void) {
    struct utsname name;
    int major = 0, minor = 0;
    if (uname(&name) != 0 || sscanf(name.release, "%d.%d", &major, &minor) != 2 || major * 100 + minor < 508)
        return;
    (void)mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2");
}

static void private_tmp(const char *size, char **keep, int nkeep) {
    char options[64];
    int handles[MAX_LIST];
    snprintf(options, sizeof options, "size=%s,mode=1777", size);
    if (unshare(CLONE_NEWNS | CLONE_NEWIPC) != 0) die("unshare");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("mount --make-rprivate /");
    for (int k = 0; k < nkeep; k++) {       /* (opened in the new namespace: bindable from it) */
        handles[k] = open(keep[k], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (handles[k] < 0) die("--keep");
    }
    if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) die("mount /tmp");
    if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, options) != 0) die("mount /dev/shm");
    for (int k = 0; k < nkeep; k++) {
        char handle[64];
        snprintf(handle, sizeof handle, "/proc/self/fd/%d", handles[k]);
        make_folders(keep[k]);
        if (mount(handle, keep[k], NULL, MS_BIND | MS_REC, NULL) != 0) die("bind --keep");
        close(handles[k]);
    }
    private_proc();
}

static void add_path_rule(int ruleset, const char *path, uint64_t access) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;                      /* not there: nothing to allow */
    struct stat info;
    if (fstat(fd, &info) == 0 && !S_ISDIR(info.st_mode)) access &= LL_FS_FILE_RIGHTS;
    struct ll_path_beneath rule = {access, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) != 0) die("landlock_add_rule");
    close(fd);
}

/* Writes only beneath `folders` and to `files`; with `readable` given, reads and executions
 * too only beneath those (and the writable ones): what bubblewrap would have shown. */
static void landlock(int abi, char **folders, int nfolders, char **files, int nfiles, char **readable, int nreadable) {
    uint64_t write_any = LL_FS_WRITE_ANY_ABI1 | (abi >= 2 ? LL_FS_REFER : 0) | (abi >= 3 ? LL_FS_TRUNCATE : 0);
    uint64_t read_any = nreadable > 0 ? LL_FS_READ_ANY : 0;
    struct ll_ruleset_attr attr = {write_any | read_any, abi >= 4 ? (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) : 0,
                                   abi >= 6 ? (LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET) : 0};
    size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) die("landlock_create_ruleset");
    for (int i = 0; i < nfolders; i++) add_path_rule(ruleset, folders[i], write_any | read_any);
    for (int i = 0; i < nfiles; i++)
        add_path_rule(ruleset, files[i], LL_FS_WRITE_FILE | (abi >= 3 ? LL_FS_TRUNCATE : 0) | (read_any & LL_FS_READ_FILE));
    for (int i = 0; i < nreadable; i++) add_path_rule(ruleset, readable[i], read_any);
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die("landlock_restrict_self");
    close(ruleset);
}

/* The guard: classic BPF, stacked on verify's filter (the stricter answer wins). Each
 * check is "call NR with its argument A equal to V (and argument B equal to W): EPERM". */
#if defined(__x86_64__)
#define GUARD_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GUARD_ARCH AUDIT_ARCH_AARCH64
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(a) (offsetof(struct seccomp_data, args) + 8 * (a))
#else
#define ARG_LOW(a) (offsetof(struct seccomp_data, args) + 8 * (a) + 4)
#endif
#define GUARD_MAX 512
static struct sock_filter guard_code[GUARD_MAX];
static unsigned short guard_length = 0;

static void emit(struct sock_filter instruction) {
    if (guard_length >= GUARD_MAX) { errno = E2BIG; die("guard filter"); }
    guard_code[guard_length++] = instruction;
}

static void load_nr(void) { emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))); }

/* EPERM for call `nr` when its argument `arg` is `value` (arg < 0: always); a second
 * argument `arg2` (>= 0) must then also be `value2`. */
static void refuse(int nr, int arg, uint32_t value, int arg2, uint32_t value2) {
    int after = arg < 0 ? 1 : arg2 < 0 ? 3 : 5;
    load_nr();
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, (uint8_t)after));
    if (arg >= 0) {
        emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg)));
        emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, (uint8_t)(after - 2)));
    }
    if (arg2 >= 0) {
        emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg2)));
        emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value2, 0, 1));
    }
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
}

static void install_guard(pid_t supervisor, pid_t judge) {
    pid_t judge_group = getpgid(judge);
    pid_t processes[2] = {supervisor, judge};
    uint32_t kill_targets[5] = {(uint32_t)supervisor, (uint32_t)-supervisor, (uint32_t)judge,
                                (uint32_t)-(judge_group > 1 ? judge_group : judge), (uint32_t)-1};
    int by_pid[] = {SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo, SYS_prlimit64,
#ifdef SYS_pidfd_open
                    SYS_pidfd_open,
#endif
    };
#ifdef GUARD_ARCH
    emit((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_ARCH, 1, 0));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
#endif
#if defined(__x86_64__)
    load_nr();                                   /* x32 numbers: another ABI, refused */
    emit((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));
#endif
    for (int t = 0; t < 5; t++) refuse(SYS_kill, 0, kill_targets[t], -1, 0);
    for (size_t c = 0; c < sizeof by_pid / sizeof by_pid[0]; c++)
        for (int p = 0; p < 2; p++) refuse(by_pid[c], 0, (uint32_t)processes[p], -1, 0);
    for (int t = 0; t < 4; t++) refuse(SYS_fcntl, 1, F_SETOWN, 2, kill_targets[t]);
    refuse(SYS_fcntl, 1, F_SETOWN_EX, -1, 0);
    refuse(SYS_tkill, -1, 0, -1, 0);
#ifdef SYS_pidfd_send_signal
    refuse(SYS_pidfd_send_signal, -1, 0, -1, 0);
#endif
    emit((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    struct sock_fprog guard = {guard_length, guard_code};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &guard) != 0) die("seccomp guard");
}

/* -- the memory watch (rlimits accounting) ------------------------------------------------
 * Without a cgroup no kernel counter records that a request for memory was refused at the
 * limit, and what a program then does depends on its language (a C program writes through
 * NULL, Python raises MemoryError, Go aborts). So verify-init watches each request that
 * could grow the run's data (or, with --memory as:, its address space) and counts those
 * that the kernel's rule refuses: the same count in every language, from the kernel's
 * figures (/proc/PID/status, maps, stat), never from what the program says. */
static int watch_kind_as = 0;                 /* the limit is RLIMIT_AS (else RLIMIT_DATA) */
static unsigned long long watch_limit = 0;    /* bytes */
static volatile int refused_requests = 0;
static long page_size = 4096;

/* In the child: a filter that hands verify-init the requests that can grow what the limit
 * counts (brk, mremap; mmap and mprotect only when writable and private for RLIMIT_DATA,
 * mmap of any kind for RLIMIT_AS; never MAP_FIXED, which replaces what it lands on and
 * is not where allocators grow); the listener's descriptor goes to verify-init over
 * `channel`. Where the kernel has no user notification (before 5.5), or the seccomp call
 * is refused, nothing is watched. */
static void start_watch(int channel) {
#if defined(GUARD_ARCH) && defined(SECCOMP_FILTER_FLAG_NEW_LISTENER) && defined(SECCOMP_USER_NOTIF_FLAG_CONTINUE)
    uint32_t skip_flags = watch_kind_as ? MAP_FIXED : MAP_SHARED | MAP_FIXED | MAP_GROWSDOWN;
    struct sock_filter code[] = {
        /*  0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        /*  1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_ARCH, 1, 0),
        /*  2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /*  3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        /*  4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 4, 0),        /* -> 9 */
        /*  5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 7, 0),    /* -> 13 */
        /*  6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mremap, 9, 0),      /* -> 16 */
        /*  7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_brk, 8, 0),         /* -> 16 */
        /*  8 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /*  9 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(3)),               /* mmap's flags */
        /* 10 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, skip_flags, 4, 0),      /* -> 15 */
        /* 11 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),               /* its protection */
        /* 12 */ watch_kind_as ? (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0, 3, 2)
                               : (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE, 3, 2),
        /* 13 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(2)),               /* mprotect's */
        /* 14 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, watch_kind_as ? 0 : PROT_WRITE, 1, 0),
        /* 15 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* 16 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    };
    struct sock_fprog program = {sizeof code / sizeof code[0], code};
    int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
    if (listener >= 0) {
        char space[CMSG_SPACE(sizeof(int))] = {0};
        char byte = 'w';
        struct iovec data = {&byte, 1};
        struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = space,
                                 .msg_controllen = sizeof space};
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &listener, sizeof(int));
        /* unsent, the filter would hold every mmap of the program for an absent listener */
        if (sendmsg(channel, &message, MSG_NOSIGNAL) != 1) die("memory watch");
        close(listener);
    }
#endif
    close(channel);
}

/* The value after `key` (a line "VmData:   1234 kB") of /proc/PID/status, in bytes; -1: none. */
static long long status_bytes(const char *status, const char *key) {
    const char *at = strstr(status, key);
    if (!at) return -1;
    return atoll(at + strlen(key)) * 1024;
}

static int read_text(const char *path, char *buffer, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t got = 0;
    ssize_t n;
    while (got + 1 < size && (n = read(fd, buffer + got, size - 1 - got)) > 0) got += (size_t)n;
    close(fd);
    buffer[got] = 0;
    return got > 0 ? 0 : -1;
}

/* From /proc/PID/maps: the permissions of the mapping holding `at` (perms[0] = 0: none),
 * and where [heap] ends (left as it is without a heap); -1 when unreadable (no right). */
static int mapping_at(pid_t pid, unsigned long long at, char perms[5], unsigned long long *heap_end) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *maps = fopen(path, "re");
    if (!maps) return -1;
    int lines = 0;
    char line[512];
    perms[0] = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long long low, high;
        char mode[5] = {0};
        if (sscanf(line, "%llx-%llx %4s", &low, &high, mode) != 3) continue;
        lines++;
        if (at >= low && at < high) memcpy(perms, mode, 5);
        if (heap_end && strstr(line, "[heap]")) *heap_end = high;
    }
    fclose(maps);
    return lines ? 0 : -1;     /* an empty file: no right to read it */
}

static unsigned long long page_up(unsigned long long bytes) {
    return (bytes + (unsigned long long)page_size - 1) & ~((unsigned long long)page_size - 1);
}

/* Does the kernel refuse this request at the memory rlimit? (Its rule: may_expand_vm and
 * check_data_rlimit, for what each call adds.) Unknowable cases answer no. */
static int refused_at_limit(const struct seccomp_notif *request) {
    char status[4096], path[64];
    pid_t pid = (pid_t)request->pid;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (read_text(path, status, sizeof status) != 0) return 0;
    long long used = status_bytes(status, watch_kind_as ? "VmSize:" : "VmData:");
    if (used < 0) return 0;
    const unsigned long long *a = request->data.args;
    unsigned long long limit = watch_limit / (unsigned long long)page_size * (unsigned long long)page_size;
    char perms[5];
    int nr = request->data.nr;
    if (nr == SYS_mmap) {
        unsigned long long length = page_up(a[1]);
        int writable = (a[2] & PROT_WRITE) != 0, shared = (a[3] & MAP_SHARED) != 0;
        if (!watch_kind_as && (!writable || shared || (a[3] & MAP_GROWSDOWN))) return 0;  /* not data */
        return (unsigned long long)used + length > limit;
    }
    if (nr == SYS_mremap) {
        unsigned long long before = page_up(a[1]), after = page_up(a[2]);
        if (after <= before || (unsigned long long)used + (after - before) <= limit) return 0;
        if (!watch_kind_as && mapping_at(pid, a[0], perms, NULL) >= 0
            && (perms[1] != 'w' || perms[3] != 'p'))
            return 0;                                            /* a mapping that is not data */
        return 1;
    }
    if (nr == SYS_mprotect) {       /* only becoming data is counted (and only against RLIMIT_DATA) */
        unsigned long long length = page_up(a[1]);
        if (watch_kind_as || !(a[2] & PROT_WRITE) || (unsigned long long)used + length <= limit) return 0;
        if (mapping_at(pid, a[0], perms, NULL) < 0 || perms[0] == 0) return 0;
        return perms[1] != 'w' && perms[3] == 'p';
    }
    if (nr == SYS_brk) {
        char stat[4096];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        if (read_text(path, stat, sizeof stat) != 0) return 0;
        const char *fields = strrchr(stat, ')');
        unsigned long long start_data = 0, end_data = 0, start_brk = 0, value;
        for (int field = 3; fields && (fields = strchr(fields + 1, ' ')) != NULL && field <= 47; field++) {
            value = strtoull(fields + 1, NULL, 10);
            if (field == 45) start_data = value;
            if (field == 46) end_data = value;
            if (field == 47) start_brk = value;
        }
        if (start_brk == 0 || a[0] < start_brk) return 0;       /* a query, or no right to read it */
        if (!watch_kind_as && (a[0] - start_brk) + (end_data - start_data) > watch_limit) return 1;
        unsigned long long heap_end = page_up(start_brk);
        if (mapping_at(pid, 0, perms, &heap_end) < 0) return 0;
        unsigned long long wanted = page_up(a[0]);
        return wanted > heap_end && (unsigned long long)used + (wanted - heap_end) > limit;
    }
    return 0;
}

/* verify-init's second thread: answers each watched request with "go on" (the kernel then
 * decides), having counted it when the kernel is going to refuse it. */
static void *watch_requests(void *argument) {
    int listener = (int)(intptr_t)argument;
    struct seccomp_notif request;
    struct seccomp_notif_resp response;
    struct pollfd ready = {listener, POLLIN, 0};
    for (;;) {
        /* POLLHUP: no process of the run is left under the filter (RECV would fail at once) */
        if (poll(&ready, 1, -1) < 0) { if (errno == EINTR) continue; break; }
        if (ready.revents & (POLLHUP | POLLERR | POLLNVAL)) break;
        memset(&request, 0, sizeof request);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) {
            if (errno == EINTR || errno == ENOENT) continue;   /* ENOENT: that caller died meanwhile */
            break;
        }
        int refused = refused_at_limit(&request);
        /* still the same request (its pid not reused meanwhile): then the count holds */
        if (refused && ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &request.id) == 0)
            __atomic_add_fetch(&refused_requests, 1, __ATOMIC_SEQ_CST);
        memset(&response, 0, sizeof response);
        response.id = request.id;
        response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
    }
    return NULL;
}

/* In verify-init: receive the listener (EOF: the child watches nothing) and serve it from a
 * thread that takes no signal (they are main()'s). Returns 1 when the watch is on. */
static int serve_watch(int channel) {
    char space[CMSG_SPACE(sizeof(int))] = {0};
    char byte;
    struct iovec data = {&byte, 1};
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = space,
                             .msg_controllen = sizeof space};
    ssize_t got;
    while ((got = recvmsg(channel, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
    close(channel);
    struct cmsghdr *header = got == 1 ? CMSG_FIRSTHDR(&message) : NULL;
    if (!header || header->cmsg_type != SCM_RIGHTS) return 0;
    int listener;
    memcpy(&listener, CMSG_DATA(header), sizeof(int));
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    pthread_t thread;
    int started = pthread_create(&thread, NULL, watch_requests, (void *)(intptr_t)listener) == 0;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (!started) die("memory watch thread");   /* the child waits on its first mmap for us */
    return 1;
}

static void load_seccomp(int fd) {
    struct stat info;
    if (fstat(fd, &info) != 0 || info.st_size <= 0 || info.st_size % sizeof(struct sock_filter) != 0
        || info.st_size > 65536 * (off_t)sizeof(struct sock_filter)) {
        errno = EINVAL;
        die("seccomp filter");
    }
    struct sock_filter *code = malloc((size_t)info.st_size);
    if (!code) die("malloc");
    ssize_t got = 0;
    while (got < info.st_size) {
        ssize_t n = pread(fd, (char *)code + got, (size_t)(info.st_size - got), got);
        if (n <= 0) die("reading the seccomp filter");
        got += n;
    }
    struct sock_fprog program = {(unsigned short)(info.st_size / sizeof(struct sock_filter)), code};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) die("seccomp");
    free(code);
    close(fd);
}

/* "0": the writer itself (its children follow). */
static void join_cgroups(const int *cgroups, int ncgroups) {
    for (int c = 0; c < ncgroups; c++) {
        if (write(cgroups[c], "0", 1) != 1) die("cannot join the run's cgroup");
        close(cgroups[c]);
    }
}

/* In the program's process, built ahead and hardened: wait for go (EOF: no run; the
 * supervisor learns it from 'q' on the set-up pipe), then join the run's groups. Its counts
 * start here: what verify-init and this process did before (the set-up) is not the run's. */
static void await_go(int go, const int *cgroups, int ncgroups) {
    char byte;
    ssize_t got;
    while ((got = read(go, &byte, 1)) < 0 && errno == EINTR) {}
    if (got != 1) {
        char quit = 'q';
        (void)!write(setup_status, &quit, 1);
        _exit(125);
    }
    close(go);
    join_cgroups(cgroups, ncgroups);
}

int main(int argc, char **argv) {
    int go = -1, report = -1, seccomp = -1, landlock_abi = 0, guard = 0;
    long uid = -1;
    long long cpu = -1, memory = -1, fsize = -1, nofile = -1, nproc = -1;
    const char *memory_kind = "data", *tmp_size = NULL;
    pid_t original_parent = getppid();
    int cgroups[MAX_LIST], ncgroups = 0, nfolders = 0, nfiles = 0, nkeep = 0, nreadable = 0;
    char *folders[MAX_LIST], *files[MAX_LIST], *keep[MAX_LIST], *readable[MAX_READABLE];
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        const char *option = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (value == NULL) { fprintf(stderr, "verify-init: %s needs a value\n", option); return 125; }
        if (!strcmp(option, "--go")) go = atoi(value);
        else if (!strcmp(option, "--report")) report = atoi(value);
        else if (!strcmp(option, "--cgroup") && ncgroups < MAX_LIST) cgroups[ncgroups++] = atoi(value);
        else if (!strcmp(option, "--private-tmp")) tmp_size = value;
        else if (!strcmp(option, "--keep") && nkeep < MAX_LIST) keep[nkeep++] = argv[i + 1];
        else if (!strcmp(option, "--cpu")) cpu = atoll(value);
        else if (!strcmp(option, "--memory")) {
            const char *colon = strchr(value, ':');
            if (!colon) { fprintf(stderr, "verify-init: --memory KIND:BYTES\n"); return 125; }
            memory_kind = strncmp(value, "as", 2) == 0 ? "as" : "data";
            memory = atoll(colon + 1);
        }
        else if (!strcmp(option, "--fsize")) fsize = atoll(value);
        else if (!strcmp(option, "--nofile")) nofile = atoll(value);
        else if (!strcmp(option, "--nproc")) nproc = atoll(value);
        else if (!strcmp(option, "--uid")) uid = atol(value);
        else if (!strcmp(option, "--landlock")) landlock_abi = atoi(value);
        else if (!strcmp(option, "--writable") && nfolders < MAX_LIST) folders[nfolders++] = argv[i + 1];
        else if (!strcmp(option, "--writable-file") && nfiles < MAX_LIST) files[nfiles++] = argv[i + 1];
        else if (!strcmp(option, "--readable")) {
            if (nreadable == MAX_READABLE) { fprintf(stderr, "verify-init: more than %d --readable\n", MAX_READABLE); return 125; }
            readable[nreadable++] = argv[i + 1];
        }
        else if (!strcmp(option, "--seccomp")) seccomp = atoi(value);
        else if (!strcmp(option, "--guard")) guard = atoi(value);
        else { fprintf(stderr, "verify-init: unknown option %s\n", option); return 125; }
    }
    if (i + 1 >= argc) { fprintf(stderr, "usage: verify-init [OPTION VALUE]... -- COMMAND...\n"); return 125; }
    char **command = argv + i + 1;

    if (go < 0) join_cgroups(cgroups, ncgroups);     /* else the program joins at go, alone */
    if (tmp_size) private_tmp(tmp_size, keep, nkeep);
    struct rlimit cpu_limit = {(rlim_t)cpu, (rlim_t)cpu + 1};
    if (cpu > 0 && setrlimit(RLIMIT_CPU, &cpu_limit) != 0) die("RLIMIT_CPU");
    set_limit(strcmp(memory_kind, "as") == 0 ? RLIMIT_AS : RLIMIT_DATA, memory, memory);
    set_limit(RLIMIT_FSIZE, fsize, fsize);
    set_limit(RLIMIT_NOFILE, nofile, nofile);
    set_limit(RLIMIT_CORE, 0, 0);
    /* Nobody of the run's uid may read our descriptors (the report pipe) through /proc. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    /* If verify dies, even by SIGKILL, the kernel tells us, and we take the whole run down
     * before going. (We keep our uid for this: the kernel sends that signal with the
     * dying parent's credentials, which a switch to the run's uid would not pass.) */
    struct sigaction parent_death = {0};
    parent_death.sa_handler = on_parent_death;
    sigaction(SIGUSR1, &parent_death, NULL);
    prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0);
    if (getppid() != original_parent) parent_died = 1;   /* it died before we asked */
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    struct sigaction stop = {0};
    stop.sa_handler = on_stop;
    sigaction(SIGUSR2, &stop, NULL);
    /* our own signals must not kill us before the report is written */
    signal(SIGINT, SIG_IGN); signal(SIGTERM, SIG_IGN); signal(SIGHUP, SIG_IGN); signal(SIGPIPE, SIG_IGN);
    int setup[2], watch[2] = {-1, -1};
    if (pipe2(setup, O_CLOEXEC) != 0) die("pipe");
    if (memory >= 0) {        /* rlimits accounting: the refusals at the limit are watched */
        watch_kind_as = strcmp(memory_kind, "as") == 0;
        watch_limit = (unsigned long long)memory;
        page_size = sysconf(_SC_PAGESIZE);
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, watch) != 0) die("socketpair");
    }
    pid_t supervisor = getpid();
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        close(setup[0]);
        setup_status = setup[1];
        if (watch[0] >= 0) close(watch[0]);
        if (report >= 0) close(report);
        reset_program_signals();
        /* a group of its own: kill(0) cannot reach us, and ending the run kills its group */
        if (setpgid(0, 0) != 0) die("setpgid");
        if (uid >= 0) {
            if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0)
                die("cannot switch uid");
        }
        /* no capability in any set, the inheritable one too (the uid switch clears only the
         * permitted and effective ones) */
        struct __user_cap_header_struct cap_header = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct no_caps[2] = {{0, 0, 0}, {0, 0, 0}};
        if (syscall(SYS_capset, &cap_header, no_caps) != 0) die("capset");
        set_limit(RLIMIT_NPROC, nproc, nproc);
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (watch[1] >= 0) start_watch(watch[1]);    /* first: the filters below may refuse seccomp() */
        if (landlock_abi > 0) landlock(landlock_abi, folders, nfolders, files, nfiles, readable, nreadable);
        if (seccomp >= 0) load_seccomp(seccomp);
        if (guard) install_guard(supervisor, original_parent);
        if (go >= 0) await_go(go, cgroups, ncgroups);
#ifdef VERIFY_INIT_RETURNS_PROGRAM
        /* a zygote's step (forkserver.c): the interpreter this process was forked from runs
         * the program here, where an exec would have started it */
        returned_command = command;
        return VERIFY_INIT_RETURNS_PROGRAM;
#endif
        execvp(command[0], command);
        /* verify made this command line (an interpreter, a compiler, an artefact it built):
         * one that cannot be started is the judge's failure, never the program's */
        char cannot[4200];
        snprintf(cannot, sizeof cannot, "cannot run %s", command[0]);
        die(cannot);
    }
    program = child;
    if (stop_requested) { kill(-child, SIGKILL); kill(child, SIGKILL); }
    close(setup[1]);
    if (seccomp >= 0) close(seccomp);
    if (go >= 0) {      /* the program's process holds them now */
        close(go);
        for (int c = 0; c < ncgroups; c++) close(cgroups[c]);
    }
    int watching = 0;
    if (watch[1] >= 0) { close(watch[1]); watching = serve_watch(watch[0]); }
    int status = 0;
    for (;;) {
        if (parent_died) {
            if (uid >= 0) kill_uid(uid);           /* every process of the run's own uid */
            kill(-child, SIGKILL);
            kill(child, SIGKILL);
            kill_leftovers();
            _exit(137);
        }
        pid_t done = waitpid(child, &status, 0);
        if (done == child) break;
        if (done < 0 && errno != EINTR) die("waitpid");
    }
    /* read once the child is gone (no wake-up at its exec): nothing, the exec happened;
     * 'f', its set-up failed; 'q', there was no go */
    char setup_failed = 0;
    ssize_t said;
    while ((said = read(setup[0], &setup_failed, 1)) < 0 && errno == EINTR) {}
    close(setup[0]);
    if (said == 1 && setup_failed == 'q') return 125;
    int started = said != 1;
    kill_leftovers();
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    if (report >= 0) {
        dprintf(report, "%ld %ld %ld %d %d %d\n",
                (long)usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
                (long)usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec,
                usage.ru_maxrss, status, started,
                watching ? __atomic_load_n(&refused_requests, __ATOMIC_SEQ_CST) : -1);
        close(report);
    }
    return end_as(status);
}
