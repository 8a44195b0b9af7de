"""Finding and killing every process a runner started, background jobs included."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def session_members(leader: int) -> list[int]:
    """PIDs whose session or process group is `leader` (Linux /proc; process group elsewhere)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and (int(fields[2]) == leader or int(fields[3]) == leader):
            found.append(int(entry.name))
    return found


def kill_session(leader: int) -> None:
    """SIGKILL the leader, its process group and everything else in its session."""
    for pid in [leader, *session_members(leader)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(leader, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def signal_name(number: int | None) -> str | None:
    """'SIGSEGV' for 11, or None."""
    if number is None:
        return None
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
