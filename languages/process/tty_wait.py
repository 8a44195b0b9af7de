"""Finding a block that waits for keyboard input nobody will type.

The runners' terminal gives end-of-file to a plain read (languages/process/terminal.py), so most prompts
(`read x < /dev/tty`, ssh's host-key question, sudo's password) fail at once. A program that
puts the terminal back into a mode where reads wait (`read -n 1`, `stty sane`, an editor, a
pager, a full-screen tool, Python's `tty.setraw`) would otherwise wait until the block's
time-out. Nobody ever types into a runner's terminal, so a process of the runner blocked
reading it waits forever.

Linux only: /proc/PID/syscall says which system call a sleeping process is in and its
arguments. A process is waiting for input when it sleeps in read() on the terminal (its pty,
or /dev/tty), or, while the terminal is in a mode where reads wait, in poll(), select() or an
epoll wait whose descriptors include the terminal (read from /proc/PID/mem and fdinfo).
Checked only after a quiet spell with no output, and reported only when two checks in a row
agree, so a block that computes silently for a long time, waits on a socket or sleeps is never
taken for one that waits for input.
"""

from __future__ import annotations

import fcntl
import os
import platform
import select
import stat
import struct
import termios
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

_TIOCGPTN = getattr(termios, "TIOCGPTN", 0x80045430)  # the pty's number, from its master
_DEV_TTY = os.makedev(5, 0)
# System call numbers, per architecture: reads; poll and ppoll (a pollfd array, its length);
# select and pselect6 (nfds, the read set); epoll_wait, epoll_pwait and epoll_pwait2 (the
# epoll descriptor, whose watched descriptors /proc/PID/fdinfo lists).
_READS = {"x86_64": {0, 17, 19}, "aarch64": {63, 65, 67}}
_POLLS = {"x86_64": {7, 271}, "aarch64": {73}}
_SELECTS = {"x86_64": {23, 270}, "aarch64": {72}}
_EPOLLS = {"x86_64": {232, 281, 441}, "aarch64": {22, 441}}
_MAX_FDS = 4096
_CHECK_EVERY = 0.5


@dataclass(frozen=True)
class Reader:
    """A process found waiting for terminal input ("" for the command: the interpreter)."""

    pid: int
    command: str


class InputWatch:
    """Watches a running block: after `quiet` seconds without output it looks, every half
    second, for processes (`members()`, plus `leader`) waiting on the terminal whose master is
    `master_fd`; `waiting()` returns them once two looks in a row agree."""

    def __init__(self, quiet: float, leader: int, master_fd: int,
                 members: Callable[[], Iterable[int]], own: frozenset[int] = frozenset()) -> None:
        self.quiet = quiet
        self.leader = leader
        self.own = own | {leader}  # the interpreter's processes: its own read is "the block"
        self.master_fd = master_fd
        self.members = members
        self._last_output = time.monotonic()
        self._next_check = 0.0
        self._seen: frozenset[int] = frozenset()
        self._terminal: int | None = None

    def output(self, now: float) -> None:
        """The block printed something: the quiet spell starts again."""
        self._last_output = now
        self._seen = frozenset()

    def waiting(self, now: float) -> tuple[Reader, ...]:
        """The processes waiting for input, confirmed; () until then."""
        if now - self._last_output < self.quiet or now < self._next_check:
            return ()
        self._next_check = now + _CHECK_EVERY
        found = terminal_readers({self.leader, *self.members()}, self._terminal_device(),
                                 reads_wait(self.master_fd))
        pids = frozenset(reader.pid for reader in found)
        confirmed = pids & self._seen
        self._seen = pids
        return tuple(Reader(r.pid, "" if r.pid in self.own else r.command)
                     for r in found if r.pid in confirmed)

    def signal_strays(self, readers: Iterable[Reader], signum: int) -> bool:
        """Send `signum` to the waiting programs that are not the interpreter's own processes
        (they ignored Ctrl-C: SIGTERM first, so that an editor removes its swap file, then
        SIGKILL); True if any is still there to signal."""
        sent = False
        for pid in (r.pid for r in readers if r.pid not in self.own):
            try:
                os.kill(pid, signum)
                sent = True
            except (ProcessLookupError, PermissionError):
                pass
        return sent

    def _terminal_device(self) -> int | None:
        if self._terminal is None:
            self._terminal = terminal_device(self.master_fd)
        return self._terminal


def terminal_device(master_fd: int) -> int | None:
    """The device number of the pty whose master is `master_fd` (Linux), or None."""
    try:
        number = struct.unpack("I", fcntl.ioctl(master_fd, _TIOCGPTN, b"\0" * 4))[0]
        return os.stat(f"/dev/pts/{number}").st_rdev
    except OSError:
        return None


