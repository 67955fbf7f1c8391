"""A seccomp filter for every build and run: system calls no contest program needs fail.

Built with libseccomp (through ``pyseccomp``, a ctypes binding; Debian's own ``seccomp``
binding works too) and exported as a classic-BPF program. The default action is ALLOW;
every call in BLOCKED fails with EPERM, so does each call of CONDITIONAL for the
arguments it names, and ``clone3`` fails with ENOSYS. Nothing is ever killed: a program
that tries a blocked call sees an ordinary error and carries on (or reports it).

A run's only sockets are unnamed Unix stream and seqpacket ones (socketpair, or socket
without bind or connect): no other family, no datagram socket, no name bound or
connected to. So none reaches outside the run, in every mode, with or without a network
namespace (a pathname socket is reached across one).

    filter_bytes(*, block_kill_of=None, block_shared_memory=False) -> bytes
    filter_file(**same options) -> Path | None   # None: no libseccomp here, no filter in force
    available() -> bool
    describe(**same options) -> str              # "seccomp (libseccomp 2.5.4, 69 calls blocked, ...)"

Options:
  block_kill_of=PID    for a program running as the judge's uid without a PID namespace:
                       it cannot signal PID (kill/tgkill/rt_sigqueueinfo/... to PID, to its
                       process group, or to -1), open a pidfd on it, make it the owner of a
                       SIGIO/SIGURG source (F_SETOWN), or change its rlimits, priority,
                       scheduling or CPUs; tkill, pidfd_send_signal and F_SETOWN_EX are
                       blocked outright (their target cannot be checked).
  block_shared_memory  for runs without a memory cgroup (which would count shared memory):
                       no SysV shared memory, no memfd, no MAP_SHARED|MAP_ANONYMOUS mapping.

The file (for a loader in C: ``verify-init --seccomp FD``, ``bwrap --seccomp FD``)
--------------------------------------------------------------------------------------
What ``seccomp_export_bpf`` writes, unchanged: a bare array of ``struct sock_filter``
(linux/filter.h), no header, no trailer::

    struct sock_filter { uint16_t code; uint8_t jt; uint8_t jf; uint32_t k; };   /* 8 bytes */

in the machine's native byte order (libseccomp converts to the filter's architecture's
order, and the filter is for the native architecture only). So the instruction count is
``file size / 8`` and the loader does::

    struct sock_fprog prog = { .len = size / 8, .filter = buffer };
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);              /* unless it has CAP_SYS_ADMIN */
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);   /* or seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog) */

The program starts by checking the architecture (``seccomp_data.arch``); a call made
through another ABI (``int $0x80`` or an x32 number in an x86-64 process) gets ENOSYS,
never reaching the per-call rules that it could otherwise dodge. The kernel accepts at
most 4096 instructions per filter; ours is a few hundred (docs/seccomp.md has the figures).

Files live in ``cache_root() / "seccomp" / <digest>.bpf`` (digest of the bytes: a new
libseccomp, kernel table or option set makes a new file), folders 0755, files 0644,
written through a temporary file and a rename. ``VERIFY_SECCOMP=off`` turns the filter
off (``available()`` is False, ``filter_file()`` is None). See docs/seccomp.md.
"""
from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import tempfile
import termios
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from verify.runner.paths import cache_root

# -- what is blocked ---------------------------------------------------------------------

BLOCKED: tuple[str, ...] = (
    # Namespaces and mounts: the sandbox's walls are made of these. A program that could
    # make its own namespaces or mounts could reshape what it sees (and they are the
    # kernel code most often behind container escapes).
    "unshare", "setns", "mount", "umount", "umount2", "pivot_root", "chroot",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    # Large kernel interfaces behind many local privilege escalations, unused by any
    # language runtime we run (libuv falls back from io_uring to its thread pool).
    "bpf", "userfaultfd", "perf_event_open", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "modify_ldt", "fanotify_init",
    # Other processes' memory, files and pages (ptrace and its relatives): with the same
    # uid as the judge (no own uid) they would reach into the judge itself.
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "process_mrelease",
    "pidfd_getfd", "kcmp", "migrate_pages", "move_pages",
    # The machine: kernel modules, kexec, reboot, swap, process accounting, quotas, the
    # kernel log, raw I/O ports, the terminal hang-up.
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "iopl", "ioperm",
    "vhangup", "lookup_dcookie",
    # Files by handle: open_by_handle_at opens any file of a mounted file system, whatever
    # folders hide it (the "shocker" escape from Docker); its pair goes with it.
    "open_by_handle_at", "name_to_handle_at",
    # Host-wide names and clocks (also for compilers, which run as the caller's uid).
    "sethostname", "setdomainname", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "stime",
    # Obsolete (ENOSYS on most kernels already; attack surface where they remain).
    "uselib", "ustat", "sysfs", "_sysctl", "vm86", "vm86old",
    # Named sockets: a run's sockets are Unix ones (socket below), and a Unix socket reaches
    # outside the run through a name, a path or an abstract one, which seccomp cannot read
    # (it is behind a pointer): so no connect and no bind at all. socketcall multiplexes
    # every socket call on 32-bit architectures, its arguments behind a pointer too.
    "connect", "bind", "socketcall",
)

