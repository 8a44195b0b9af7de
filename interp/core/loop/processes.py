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

    number: int  # its number in the list, for /kill N
    process: BackgroundProcess
    running: str  # how long it has run
    tail: tuple[str, ...]  # its last lines of output


def running(session, lines: int = 5) -> list[Listed]:
    """The background processes of every runner of the session, oldest first."""
    found = []
    for runner in session.runners():
        background = getattr(runner, "background", None)
        if background is not None:
            found += background.processes()
    found.sort(key=lambda p: (p.started, p.pid))
    return [Listed(n, p, running_for(p.started), tuple(p.tail(lines))) for n, p in enumerate(found, 1)]


def stop(session, which: str) -> BackgroundProcess | None:
    """Stop the process numbered `which` in running() (or with that pid) and everything it
    started; returns it, or None when there is no such process. Raises ProcessLookupError when
    it would not stop."""
    listed = running(session, lines=0)
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