def reads_wait(master_fd: int) -> bool:
    """True when the terminal is in a mode where a read waits for input (canonical, or
    non-canonical with VMIN > 0), not the runners' mode where it gives end-of-file."""
    try:
        attrs = termios.tcgetattr(master_fd)
    except (termios.error, OSError):
        return False
    vmin = attrs[6][termios.VMIN]
    vmin = vmin[0] if isinstance(vmin, bytes) else vmin
    return bool(attrs[3] & termios.ICANON) or vmin > 0


def terminal_readers(pids: Iterable[int], terminal: int | None,
                     waits: bool) -> list[Reader]:
    """Those of `pids` sleeping in a read of the terminal or, when `waits` (the terminal's
    reads wait), in a poll, select or epoll wait for input from it."""
    found = []
    for pid in sorted(set(pids)):
        call = _syscall(pid)
        if call is not None and _reads_terminal(pid, call, terminal, waits):
            found.append(Reader(pid, command_of(pid)))
    return found


def _reads_terminal(pid: int, call: tuple[int, ...], terminal: int | None,
                    waits: bool) -> bool:
    machine = platform.machine()
    number, first, second = call
    if number in _READS.get(machine, ()):
        return _is_terminal(pid, first, terminal)
    if not waits:
        return False
    if number in _POLLS.get(machine, ()):
        fds = _polled(pid, first, second)
    elif number in _SELECTS.get(machine, ()):
        fds = _selected(pid, first, second)
    elif number in _EPOLLS.get(machine, ()):
        fds = _epolled(pid, first)
    else:
        return False
    return any(_is_terminal(pid, fd, terminal) for fd in fds)


def _syscall(pid: int) -> tuple[int, int, int] | None:
    """(system call number, first and second argument) of a process sleeping in a system
    call, or None."""
    try:
        with open(f"/proc/{pid}/syscall", "rb") as handle:
            fields = handle.read().split()
    except OSError:
        return None
    if len(fields) < 3 or not fields[0].lstrip(b"-").isdigit():
        return None  # "running"
    number = int(fields[0])
    return (number, int(fields[1], 16), int(fields[2], 16)) if number >= 0 else None


def _memory(pid: int, address: int, size: int) -> bytes:
    """`size` bytes of a process's memory at `address` (b"" when they cannot be read)."""
    if not address or not 0 < size <= _MAX_FDS * 8:
        return b""
    try:
        with open(f"/proc/{pid}/mem", "rb", buffering=0) as handle:
            handle.seek(address)
            return handle.read(size)
    except (OSError, OverflowError, ValueError):
        return b""


def _polled(pid: int, array: int, count: int) -> list[int]:
    """The descriptors a poll() waits to read (struct pollfd: int fd, short events, revents)."""
    raw = _memory(pid, array, min(count, _MAX_FDS) * 8)
    entries = (struct.unpack_from("ihh", raw, i) for i in range(0, len(raw) - 7, 8))
    return [fd for fd, events, _ in entries if fd >= 0 and events & (select.POLLIN | select.POLLPRI)]


def _selected(pid: int, nfds: int, read_set: int) -> list[int]:
    """The descriptors in a select()'s read set."""
    raw = _memory(pid, read_set, (min(nfds, _MAX_FDS) + 7) // 8)
    return [i * 8 + bit for i, byte in enumerate(raw) for bit in range(8) if byte >> bit & 1]


def _epolled(pid: int, epoll_fd: int) -> list[int]:
    """The descriptors an epoll instance watches for input (from /proc/PID/fdinfo)."""
    try:
        with open(f"/proc/{pid}/fdinfo/{epoll_fd}", encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    fds = []
    for line in lines:  # "tfd:        0 events:       19 data: ..."
        fields = line.split()
        if len(fields) >= 4 and fields[0] == "tfd:" and fields[2] == "events:":
            try:
                if int(fields[3], 16) & select.POLLIN:
                    fds.append(int(fields[1]))
            except ValueError:
                continue
    return fds


def _is_terminal(pid: int, fd: int, terminal: int | None) -> bool:
    try:
        info = os.stat(f"/proc/{pid}/fd/{fd}")
    except OSError:
        return False
    return stat.S_ISCHR(info.st_mode) and info.st_rdev in (terminal, _DEV_TTY)


def command_of(pid: int) -> str:
    """The command line of a process, shortened, or "" when it is gone."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read(4096)
    except OSError:
        return ""
    text = " ".join(part.decode("utf-8", "replace") for part in raw.split(b"\0") if part)
    return text if len(text) <= 200 else text[:199] + "…"


def allow_signals(master_fd: int) -> None:
    """Let Ctrl-C written to the terminal signal its processes again (a raw mode turns it off)."""
    try:
        attrs = termios.tcgetattr(master_fd)
        if not attrs[3] & termios.ISIG:
            attrs[3] |= termios.ISIG
            termios.tcsetattr(master_fd, termios.TCSANOW, attrs)
    except (termios.error, OSError):
        pass