# Blocked (EPERM) only for some arguments.
CONDITIONAL: dict[str, str] = {
    "clone": "with any CLONE_NEW* flag (a new namespace); plain fork, vfork and threads go through",
    "personality": "to anything but 0 (PER_LINUX), 8 (PER_LINUX32), 0x20000 (UNAME26), 0x20008 "
                   "and the 0xffffffff query (Docker's list): no ADDR_NO_RANDOMIZE, "
                   "READ_IMPLIES_EXEC, MMAP_PAGE_ZERO...",
    "ioctl": "TIOCSTI and TIOCLINUX (typing into, or driving, a terminal)",
    "socket": "of any family but AF_UNIX, and AF_UNIX datagram sockets (SOCK_DGRAM, and SOCK_RAW, "
              "which the kernel makes one): a datagram is sent to a name without connect",
    "socketpair": "the same: a connected datagram pair still sends to any name it is given",
}

# ENOSYS: clone3 passes its flags in a struct seccomp cannot read; glibc (2.34+) and
# others then fall back to clone, whose flags the filter checks. (Docker and podman too.)
NOT_IMPLEMENTED: tuple[str, ...] = ("clone3",)

# block_kill_of=PID: calls blocked when aimed at PID (the judge), blocked outright below.
KILL_TARGETED: tuple[str, ...] = (
    "kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "fcntl", "fcntl64",
    "prlimit64", "setpriority", "ioprio_set", "sched_setaffinity", "sched_setscheduler",
    "sched_setparam", "sched_setattr", "ioctl")
KILL_BLOCKED: tuple[str, ...] = ("tkill", "pidfd_send_signal")

# block_shared_memory: memory that RLIMIT_DATA does not count (mmap only for
# MAP_SHARED|MAP_ANONYMOUS; file mappings and private memory are untouched).
SHARED_MEMORY: tuple[str, ...] = ("shmget", "shmat", "shmctl", "memfd_create")
SHARED_MEMORY_TARGETED: tuple[str, ...] = ("mmap", "mmap2")

# A name only some architectures have (fcntl64, mmap2 on 32-bit ones; socketcall where socket
# calls are multiplexed) is not reported as missing where its twin is blocked.
TWINS = {"fcntl64": "fcntl", "mmap2": "mmap", "socketcall": "socket"}

# -- constants (Linux UAPI; the same on every architecture unless noted) --------------------

CLONE_NAMESPACES = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000,
                    "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000,
                    "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
                    "CLONE_NEWNET": 0x40000000}
# (CLONE_NEWTIME, 0x80, is only accepted by unshare and clone3: in clone's flags that bit
# belongs to the exit signal.)
PERSONALITY_ALLOWED = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
LOW32 = 0xFFFFFFFF
MAP_SHARED, MAP_ANONYMOUS = 0x01, 0x20          # (MAP_SHARED_VALIDATE, 0x03, has the 0x01 bit)
F_SETOWN, F_SETOWN_EX = 8, 15
PRIO_PROCESS, PRIO_PGRP, PRIO_USER = 0, 1, 2
IOPRIO_WHO_PROCESS, IOPRIO_WHO_PGRP, IOPRIO_WHO_USER = 1, 2, 3
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902
AF_UNIX = 1
SOCK_TYPE_MASK, SOCK_DGRAM, SOCK_RAW = 0xF, 2, 3   # (the type argument also carries SOCK_NONBLOCK|SOCK_CLOEXEC)


def _ioctl_numbers() -> tuple[int, int]:
    """TIOCSTI and TIOCLINUX of this architecture (they differ on mips, powerpc, sparc)."""
    return getattr(termios, "TIOCSTI", 0x5412), getattr(termios, "TIOCLINUX", 0x541C)


