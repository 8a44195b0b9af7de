"""Per-runner resource limits: memory per process (RLIMIT_DATA) and a process count.

The memory limit is RLIMIT_DATA rather than RLIMIT_AS: V8 reserves huge virtual ranges, which
RLIMIT_AS counts and RLIMIT_DATA does not. The process limit is a per-runner pids cgroup when one
can be created (cgroup v1 `pids` or a delegated v2 directory; required for root, which the kernel
exempts from RLIMIT_NPROC), else RLIMIT_NPROC set to the user's current task count plus the
allowance. Both count threads as well as processes.
"""

from __future__ import annotations

import itertools
import os
import resource
import signal
import sys
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .spawn import session_members


def _default_memory_mb() -> int:
    """Half the physical memory, at most 8 GiB (4 GiB when it cannot be read)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 4096
    return max(256, min(total // 2 >> 20, 8192))


DEFAULT_MEMORY_MB = _default_memory_mb()
DEFAULT_PROCESSES = 1024
_OUT_OF_MEMORY = ("MemoryError", "out of memory", "cannot allocate", "allocation failed")
_names = itertools.count()


@dataclass(frozen=True)
class Limits:
    """Resource limits for each runner; None turns a limit off."""

    memory_mb: int | None = DEFAULT_MEMORY_MB
    processes: int | None = DEFAULT_PROCESSES

    def __post_init__(self) -> None:
        for name in ("memory_mb", "processes"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ValueError(f"{name} must be a positive integer or None, not {value!r}")

    def process_method(self) -> str | None:
        """How the process limit is enforced here: "cgroup", "rlimit", or None if it cannot be."""
        if self.processes is None:
            return None
        if pids_parent() is not None:
            return "cgroup"
        return "rlimit" if os.getuid() != 0 and sys.platform.startswith("linux") else None

    def describe(self) -> str:
        """One line, e.g. 'memory 8192 MB per process, 1024 processes (pids cgroup)'."""
        memory = f"memory {self.memory_mb} MB per process" if self.memory_mb else "no memory limit"
        if self.processes is None:
            return f"{memory}, no process limit"
        method = self.process_method()
        how = {"cgroup": "pids cgroup", "rlimit": "RLIMIT_NPROC", None: "NOT enforced"}[method]
        return f"{memory}, {self.processes} processes ({how})"

    def warning(self) -> str | None:
        """A one-line warning to show once when the process limit cannot be enforced, else None."""
        if self.processes is None or self.process_method() is not None:
            return None
        if not sys.platform.startswith("linux"):
            return "the process limit is only enforced on Linux"
        return ("the process limit cannot be enforced: running as root (exempt from RLIMIT_NPROC) "
                "and no writable pids cgroup was found")


def memory_note(limits: Limits) -> str:
    """The Result note for a block that ran out of memory."""
    return f"the block hit the memory limit ({limits.memory_mb} MB per process)"


class LimitGuard:
    """The limits of one runner process: applied in its child, checked after each block."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.method = limits.process_method()
        self.cgroup: Path | None = None
        self._nproc: int | None = None
        self._events = 0
        self._events_fd: int | None = None
        self._procs: str | None = None  # the path of cgroup.procs
        self._closing = threading.Lock()
        if self.method == "cgroup":
            self.cgroup = _make_cgroup(pids_parent(), limits.processes)
            if self.cgroup is None:
                self.method = "rlimit" if os.getuid() != 0 else None
        if self.method == "rlimit":
            self._nproc = user_tasks() + limits.processes

    def child_setup(self) -> None:
        """In the child before exec: set the rlimits and join the cgroup."""
        if self.limits.memory_mb:
            _lower(resource.RLIMIT_DATA, self.limits.memory_mb << 20)
        if self._nproc is not None:
            _lower(resource.RLIMIT_NPROC, self._nproc)
        if self.cgroup is not None:
            with open(self.cgroup / "cgroup.procs", "w") as handle:
                handle.write("0")

    def breached(self, leader: int | None) -> bool:
        """True if the process limit was hit since the last check."""
        if (cgroup := self.cgroup) is not None:
            if self._events_fd is None:  # kept open: checked twice a block, pread is cheap
                self._events_fd = _open_events(cgroup)
            events, self._events = self._events, _max_events(self._events_fd)
            return self._events > events
        if self._nproc is not None and leader is not None:
            return len(session_members(leader)) >= 0.9 * self.limits.processes
        return False

    def check(self, leader: int | None, status: dict, died: bool, output: str) -> str | None:
        """After a block: the note naming the limit it hit (the runner must restart), or None."""
        if self.breached(leader):
            return self.process_note()
        if not self.limits.memory_mb:
            return None
        if status.get("limit") == "memory":  # the Python driver caught a MemoryError
            return memory_note(self.limits)
        if died and any(word in output[-2000:] for word in _OUT_OF_MEMORY):
            return memory_note(self.limits)
        return None

    def process_note(self) -> str:
        """The Result note for a block that hit the process limit."""
        return (f"the block hit the process limit ({self.limits.processes} processes and threads), "
                "so all its processes were killed")

    def members(self) -> list[int] | None:
        """The processes in the runner's cgroup, or None without one (read after every block
        that could have started one: plain system calls, and opened each time, since an open
        cgroup v1 file keeps showing the list it first read)."""
        if (cgroup := self.cgroup) is None:
            return None
        if self._procs is None:
            self._procs = os.fspath(cgroup / "cgroup.procs")
        try:
            fd = os.open(self._procs, os.O_RDONLY)
        except OSError:
            return []
        try:
            return [int(pid) for pid in os.read(fd, 1 << 16).split()]
        except (OSError, ValueError):
            return []
        finally:
            os.close(fd)

    def kill(self) -> None:
        """SIGKILL every process in the runner's cgroup, including ones that left its session."""
        cgroup = self.cgroup  # read once: close() on another thread may clear it meanwhile
        if cgroup is None:
            return
        deadline = time.monotonic() + 5
        while (pids := _members(cgroup)) and time.monotonic() < deadline:
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def close(self) -> None:
        """Kill what is left and remove the cgroup (safe to call from two threads at once)."""
        self.kill()
        with self._closing:
            fd, self._events_fd = self._events_fd, None
            cgroup, self.cgroup = self.cgroup, None
        if fd is not None:
            os.close(fd)
        if cgroup is not None:
            for _ in range(200):
                try:
                    cgroup.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # busy until the killed processes are reaped
                    time.sleep(0.01)


