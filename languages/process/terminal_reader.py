"""Reading a runner's terminal: everything that is there in one go, with a bounded wait."""

from __future__ import annotations

import errno
import os
import select

READ_SIZE = 1 << 16


class TerminalClosed(Exception):
    """The terminal reached end-of-file: the interpreter, and whatever held its terminal, ended."""


class TerminalReader:
    """Reads the pty master of a pexpect child without blocking.

    One call returns all the output waiting (up to READ_SIZE bytes, over as many reads as the
    terminal needs: a pty hands out about 4 KiB a read), so a block that prints fast is
    handled in few large pieces. The child's liveness is checked only when nothing came
    within the wait, as pexpect does before it waits."""

    def __init__(self, child) -> None:
        self._child = child
        self._fd = child.child_fd
        self._poll = select.poll()
        self._poll.register(self._fd, select.POLLIN)
        self._closed = False
        os.set_blocking(self._fd, False)

    def fileno(self) -> int:
        """The pty master's descriptor."""
        return self._fd

    def read(self, timeout: float) -> bytes:
        """The output waiting now, else what comes within `timeout` seconds (b"" if none);
        raises TerminalClosed at end-of-file, or when the child has exited and nothing is left."""
        try:  # poll first: it answers at once when output is waiting
            ready = self._poll.poll(max(0, int(timeout * 1000 + 0.999)))
        except InterruptedError:
            ready = []
        if ready:
            return self._drain()
        if not self._child.isalive() and not self._poll.poll(0):
            raise TerminalClosed
        return b""

    def _drain(self) -> bytes:
        if self._closed:
            raise TerminalClosed
        parts, size = [], 0
        while size < READ_SIZE:
            try:
                chunk = os.read(self._fd, READ_SIZE - size)
            except BlockingIOError:
                break
            except InterruptedError:
                continue
            except OSError as exc:  # EIO: no process holds the terminal any more (Linux)
                if exc.errno != errno.EIO:
                    raise
                chunk = b""
            if not chunk:
                self._closed = True
                if parts:
                    break
                raise TerminalClosed
            parts.append(chunk)
            size += len(chunk)
        return b"".join(parts) if len(parts) != 1 else parts[0]
