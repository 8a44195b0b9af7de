"""How a block in a kernel ended, and the Result that reports it."""

from __future__ import annotations

from dataclasses import dataclass

from .events import Display, Result
from .output import CapturedOutput
from .procs import signal_name

STUCK_NOTE = "the code did not stop after the interrupt, so the kernel was restarted"


@dataclass
class KernelOutcome:
    """What the runner observed while a kernel ran a block."""

    error: str | None = None  # "NameError: name 'x' is not defined"
    error_name: str | None = None
    interrupted: bool = False
    timed_out: bool = False
    stuck: bool = False  # still busy a grace period after the interrupt
    died: bool = False
    breach: str | None = None  # the note of a resource limit the block hit
    exit_code: int | None = None
    signal: int | None = None
    restarted: bool = False
    restart_error: str | None = None


def _status(outcome: KernelOutcome) -> str:
    if outcome.died:
        return "died"
    if outcome.timed_out:
        return "timeout"
    if outcome.interrupted or outcome.error_name == "KeyboardInterrupt":
        return "interrupted"
    if outcome.error:
        return "error"
    return "ok"


def kernel_result(outcome: KernelOutcome, captured: CapturedOutput, displays: tuple[Display, ...],
                  duration: float, lost: str | None = None) -> Result:
    """The Result of one block, with notes for a restart, a limit or an earlier death."""
    status = _status(outcome)
    notes = [note for note in (lost, outcome.breach) if note]
    if outcome.stuck:
        notes.append(STUCK_NOTE)
    if outcome.restart_error:
        notes.append(f"a new kernel could not be started: {outcome.restart_error}")
    return Result(status=status, output=captured, exit_code=outcome.exit_code,
                  error=outcome.error if status == "error" else None,
                  signal=signal_name(outcome.signal),
                  interrupted=status == "interrupted" or outcome.interrupted,
                  timed_out=outcome.timed_out, died=outcome.died,
                  restarted=outcome.restarted or bool(lost), duration=duration,
                  notes=tuple(notes), displays=displays)
