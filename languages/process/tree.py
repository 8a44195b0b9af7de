"""A runner's processes in /proc (Linux): their parents, start times, where their output goes,
their children; stopping a process and everything it started."""

from __future__ import annotations

import os
import signal
import stat
import time

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def kill_tree(pid: int, grace: float = 2.0) -> bool:
    """SIGTERM a process and its descendants, SIGKILL what is left after `grace` seconds;
    True when the process is gone."""
    family = [pid, *descendants(pid)]
    for member in family:
        _signal(member, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and running(pid):
        time.sleep(0.02)
    for member in family:
        if running(member):
            _signal(member, signal.SIGKILL)
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and running(pid):
        time.sleep(0.02)
    return not running(pid)


def descendants(pid: int) -> list[int]:
    """The children of a process, theirs, and so on (Linux)."""
    found, queue = [], [pid]
    while queue:
        for child in children(queue.pop()):
            if child not in found:
                found.append(child)
                queue.append(child)
    return found


def children(pid: int) -> list[int]:
    """The children of a process's main thread (Linux; one read, cheap after every block)."""
    try:
        fd = os.open(f"/proc/{pid}/task/{pid}/children", os.O_RDONLY)
    except OSError:
        return []
    try:
        return [int(child) for child in os.read(fd, 1 << 16).split()]
    except (OSError, ValueError):
        return []
    finally:
        os.close(fd)


def stat_of(pid: int) -> tuple[str, int, int] | None:
    """(state, parent pid, start time in clock ticks) of a process, or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    try:
        return fields[0], int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def running(pid: int) -> bool:
    info = stat_of(pid)
    return info is not None and info[0] not in "ZX"


def _signal(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        pass


def output_target(pid: int) -> str | None:
    """Where a process's standard output goes: "terminal", a file's path, os.devnull, or None
    (a pipe, a socket, or unknown)."""
    try:
        info = os.stat(f"/proc/{pid}/fd/1")
        target = os.readlink(f"/proc/{pid}/fd/1")
    except OSError:
        return None
    if stat.S_ISCHR(info.st_mode):
        if target == os.devnull:
            return os.devnull
        return "terminal" if target.startswith("/dev/pts/") or target == "/dev/tty" else None
    return target if stat.S_ISREG(info.st_mode) else None


def started_at(ticks: int) -> float:
    """A start time in clock ticks since boot as seconds since the epoch."""
    try:
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return time.time()
    return time.time() - uptime + ticks / _TICKS


def running_for(started: float, now: float | None = None) -> str:
    """How long a process started at `started` (seconds since the epoch) has run, e.g. "42 s",
    "3 min", "2 h 5 min"."""
    seconds = max(0, int((now or time.time()) - started))
    if seconds < 120:
        return f"{seconds} s"
    minutes = seconds // 60
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60} min"
