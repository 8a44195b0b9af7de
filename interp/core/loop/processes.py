"""The processes a session's blocks left running: listing them (/ps) and stopping one (/kill).

The runners find them and capture their output (languages/background.py); they stop with the
runners when the session closes."""

from __future__ import annotations

from dataclasses import dataclass

from languages.process.background import BackgroundProcess
from languages.process.tree import kill_tree, running_for


@dataclass(frozen=True)
class Listed:
    """A running background process as /ps shows it."""

    number: int  # its number for the session, for /kill N
    process: BackgroundProcess
    running: str  # how long it has run
    tail: tuple[str, ...]  # its last lines of output


class ProcessNumbers:
    """The numbers /ps gives processes: each keeps its own for the session (a process that
    ends leaves a gap), so /kill N from an old listing never stops another process."""

    def __init__(self) -> None:
        self._numbers: dict[tuple[int, int], int] = {}  # (pid, start ticks) -> number

    def of(self, process: BackgroundProcess) -> int:
        """The process's number, given the next one when it has none yet."""
        key = (process.pid, process.ticks)
        if key not in self._numbers:
            self._numbers[key] = len(self._numbers) + 1
        return self._numbers[key]


def running(session, numbers: ProcessNumbers, lines: int = 5) -> list[Listed]:
    """The background processes of every runner of the session, oldest first, numbered."""
    found = []
    for runner in session.runners():
        background = getattr(runner, "background", None)
        if background is not None:
            found += background.processes()
    found.sort(key=lambda p: (p.started, p.pid))
    return [Listed(numbers.of(p), p, running_for(p.started), tuple(p.tail(lines)))
            for p in found]


def stop(session, numbers: ProcessNumbers, which: str) -> BackgroundProcess | None:
    """Stop the process numbered `which` (or with that pid) and everything it started;
    returns it, or None when there is no such process. Raises ProcessLookupError when it
    would not stop."""
    listed = running(session, numbers, lines=0)
    if not which.strip().isdigit():
        return None
    number = int(which)
    chosen = next((item.process for item in listed if item.number == number), None)
    if chosen is None:
        chosen = next((item.process for item in listed if item.process.pid == number), None)
    if chosen is None:
        return None
    if not kill_tree(chosen.pid):
        raise ProcessLookupError(f"pid {chosen.pid} did not stop")
    return chosen
