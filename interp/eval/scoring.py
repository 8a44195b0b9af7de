"""Scoring a solution against a problem's hidden tests, in an isolated process per check."""

from __future__ import annotations

from dataclasses import dataclass

from languages.process.spawn import signal_name

from interp.eval.data import Problem
from interp.eval.isolation import Finished, IsolationConfig, run_check

FEEDBACK_CHARS = 500  # OpenCodeInterpreter caps execution feedback at 500 characters
MIN_LIMIT = 1.0  # seconds: the least time a test is given
TIME_FACTOR = 4.0  # a test may take this many times what the reference solution took
LOAD_LIMIT = 10.0  # seconds to define the solution (imports included)
TIMED_OUT = "Execution timed out."
_REASONS = {"failed": "wrong answer", "timeout": "timed out", "memory": "memory limit",
            "missing": "entry point missing", "error": "exception",
            "garbage": "crashed: sent an answer that cannot be read"}


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: pass/fail, a short reason, and the feedback the model may get."""

    passed: bool
    reason: str  # "" when passed
    feedback: str  # OpenCodeInterpreter's execution feedback (at most 500 characters)
    seconds: float
    harness_error: bool = False  # the check itself went wrong (e.g. the reference failed)
    call: str = ""  # the call whose result was wrong, as source (`f([1, 2])`), when known

    def to_dict(self) -> dict:
        """The JSON form kept in results files."""
        return {"passed": self.passed, "reason": self.reason, "feedback": self.feedback,
                "seconds": round(self.seconds, 3), "harness_error": self.harness_error,
                "call": self.call}


def missing_feedback(entry_point: str) -> str:
    """OpenCodeInterpreter's feedback for a solution without the entry point."""
    return (f"Please rename your function to {entry_point} as there is no function named "
            f"{entry_point}.")


def build_job(problem: Problem, plus: bool) -> dict:
    """The judge's job: everything a check needs but the solution, which the judge never holds."""
    return {"entry_point": problem.entry_point, "reference": problem.reference,
            "test": problem.test, "atol": problem.atol, "suites": problem.suites(plus),
            "limits": {"min": MIN_LIMIT, "factor": TIME_FACTOR, "load": LOAD_LIMIT}}


def deadline_for(problem: Problem, plus: bool) -> float:
    """Seconds after which the whole check process is killed, whatever it is doing."""
    inputs = len(problem.base_inputs or ()) + (len(problem.plus_inputs or ()) if plus else 0)
    return 60.0 + 0.5 * inputs


def check(problem: Problem, code: str, *, plus: bool = False,
          config: IsolationConfig | None = None, deadline: float | None = None) -> Verdict:
    """Run the hidden tests on `code` in a fresh isolated process.

    A timeout is confirmed by a second run before it counts, so that a moment of load on a
    busy machine does not fail a correct solution."""
    job = build_job(problem, plus)
    seconds = deadline if deadline is not None else deadline_for(problem, plus)
    result = verdict(problem, code, run_check(job, code, seconds, config))
    if result.reason == "timed out":
        result = verdict(problem, code, run_check(job, code, seconds, config))
    return result


def verdict(problem: Problem, code: str, finished: Finished) -> Verdict:
    """Read the judge's report (or the way the check ended) as a Verdict."""
    result, seconds = finished.result, finished.seconds
    if result and "reference_error" in result:
        return Verdict(False, "harness error: the reference solution failed", "", seconds, True)
    suites = (result or {}).get("suites")
    if not isinstance(suites, list) or not suites or not all(isinstance(s, dict) for s in suites):
        return _no_report(finished)
    failed = [s for s in suites if s.get("status") != "passed"]
    if not failed:
        return Verdict(True, "", "", seconds)
    first = failed[0]
    if first.get("status") == "harness":
        return Verdict(False, f"harness error: {first.get('feedback', '')[:120]}", "", seconds, True)
    if first.get("status") == "ended":
        return _ended(finished)
    feedback = _feedback(suites)
    if first.get("status") == "missing" or problem.entry_point not in code:
        feedback = missing_feedback(problem.entry_point)
    reason = _REASONS.get(first.get("status"), "failed")
    if first.get("status") == "error":
        last = (first.get("feedback") or "").strip().splitlines()
        reason = f"exception: {last[-1][:120]}" if last else "exception"
    call = first.get("call") if first.get("status") == "failed" else ""
    return Verdict(False, reason, feedback[:FEEDBACK_CHARS], seconds,
                   call=call if isinstance(call, str) else "")


def _feedback(suites: list[dict]) -> str:
    """OpenCodeInterpreter's rule: the base failure, with the plus one after a wrong result."""
    base = suites[0]
    plus = suites[1] if len(suites) > 1 else None
    if base.get("status") == "passed":
        return (plus or {}).get("feedback", "")[:FEEDBACK_CHARS]
    text = (base.get("feedback") or "")[:FEEDBACK_CHARS]
    if plus and plus.get("status") != "passed" and "The results aren't as expected." in text:
        text += "\n" + (plus.get("feedback") or "")[:FEEDBACK_CHARS]
    return text


def _no_report(finished: Finished) -> Verdict:
    """A judge that ended without a report: the deadline passed, or it failed (a harness error,
    also when a solution without a sandbox around it killed the judge)."""
    if finished.timed_out:
        return Verdict(False, "timed out", TIMED_OUT, finished.seconds)
    lines = (finished.judge_stderr or finished.stderr).strip().splitlines()
    tail = lines[-1][:120] if lines else "no report"
    return Verdict(False, f"harness error: the checker ended without a report ({tail})", "",
                   finished.seconds, True)


def _ended(finished: Finished) -> Verdict:
    """The solution's process ended before answering: killed, exited, or crashed."""
    if finished.signal is not None:
        name = signal_name(finished.signal)
        return Verdict(False, f"killed by {name}", f"The program was killed by {name}.", finished.seconds)
    lines = finished.stderr.strip().splitlines()
    tail = lines[-1] if lines else f"exit status {finished.exit_code}"
    if "MemoryError" in finished.stderr:
        return Verdict(False, "memory limit", tail[:FEEDBACK_CHARS], finished.seconds)
    return Verdict(False, f"crashed: {tail[:120]}", tail[:FEEDBACK_CHARS], finished.seconds)
