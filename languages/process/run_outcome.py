"""How a run ended, and the Result that reports it."""

from __future__ import annotations

from dataclasses import dataclass

from ..records import CapturedOutput, Result, parse_displays

KILLED_NOTE = "the code did not stop after Ctrl-C, so its processes were killed"
FAKE_NOTE = ("the block printed this run's end-of-block marker itself; that line was dropped and "
             "the block ran on to its real end")


@dataclass
class Outcome:
    """What the runner observed while collecting a block's output."""

    status: dict | None = None
    interrupted: bool = False
    timed_out: bool = False
    killed: bool = False
    died: bool = False
    exit_code: int | None = None
    signal: str | None = None
    fakes: int = 0  # copies of the run's marker that the block printed itself
    waiting: tuple = ()  # ttywait.Reader: processes stopped for waiting on terminal input
    readers_signalled: int = 0  # signals sent to those that ignored Ctrl-C (SIGTERM, SIGKILL)


def build_result(outcome: Outcome, captured: CapturedOutput, restarted: bool,
                 duration: float) -> Result:
    """Turn what was observed (and the driver's status line) into a Result."""
    status = outcome.status or {}
    code = status.get("exit_code")
    kind = status.get("status", "ok")
    if outcome.died or (outcome.killed and not outcome.timed_out and not outcome.interrupted):
        state, code = "died", outcome.exit_code
    elif outcome.timed_out:
        state = "timeout"
    elif outcome.interrupted or kind == "interrupted":
        state = "interrupted"
    elif kind == "error" or (isinstance(code, int) and code != 0) or status.get("eof") is True:
        state = "error"  # a value read at end of input is no value: the block did not do its job
    else:
        state = "ok"
    return Result(status=state, output=captured, exit_code=code, error=status.get("error"),
                  signal=outcome.signal, interrupted=outcome.interrupted or kind == "interrupted",
                  timed_out=outcome.timed_out, died=outcome.died, restarted=restarted,
                  duration=duration, notes=_notes(outcome, status),
                  waiting_input=bool(outcome.waiting), read_eof=status.get("eof") is True,
                  displays=parse_displays(status))


def waiting_note(readers) -> str:
    """What the model is told about processes stopped for waiting on terminal input."""
    named = ", ".join(f"`{r.command}` (pid {r.pid})" if r.command else "the block itself"
                      for r in readers)
    return (f"{named} sat reading the terminal with no output: nothing can be typed into a "
            f"block, so give the input another way (an option such as --yes or "
            f"--non-interactive, a file, a here-string or a pipe) or use another command")


def _notes(outcome: Outcome, status: dict) -> tuple[str, ...]:
    """What the model is told besides the headline: the driver's notes (a string list in the
    status line: sys.exit, `set -e`, a pasted console session), a fake marker, a kill."""
    notes = status.get("notes")
    found = [n for n in notes if isinstance(n, str)] if isinstance(notes, list) else []
    if outcome.waiting:
        found.append(waiting_note(outcome.waiting))
    if outcome.fakes:
        found.append(FAKE_NOTE)
    if outcome.killed:
        found.append(KILLED_NOTE)
    return tuple(found)