def _lower(which: int, value: int) -> None:
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _members(cgroup: Path) -> list[int]:
    try:
        return [int(line) for line in (cgroup / "cgroup.procs").read_text().split()]
    except OSError:
        return []


def _open_events(cgroup: Path) -> int | None:
    try:
        return os.open(cgroup / "pids.events", os.O_RDONLY)
    except OSError:
        return None


def _max_events(fd: int | None) -> int:
    """The `max` count of a pids.events file (re-read from its start), 0 if unreadable."""
    if fd is None:
        return 0
    try:
        for line in os.pread(fd, 4096, 0).decode("ascii", "replace").splitlines():
            name, _, count = line.partition(" ")
            if name == "max":
                return int(count)
    except (OSError, ValueError):
        pass
    return 0


def user_tasks() -> int:
    """Threads of every process of the current real uid: what RLIMIT_NPROC counts."""
    uid, total = str(os.getuid()), 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = dict(line.split(":", 1) for line in (entry / "status").read_text().splitlines())
        except (OSError, ValueError):
            continue
        if fields.get("Uid", "").split()[:1] == [uid]:
            total += int(fields.get("Threads", "1").strip() or 1)
    return total


@cache
def pids_parent() -> Path | None:
    """A writable pids cgroup directory in which per-runner cgroups can be made, or None."""
    for parent in _pids_candidates():
        probe = _make_cgroup(parent, 1)
        if probe is not None:
            probe.rmdir()
            return parent
    return None


def _pids_candidates() -> list[Path]:
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        groups = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return []
    found = []
    for line in mounts:
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3:
            continue
        root, point, kind, options = fields[3], fields[4], tail[0], tail[2].split(",")
        for group in groups:
            number, controllers, path = group.split(":", 2)
            v1 = kind == "cgroup" and "pids" in options and "pids" in controllers.split(",")
            v2 = kind == "cgroup2" and number == "0"
            if not (v1 or v2):
                continue
            if root != "/" and path.startswith(root):
                path = path[len(root):]
            here = Path(point + path)
            found += [here] if v1 else [here, here.parent]
    return [p for p in found if os.access(p, os.W_OK) and _has_pids(p)]


def _has_pids(path: Path) -> bool:
    control = path / "cgroup.subtree_control"
    if not control.exists():  # cgroup v1: the pids hierarchy
        return True
    try:
        return "pids" in control.read_text().split()
    except OSError:
        return False


def _make_cgroup(parent: Path | None, processes: int) -> Path | None:
    """A new child cgroup of parent with pids.max set, or None if that is not possible."""
    if parent is None:
        return None
    _remove_stale(parent)
    path = parent / f"interp-{os.getpid()}-{next(_names)}"
    try:
        path.mkdir()
    except OSError:
        return None
    try:
        (path / "pids.max").write_text(str(processes))
    except OSError:
        path.rmdir()
        return None
    return path


def _remove_stale(parent: Path) -> None:
    """Remove empty cgroups left by interp processes that no longer run."""
    try:
        entries = [p for p in parent.iterdir() if p.name.startswith("interp-")]
    except OSError:
        return
    for entry in entries:
        pid = entry.name.split("-")[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            try:
                entry.rmdir()
            except OSError:
                pass
