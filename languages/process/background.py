"""Processes a block leaves running (`python -m http.server 8000 &`, `nohup ... &`,
`subprocess.Popen(...)`), and their output between blocks.

After a block, the runner's processes other than the interpreter (its children, or its pids
cgroup's members, which also holds processes that left its session) that were not there before
are the ones the block left running. They stay in the runner's session and cgroup, so they stop
with it when interp exits (spawn.py, limits.py).

Their output: a process that writes to a file (its own redirection, nohup.out) is read from that
file (found through /proc/PID/fd/1). A process that writes to the runner's terminal shares it
with the blocks: what it prints while a block runs is part of that block's output, as in any
terminal; what it prints between blocks is drained by a thread into the runner's log of
background output (`background-LANGUAGE.log`), which the model is told about, so it neither
blocks on a full terminal nor lands in the next block's output.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..escapes import strip_escapes
from .tree import children, descendants, output_target, running, started_at, stat_of
from .python_shims import SHIM_FOLDER
from .tty_wait import command_of

QUICK = 0.001  # seconds: a block this short started no process (the shell's `&` says so)
SUBSHELL = "(a background subshell)"  # a copy of the interpreter: `( ... ) &` in bash
_SETTLE = 0.5  # seconds, at most, for a process just started to become what it will be
_EXEC = 3.0  # seconds, at most, for one in the middle of its exec (long on a loaded machine)
LOG_LIMIT = 8 << 20  # bytes of a runner's background log kept (the newest half when it is full)
NOTE_CHARS = 2000  # of the list the model is told: its head, and as much of its tail


@dataclass(frozen=True)
class BackgroundProcess:
    """A process a block left running."""

    pid: int
    command: str
    language: str
    block: int | None
    started: float  # seconds since the epoch
    output: str | None  # the file its output goes to (its own, or the runner's log), or None
    discarded: bool = False  # its output goes to /dev/null
    ticks: int = field(default=0, compare=False)  # its start time in clock ticks (pid reuse)

    def to_dict(self) -> dict:
        """The JSON form (for --json)."""
        return {"pid": self.pid, "command": self.command, "language": self.language,
                "block": self.block, "started": round(self.started, 3), "output": self.output}

    @property
    def alive(self) -> bool:
        """True while the process runs (not a zombie, and its pid not reused)."""
        info = stat_of(self.pid)
        return info is not None and info[0] not in "ZX" and info[2] == self.ticks

    def tail(self, lines: int = 5) -> list[str]:
        """The last lines of its output file, escape sequences removed ([] without one)."""
        return tail_lines(self.output, lines) if self.output else []

    def note(self, output: bool = True) -> str:
        """How the model is told about it (`output`: with where its output goes)."""
        return f"pid {self.pid} `{self.command}`" + (f" ({self.where('its')})" if output else "")

    def where(self, whose: str) -> str:
        """Where its output goes: "its output: PATH", "its output is discarded", ..."""
        return (f"{whose} output: {self.output}" if self.output else
                f"{whose} output is discarded" if self.discarded else
                f"{whose} output is not captured")


def background_note(processes: Iterable[BackgroundProcess]) -> str:
    """What the model is told of the processes a block left running: the list bounded as a
    block's output is (its head and tail, and how many were left out between), and where
    their output goes said once when they share it."""
    processes = list(processes)
    if len(processes) == 1:
        return (f"left running in the background: {processes[0].note()}, until interp exits "
                f"or the user stops it")
    shared = len({(p.output, p.discarded) for p in processes}) == 1
    listed = head_tail([p.note(output=not shared) for p in processes], NOTE_CHARS, "; ")
    where = f" ({processes[0].where('their')})" if shared else ""
    return (f"left running in the background: {len(processes)} processes: {listed}{where}, "
            f"until interp exits or the user stops them")


def head_tail(items: list[str], chars: int, separator: str) -> str:
    """`items` joined, or, when they are longer than 2 x `chars`, the first and the last of
    them up to `chars` each, with "… N more …" between (one item at either end at least)."""
    if sum(len(item) + len(separator) for item in items) <= 2 * chars:
        return separator.join(items)
    head, used = 1, len(items[0])
    while head < len(items) and used + len(items[head]) + len(separator) <= chars:
        used += len(items[head]) + len(separator)
        head += 1
    tail, used = len(items) - 1, len(items[-1])
    while tail > head and used + len(items[tail - 1]) + len(separator) <= chars:
        tail -= 1
        used += len(items[tail]) + len(separator)
    marker = f"… {tail - head} more …"
    if sum(len(item) + len(separator) for item in items[head:tail]) <= len(marker):
        return separator.join(items)  # the count would be no shorter than what it stands for
    return separator.join([*items[:head], marker, *items[tail:]])


class Background:
    """The processes one runner's blocks left running, and the drain of their output."""

    def __init__(self, language: str) -> None:
        self.language = language
        self._known: dict[int, BackgroundProcess] = {}
        self._own: set[int] = set()  # the interpreter's processes (a sandbox's too), at start
        self._interpreter: set[str] = set()  # their command lines (a fork of one is a subshell)
        self._job: int | None = None  # the shell's $! after the last block
        self._members: frozenset[int] | None = None  # the cgroup's processes at the last look
        self._drain: Drain | None = None
        self.log: Path | None = None  # the runner's log of background output

    @property
    def own(self) -> frozenset[int]:
        """The interpreter's own processes (with a sandbox's), noted at start."""
        return frozenset(self._own)

    def processes(self) -> list[BackgroundProcess]:
        """Those still running, oldest first (by the kernel's start ticks: `started` is
        derived through the clock and /proc/uptime, read at two moments, so it jitters)."""
        self._known = {pid: p for pid, p in self._known.items() if p.alive}
        return sorted(self._known.values(), key=lambda p: (p.ticks, p.pid))

    def started(self, leader: int, guard) -> None:
        """Note the interpreter's own processes once it is ready (its cgroup's, else its
        process tree; `guard` is the runner's limits.LimitGuard): they are never reported."""
        members = guard.members() if guard is not None else None
        self._own = {leader, *(members if members is not None else descendants(leader))}
        self._interpreter = {command_of(pid) for pid in self._own}
        self._members = frozenset(members) if members is not None else None

    def look(self, leader: int, guard, status: dict | None, seconds: float,
             block: int | None, log: Path) -> tuple[BackgroundProcess, ...]:
        """After a block: the processes it left running, looked for only when it took long
        enough to start one or the shell's `$!` changed (status "bg"), and, with a cgroup,
        when its set of processes changed (one read of cgroup.procs; a count would miss a
        process that started as another ended)."""
        job = (status or {}).get("bg")
        changed = isinstance(job, int) and job != 0 and job != self._job
        self._job = job if isinstance(job, int) else self._job
        if not (changed or seconds >= QUICK):
            return ()
        members = guard.members() if guard is not None else None
        now = frozenset(members) if members is not None else None
        if now is not None and now == self._members and not changed:
            return ()
        self._members = now
        return self.after_block(leader, guard.members if guard is not None else lambda: None,
                                block, log)

    def after_block(self, leader: int, members: Callable[[], list[int] | None],
                    block: int | None, log: Path) -> tuple[BackgroundProcess, ...]:
        """The processes this block left running (new since the last look). `members()`: the
        runner's cgroup members, or None to walk the interpreter's process tree."""
        own = self._own | {leader}
        found = _roots(leader, members(), own)
        interpreter = self._interpreter or {command_of(leader)}

        def settling(pid: int, now: float) -> bool:  # forked, not yet the program it will be
            command = command_of(pid)  # "" in the middle of its exec: no arguments yet
            return running(pid) and (not command and now < execs or now < settles and (
                command in interpreter or command.startswith("nohup ")))

        started = time.monotonic()
        settles, execs = started + _SETTLE, started + _EXEC
        if any(settling(pid, started) for pid in found):
            # a subshell of bash that may be on its way out (`(cmd &)`), a command not yet
            # executed (its redirections not yet made) or in its exec, or nohup before it
            # redirects; a subshell that stays one is given _SETTLE, an exec _EXEC
            while any(settling(pid, time.monotonic()) for pid in found):
                time.sleep(0.002)
            found = _roots(leader, members(), own)
        new = []
        for pid in found:
            info = stat_of(pid)
            known = self._known.get(pid)
            if info is None or info[0] in "ZX" or (known is not None and known.ticks == info[2]):
                continue
            self._known[pid] = process = self._describe(pid, info[2], block, log, interpreter)
            new.append(process)
        return tuple(new)

    def _describe(self, pid: int, ticks: int, block: int | None, log: Path,
                  interpreter: set[str]) -> BackgroundProcess:
        command = command_of(pid)
        command = SUBSHELL if command in interpreter else _shown(command)
        target = output_target(pid)
        output, discarded = None, False
        if target == "terminal":
            output, self.log = os.fspath(log), log
        elif target == os.devnull:
            discarded = True
        elif target:
            output = target
        return BackgroundProcess(pid, command or "?", self.language, block,
                                 started_at(ticks), output, discarded, ticks)

    # -- the drain between blocks -------------------------------------------------------------
    def drain(self, reader, leftover: bytes = b"") -> bool:
        """Start copying what arrives on the runner's terminal (and `leftover`, read already)
        to the log until the next block, when a process it knows writes there; True if so."""
        if self._drain is not None or self.log is None:
            return self._drain is not None
        if not any(p.output == os.fspath(self.log) for p in self.processes()):
            return False
        self._drain = Drain(reader, self.log)
        self._drain.write(leftover)
        self._drain.start()
        return True

    def pause(self) -> None:
        """Stop the drain (a block is about to read the terminal); safe when none runs."""
        drain, self._drain = self._drain, None
        if drain is not None:
            drain.stop()