# -- libseccomp ---------------------------------------------------------------------------

class SeccompUnavailable(RuntimeError):
    """libseccomp (or a Python binding of it) cannot be loaded here."""


# pyseccomp (and Debian's seccomp) come without type information: a loaded binding is
# used through its attributes (Arch, Attr, SyscallFilter, resolve_syscall...), as Any.
Binding = Any


@cache
def _binding() -> ModuleType | None:
    """pyseccomp, else Debian's `seccomp`; None when neither loads (pyseccomp raises
    RuntimeError at import when libseccomp.so is missing)."""
    for name in ("pyseccomp", "seccomp"):
        try:
            return __import__(name)
        except Exception:   # ImportError, RuntimeError, OSError from ctypes
            continue
    return None


def _require() -> Binding:
    binding = _binding()
    if binding is None:
        raise SeccompUnavailable("libseccomp cannot be loaded (pip install pyseccomp; libseccomp2)")
    return binding


@cache
def libseccomp_version() -> str | None:
    """"2.5.4", from libseccomp's own seccomp_version()."""
    binding = _binding()
    if binding is None:
        return None
    library = getattr(binding, "_libseccomp", None)
    try:
        if library is None:
            library = ctypes.CDLL("libseccomp.so.2")

        class Version(ctypes.Structure):
            _fields_ = [("major", ctypes.c_uint), ("minor", ctypes.c_uint), ("micro", ctypes.c_uint)]
        function = library.seccomp_version
        function.restype = ctypes.POINTER(Version)
        function.argtypes = ()
        found = function().contents
        return f"{found.major}.{found.minor}.{found.micro}"
    except (OSError, AttributeError, ValueError):
        return None


class Rule(NamedTuple):
    action: str                              # "EPERM" or "ENOSYS"
    call: str
    args: tuple[tuple[int, int, int], ...]   # (argument index, mask, value): (arg & mask) == value, all of them
    differs: tuple[tuple[int, int], ...] = ()   # (argument index, value): arg != value (all 64 bits), all of them


class Plan(NamedTuple):
    rules: tuple[Rule, ...]                  # what the filter holds (calls known here only)
    blocked: tuple[str, ...]                 # the calls it blocks, wholly or for some arguments
    absent: tuple[str, ...]                  # names of ours unknown to this libseccomp/architecture


def _number(binding: Binding, name: str) -> int | None:
    try:
        number = binding.resolve_syscall(binding.Arch.NATIVE, name)
    except (ValueError, OSError):
        return None
    return number if isinstance(number, int) and number >= 0 else None   # <0: unknown or not on this arch


def _is_s390(binding: Binding) -> bool:
    return binding.system_arch() in (getattr(binding.Arch, "S390", -1), getattr(binding.Arch, "S390X", -1))


def _clone_flags_argument(binding: Binding) -> int:
    """clone's flags are its first argument, except on s390 (the stack comes first)."""
    return 1 if _is_s390(binding) else 0


def _personality_rules() -> list[tuple[tuple[int, int, int], ...]]:
    """Comparisons (each one a rule) matching exactly the personality values whose low 32 bits
    (all the kernel reads) are not in PERSONALITY_ALLOWED. libseccomp allows one comparison
    per argument in a rule, so "not one of these" is built from masked equalities:
    the allowed values differ only in bits 3 and 17 (plus the all-ones query). Let O be the
    other 30 bits. O all clear: allowed. O neither all clear nor all set: somewhere, going
    round the 30 bits, a set bit is followed by a clear one: one rule per such pair.
    O all set: allowed only with bits 3 and 17 set too: two rules."""
    free = 0
    for value in PERSONALITY_ALLOWED[:-1]:
        free |= value
    other = LOW32 & ~free
    bits = [1 << b for b in range(32) if other >> b & 1]
    rules: list[tuple[tuple[int, int, int], ...]] = [((0, bit | bits[(i + 1) % len(bits)], bit),)
                                                      for i, bit in enumerate(bits)]
    rules += [((0, other | flag, other),) for flag in (1 << b for b in range(32) if free >> b & 1)]
    return rules


def _masked(pid: int) -> int:
    return pid & LOW32


