"""A Python zygote's own code: run as `python3 -s -c <this file's text> SOCK PIDFD LIBRARY`
inside a fork server's sandbox (forkserver.py, `Zygote`).

It initialises nothing beyond what the interpreter's start did, loads verify-forkserver
built as a library (forkserver.c, VERIFY_ZYGOTE_LIBRARY) and hands it the process: each
step is forked from here and made as any fork-server step is (its own uid, namespaces,
tmpfs, rlimits, Landlock rules, seccomp filter and cgroup). The library returns only in a
step's program process, after go, where the program is run as `python3 -s SCRIPT ARGS`
would run it: `__main__` emptied and filled as the interpreter fills it for a script,
sys.argv, sys.orig_argv and sys.path[0] those of that command line, the modules this
code imported removed from sys.modules (the program imports its own copies, or its own
files of those names). The zygote's loop is C: no Python code runs in the zygote between
steps, so every step starts from the same interpreter state.
"""

import sys


def _serve() -> list[str]:
    """Serve steps; returns in a step's program process, with its command line."""
    import ctypes
    import os

    sock, server, library_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    library = ctypes.PyDLL(library_path)             # (the GIL held: the forks happen in C)
    library.verify_zygote_arg.restype = ctypes.c_char_p
    os.write(1, b"r")
    if library.verify_zygote_serve(sock, server) != 0:
        raise SystemExit(0)                          # verify closed the zygote
    ctypes.pythonapi.PyOS_AfterFork_Child()
    return [os.fsdecode(library.verify_zygote_arg(index)) for index in range(library.verify_zygote_argc())]


def _run(command: list[str], zygote_modules: set[str]) -> None:
    """Run `command` (`python3 -s SCRIPT ARGS...`) as that command line would, in this process.
    (Everything it uses is local: it empties the module namespace it runs in.)"""
    import builtins
    import os
    import sys
    finish, exit_status = _finish, _exit_status     # (this module's names are gone once it runs)
    if len(command) < 3 or command[1] != "-s" or command[2].startswith("-"):
        os.execvp(command[0], command)               # (never made so by verify: run it for real)
    script = command[2]
    for name in set(sys.modules) - zygote_modules:
        del sys.modules[name]
    with open(script, "rb") as file:
        source = file.read()
    sys.argv = command[2:]
    sys.orig_argv = list(command)
    sys.path.insert(0, os.path.dirname(os.path.realpath(script)))
    namespace = sys.modules["__main__"].__dict__
    loader = sys.modules["_frozen_importlib_external"].SourceFileLoader("__main__", script)
    namespace.clear()
    namespace.update(__name__="__main__", __doc__=None, __package__=None, __loader__=loader, __spec__=None,
                     __annotations__={}, __builtins__=builtins, __file__=script, __cached__=None)
    try:
        exec(compile(source, script, "exec"), namespace)
        status = 0
    except SystemExit as stop:
        status = exit_status(stop.code)
    except BaseException as error:                   # as the interpreter reports it, without this frame
        if error.__traceback__ is not None:           # (the report shows the exception's own)
            error.__traceback__ = error.__traceback__.tb_next
        sys.excepthook(type(error), error, error.__traceback__)
        if isinstance(error, KeyboardInterrupt):
            import signal
            finish(1, zygote_modules)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        status = 1
    os._exit(finish(status, zygote_modules))


def _exit_status(code: object) -> int:
    """The exit status an uncaught SystemExit(code) gives (its message said as the interpreter says it)."""
    import sys
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except Exception:
        pass
    return 1


def _finish(status: int, zygote_modules: set[str]) -> int:
    """What the interpreter's end does that a program can see, then the status to exit with:
    its threads waited for, its atexit functions run, the files it left open in its modules'
    globals and its stdout and stderr flushed (a stdout that cannot be: 120). What it skips is
    the teardown of every object (the module dictionaries emptied, the final collection):
    in a process forked from the zygote that writes to each page of the interpreter's memory
    (copied on write), more than half a step's time. What a program can tell of the skip: a
    `__del__` that would run at the end does not, and a file object held only by another object
    is not flushed (docs/runner.md, "The Python zygote")."""
    import atexit
    import io
    import sys
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()
    atexit._run_exitfuncs()
    standard = (sys.stdout, sys.stderr)
    for name, module in list(sys.modules.items()):
        if name in zygote_modules and name != "__main__":
            continue
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, io.IOBase) and all(value is not stream for stream in standard):
                try:
                    if not value.closed:
                        value.flush()
                except Exception:
                    pass
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except Exception as error:
        sys.stderr.write(f"Exception ignored on flushing sys.stdout:\n{type(error).__name__}: {error}\n")
        status = 120
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except Exception:
        pass
    return status

if __name__ == "__main__":
    if sys.path and sys.path[0] == "":
        del sys.path[0]              # (the working folder) nothing is imported from there
    started_with = set(sys.modules)   # (what a fresh interpreter has imported)
    _run(_serve(), started_with)
