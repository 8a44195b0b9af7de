"""How a block in a kernel ended, and the Result that reports it."""

from __future__ import annotations

from dataclasses import dataclass

from ..records import Display, Result
from .bundle import BundleReader
from ..escapes import strip_escapes
from ..records import CapturedOutput
from ..process.spawn import signal_name

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


def message_text(message: dict, outcome: KernelOutcome, reader: BundleReader) -> str:
    """The output text of one message of the block (displays go to the reader)."""
    kind, content = message.get("msg_type"), message.get("content") or {}
    if kind == "stream":
        return content.get("text") if isinstance(content.get("text"), str) else ""
    if kind == "error":
        outcome.error_name = str(content.get("ename") or "Error")
        outcome.error = f"{outcome.error_name}: {content.get('evalue', '')}".strip()[:500]
        lines = content.get("traceback") or [outcome.error]
        return strip_escapes("\n".join(str(line) for line in lines)) + "\n"
    if kind in ("execute_result", "display_data"):
        return reader.read(content.get("data")).text
    return ""


def message_state(message: dict) -> object:
    """A status message's execution_state."""
    content = message.get("content")
    return content.get("execution_state") if isinstance(content, dict) else None


def is_idle(message: dict) -> bool:
    """True for the status message that ends a request."""
    return message.get("msg_type") == "status" and message_state(message) == "idle"