def _kill_rules(pid: int) -> list[tuple[str, tuple[tuple[int, int, int], ...]]]:
    """Rules keeping a program away from process `pid` (and its process group)."""
    if pid <= 1:
        raise ValueError(f"block_kill_of must be a process id above 1, not {pid}")
    try:
        group = os.getpgid(pid)
    except OSError:
        group = pid
    groups = sorted({pid, group} - {0, 1})
    rules: list[tuple[str, tuple[tuple[int, int, int], ...]]] = []
    # kill(pid), kill(-group) for the process and its group, kill(-1) for every process we may signal
    for target in [pid, *(-g for g in groups), -1]:
        rules.append(("kill", ((0, LOW32, _masked(target)),)))
    for call in ("tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "prlimit64",
                 "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr"):
        rules.append((call, ((0, LOW32, _masked(pid)),)))
    for call in ("fcntl", "fcntl64"):
        # F_SETOWN(pid) or F_SETOWN(-group): SIGIO/SIGURG (or F_SETSIG's signal) sent to it
        for target in [pid, *(-g for g in groups)]:
            rules.append((call, ((1, LOW32, F_SETOWN), (2, LOW32, _masked(target)))))
        rules.append((call, ((1, LOW32, F_SETOWN_EX),)))       # its pid is in a struct
    for request in (FIOSETOWN, SIOCSPGRP):                      # ioctl forms of F_SETOWN (a pointer)
        rules.append(("ioctl", ((1, LOW32, request),)))
    rules.append(("setpriority", ((0, LOW32, PRIO_PROCESS), (1, LOW32, _masked(pid)))))
    rules += [("setpriority", ((0, LOW32, which),)) for which in (PRIO_PGRP, PRIO_USER)]
    rules.append(("ioprio_set", ((0, LOW32, IOPRIO_WHO_PROCESS), (1, LOW32, _masked(pid)))))
    rules += [("ioprio_set", ((0, LOW32, which),)) for which in (IOPRIO_WHO_PGRP, IOPRIO_WHO_USER)]
    rules += [(call, ()) for call in KILL_BLOCKED]
    return rules


def _socket_rules() -> list[Rule]:
    """socket and socketpair: EPERM unless the family is AF_UNIX, and for its datagram types.
    The family is compared on all 64 bits: high bits the kernel ignores are refused too."""
    rules = []
    for call in ("socket", "socketpair"):
        rules.append(Rule("EPERM", call, (), ((0, AF_UNIX),)))
        rules += [Rule("EPERM", call, ((1, SOCK_TYPE_MASK, kind),)) for kind in (SOCK_DGRAM, SOCK_RAW)]
    return rules


@cache
def _plan(block_kill_of: int | None, block_shared_memory: bool) -> Plan:
    binding = _require()
    wanted: list[Rule] = []
    wanted += [Rule("EPERM", call, ()) for call in BLOCKED]
    wanted += [Rule("ENOSYS", call, ()) for call in NOT_IMPLEMENTED]
    flags_argument = _clone_flags_argument(binding)
    wanted += [Rule("EPERM", "clone", ((flags_argument, flag, flag),)) for flag in CLONE_NAMESPACES.values()]
    wanted += [Rule("EPERM", "personality", comparisons) for comparisons in _personality_rules()]
    wanted += [Rule("EPERM", "ioctl", ((1, LOW32, request),)) for request in _ioctl_numbers()]
    wanted += _socket_rules()
    if block_kill_of is not None:
        wanted += [Rule("EPERM", call, comparisons) for call, comparisons in _kill_rules(block_kill_of)]
    if block_shared_memory:
        wanted += [Rule("EPERM", call, ()) for call in SHARED_MEMORY]
        if not _is_s390(binding):        # (there mmap takes a pointer to its arguments)
            wanted += [Rule("EPERM", call, ((3, MAP_SHARED | MAP_ANONYMOUS, MAP_SHARED | MAP_ANONYMOUS),))
                       for call in SHARED_MEMORY_TARGETED]
    rules, blocked, absent = [], [], []
    for rule in wanted:
        if _number(binding, rule.call) is None:
            if rule.call not in absent:
                absent.append(rule.call)
            continue
        rules.append(rule)
        if rule.call not in blocked:
            blocked.append(rule.call)
    absent = [call for call in absent if TWINS.get(call) not in blocked]
    return Plan(tuple(rules), tuple(blocked), tuple(absent))


