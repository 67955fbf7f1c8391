/* verify-init: the last step before a contestant's program, and its supervisor.
 *
 *   verify-init [OPTION...] -- COMMAND...
 *
 *   --go FD            wait (before anything else) until one byte arrives on FD; EOF: exit 125
 *   --report FD        write "utime_us stime_us maxrss_kb wait_status" there at the end
 *   --cgroup FD        join the cgroup whose cgroup.procs is open as FD (repeatable)
 *   --private-tmp SIZE (as root) own mount and IPC namespaces with fresh tmpfs of SIZE
 *                      bytes on /tmp and /dev/shm: shared memory and temporary files die
 *                      with the run, and SysV segments are private to it
 *   --keep PATH        with --private-tmp: this folder stays visible at its path
 *   --cpu S --memory data|as:BYTES --fsize BYTES --nofile N --nproc N   the rlimits
 *   --uid UID          COMMAND runs as UID (and gid UID, no groups); verify-init keeps its own
 *   --landlock ABI     confine COMMAND with Landlock (ABI = the kernel's version): writes only
 *   --writable PATH    beneath these folders (repeatable) and to
 *   --writable-file PATH  these files (repeatable); from ABI 4 no TCP bind/connect; from
 *                      ABI 6 no signal to, and no abstract socket of, any process outside
 *                      the run (the judge, this supervisor)
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
 * The report is "utime_us stime_us maxrss_kb wait_status started": started is 0 when the
 * run's set-up failed in the child before the exec, or the exec itself (the judge's failure,
 * never the program's; the reason is on stderr), else 1. A failure before the fork leaves no
 * report and exit code 125. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LIST 16

/* Landlock (linux/landlock.h of older systems lacks the newer fields). */
struct ll_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
struct ll_path_beneath { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_WRITE_ANY_ABI1 0x1ff2ULL /* write_file, remove_dir/file, make_char/dir/reg/sock/fifo/block/sym */
#define LL_FS_REFER (1ULL << 13)
#define LL_FS_TRUNCATE (1ULL << 14)
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

static void set_limit(int resource, long long soft, long long hard) {
    struct rlimit r = {(rlim_t)soft, (rlim_t)hard};
    if (soft < 0) return;
    if (setrlimit(resource, &r) != 0) die("setrlimit");
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
}

static void add_path_rule(int ruleset, const char *path, uint64_t access) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;                      /* not there: nothing to allow */
    struct ll_path_beneath rule = {access, fd};
    if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) != 0) die("landlock_add_rule");
    close(fd);
}

static void landlock(int abi, char **folders, int nfolders, char **files, int nfiles) {
    uint64_t write_any = LL_FS_WRITE_ANY_ABI1 | (abi >= 2 ? LL_FS_REFER : 0) | (abi >= 3 ? LL_FS_TRUNCATE : 0);
    struct ll_ruleset_attr attr = {write_any, abi >= 4 ? (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP) : 0,
                                   abi >= 6 ? (LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET) : 0};
    size_t size = abi >= 6 ? sizeof attr : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) die("landlock_create_ruleset");
    for (int i = 0; i < nfolders; i++) add_path_rule(ruleset, folders[i], write_any);
    for (int i = 0; i < nfiles; i++)
        add_path_rule(ruleset, files[i], LL_FS_WRITE_FILE | (abi >= 3 ? LL_FS_TRUNCATE : 0));
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

int main(int argc, char **argv) {
    int go = -1, report = -1, seccomp = -1, landlock_abi = 0, guard = 0;
    long uid = -1;
    long long cpu = -1, memory = -1, fsize = -1, nofile = -1, nproc = -1;
    const char *memory_kind = "data", *tmp_size = NULL;
    pid_t original_parent = getppid();
    int cgroups[MAX_LIST], ncgroups = 0, nfolders = 0, nfiles = 0, nkeep = 0;
    char *folders[MAX_LIST], *files[MAX_LIST], *keep[MAX_LIST];
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
        else if (!strcmp(option, "--seccomp")) seccomp = atoi(value);
        else if (!strcmp(option, "--guard")) guard = atoi(value);
        else { fprintf(stderr, "verify-init: unknown option %s\n", option); return 125; }
    }
    if (i + 1 >= argc) { fprintf(stderr, "usage: verify-init [OPTION VALUE]... -- COMMAND...\n"); return 125; }
    char **command = argv + i + 1;

    if (go >= 0) {     /* a sandbox built ahead waits here, before anything of the run exists */
        char byte;
        ssize_t got;
        while ((got = read(go, &byte, 1)) < 0 && errno == EINTR) {}
        if (got != 1) return 125;
        close(go);
    }
    for (int c = 0; c < ncgroups; c++) {       /* "0": the writer itself; children follow */
        if (write(cgroups[c], "0", 1) != 1) die("cannot join the run's cgroup");
        close(cgroups[c]);
    }
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
    int setup[2];
    if (pipe2(setup, O_CLOEXEC) != 0) die("pipe");
    pid_t supervisor = getpid();
    pid_t child = fork();
    if (child < 0) die("fork");
    if (child == 0) {
        close(setup[0]);
        setup_status = setup[1];
        if (report >= 0) close(report);
        signal(SIGUSR1, SIG_DFL); signal(SIGUSR2, SIG_DFL); signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL); signal(SIGTERM, SIG_DFL); signal(SIGHUP, SIG_DFL);
        /* a group of its own: kill(0) cannot reach us, and ending the run kills its group */
        if (setpgid(0, 0) != 0) die("setpgid");
        if (uid >= 0) {
            if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0)
                die("cannot switch uid");
        }
        set_limit(RLIMIT_NPROC, nproc, nproc);
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (landlock_abi > 0) landlock(landlock_abi, folders, nfolders, files, nfiles);
        if (seccomp >= 0) load_seccomp(seccomp);
        if (guard) install_guard(supervisor, original_parent);
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
    char setup_failed = 0;
    ssize_t said;       /* EOF: the exec happened (or the child died before: then it is waited for) */
    while ((said = read(setup[0], &setup_failed, 1)) < 0 && errno == EINTR) {}
    close(setup[0]);
    int started = said != 1;
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
    kill_leftovers();
    struct rusage usage;
    getrusage(RUSAGE_CHILDREN, &usage);
    if (report >= 0) {
        dprintf(report, "%ld %ld %ld %d %d\n",
                (long)usage.ru_utime.tv_sec * 1000000L + usage.ru_utime.tv_usec,
                (long)usage.ru_stime.tv_sec * 1000000L + usage.ru_stime.tv_usec,
                usage.ru_maxrss, status, started);
        close(report);
    }
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