class Drain:
    """A thread that copies a terminal's output to a log file until stopped."""

    def __init__(self, reader, log: Path) -> None:
        self._reader = reader
        self._log = log
        self._wake = os.pipe()
        self._thread = threading.Thread(target=self._run, name="interp-background-drain",
                                        daemon=True)

    def start(self) -> None:
        """Begin copying."""
        self._thread.start()

    def stop(self) -> None:
        """Stop copying and wait for the thread (at most a second)."""
        os.write(self._wake[1], b"x")
        self._thread.join(timeout=1)
        for fd in self._wake:
            os.close(fd)

    def write(self, data: bytes) -> None:
        """Append output to the log (escape sequences removed), keeping it bounded."""
        if not data:
            return
        text = strip_escapes(data.decode("utf-8", "replace")).replace("\r\n", "\n")
        try:
            self._log.parent.mkdir(parents=True, exist_ok=True)
            with open(self._log, "a", encoding="utf-8") as handle:
                handle.write(text)
                size = handle.tell()
            if size > LOG_LIMIT:
                keep = self._log.read_bytes()[-LOG_LIMIT // 2:]
                self._log.write_bytes(keep)
        except OSError:
            pass

    def _run(self) -> None:
        poll = select.poll()
        poll.register(self._reader.fileno(), select.POLLIN)
        poll.register(self._wake[0], select.POLLIN)
        while True:
            ready = {fd for fd, _ in poll.poll()}
            if self._wake[0] in ready:
                return
            try:
                self.write(self._reader.read(0))
            except Exception:  # the terminal closed (the interpreter died): nothing to drain
                return


def tail_lines(path: str, count: int) -> list[str]:
    """The last `count` lines of a file (its last 64 KiB), escape sequences removed."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 65536))
            data = handle.read()
    except OSError:
        return []
    text = strip_escapes(data.decode("utf-8", "replace"))
    return [line.rstrip("\r") for line in text.splitlines() if line.strip()][-count:]


def _roots(leader: int, members: Iterable[int] | None, own: set[int]) -> list[int]:
    """The runner's processes other than the interpreter's own whose parent is not one of
    them (`members` None: the children of the interpreter's own processes)."""
    if members is None:
        return sorted({pid for parent in own for pid in children(parent)} - own)
    others = {pid for pid in members if pid not in own}
    parents = {pid: (stat_of(pid) or ("", 0, 0))[1] for pid in others}
    return sorted(pid for pid in others if parents[pid] not in others)


def _shown(command: str) -> str:
    """A command as the person wrote it: `python3 x.py`, not the interpreter's shim script
    (python_shims.py) that has not yet replaced itself with the interpreter."""
    parts = command.split(" ", 2)
    if len(parts) >= 2 and parts[0] in ("/bin/sh", "sh") and f"{os.sep}{SHIM_FOLDER}{os.sep}" in parts[1]:
        return " ".join([os.path.basename(parts[1]), *parts[2:]])
    return command