@cache
def _compile(block_kill_of: int | None, block_shared_memory: bool) -> bytes:
    binding = _require()
    plan = _plan(block_kill_of, block_shared_memory)
    actions = {"EPERM": binding.ERRNO(errno.EPERM), "ENOSYS": binding.ERRNO(errno.ENOSYS)}
    program = binding.SyscallFilter(binding.ALLOW)
    # another ABI's calls (int $0x80, x32 numbers) fail instead of killing the thread
    program.set_attr(binding.Attr.ACT_BADARCH, binding.ERRNO(errno.ENOSYS))
    try:
        # a binary tree of the call numbers (libseccomp >= 2.5): fewer instructions on the
        # path of a call that is checked (the kernel caches "always allowed" per call anyway)
        program.set_attr(binding.Attr.CTL_OPTIMIZE, 2)
    except (AttributeError, OSError):
        pass
    for rule in plan.rules:
        arguments = [binding.Arg(index, binding.MASKED_EQ, mask, value) for index, mask, value in rule.args]
        arguments += [binding.Arg(index, binding.NE, value) for index, value in rule.differs]
        program.add_rule(actions[rule.action], _number(binding, rule.call), *arguments)
    with tempfile.TemporaryFile() as exported:
        program.export_bpf(exported)
        exported.seek(0)
        code = exported.read()
    if not code or len(code) % 8:
        raise SeccompUnavailable(f"libseccomp exported {len(code)} bytes, not whole instructions")
    return code


# -- the API --------------------------------------------------------------------------------

def filter_bytes(*, block_kill_of: int | None = None, block_shared_memory: bool = False) -> bytes:
    """The compiled classic-BPF program (seccomp_export_bpf output) for this machine's native
    architecture. Raises SeccompUnavailable without libseccomp."""
    return _compile(block_kill_of, bool(block_shared_memory))


def filter_file(*, block_kill_of: int | None = None, block_shared_memory: bool = False,
                cache: Path | None = None) -> Path | None:
    """The BPF program written once into <cache>/seccomp/<digest>.bpf (None: cache_root()); its
    path. None when libseccomp cannot be loaded: then no filter is in force."""
    if _binding() is None:
        return None
    code = filter_bytes(block_kill_of=block_kill_of, block_shared_memory=block_shared_memory)
    folder = (cache if cache is not None else cache_root()) / "seccomp"
    path = folder / f"{hashlib.sha256(code).hexdigest()[:24]}.bpf"
    if _written.get(path) == len(code) and _size(path) == len(code):
        return path
    if _read(path) != code:
        _write(folder, path, code)
    _written[path] = len(code)
    return path


_written: dict[Path, int] = {}


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _write(folder: Path, path: Path, code: bytes) -> None:
    made = []
    for parent in (folder.parent, folder):
        if not parent.is_dir():
            parent.mkdir(parents=True, exist_ok=True)
            made.append(parent)
    for parent in made + [folder]:
        os.chmod(parent, 0o755)
    descriptor, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(code)
            out.flush()
            os.fchmod(out.fileno(), 0o644)
            os.fsync(out.fileno())
        os.replace(temporary, path)      # atomic: a reader sees no file or the whole file
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def available() -> bool:
    """A filter can be built here (libseccomp loads)."""
    if _binding() is None:
        return False
    try:
        filter_bytes()
    except (SeccompUnavailable, OSError, ValueError):
        return False
    return True


def blocked_calls(*, block_kill_of: int | None = None, block_shared_memory: bool = False) -> tuple[str, ...]:
    """The calls the filter blocks here (wholly or for some arguments), in BLOCKED's order."""
    return _plan(block_kill_of, bool(block_shared_memory)).blocked


def absent_calls(*, block_kill_of: int | None = None, block_shared_memory: bool = False) -> tuple[str, ...]:
    """Names of ours this libseccomp does not know on this architecture (left out)."""
    return _plan(block_kill_of, bool(block_shared_memory)).absent


def describe(*, block_kill_of: int | None = None, block_shared_memory: bool = False, wanted: bool = True) -> str:
    """For the isolation name, e.g. "seccomp (libseccomp 2.5.4, 69 calls blocked)";
    "no seccomp (...)" when there is none (`wanted` False: turned off, VERIFY_SECCOMP=off)."""
    if not wanted:
        return "no seccomp (VERIFY_SECCOMP=off)"
    if not available():
        return "no seccomp (libseccomp not found)"
    plan = _plan(block_kill_of, bool(block_shared_memory))
    text = f"libseccomp {libseccomp_version() or '?'}, {len(plan.blocked)} calls blocked"
    if plan.absent:
        text += f", {len(plan.absent)} not on this architecture"
    return f"seccomp ({text})"
