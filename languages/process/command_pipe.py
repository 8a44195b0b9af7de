"""The pipe a runner writes its commands to (see languages/protocol.py)."""

from __future__ import annotations

import errno
import fcntl
import os


class CommandPipe:
    """A pipe whose read end becomes the interpreter's command descriptor."""

    def __init__(self) -> None:
        self.read_end, self._write_end = os.pipe()
        fcntl.fcntl(self._write_end, fcntl.F_SETFL, os.O_NONBLOCK)

    def hand_over(self, target: int) -> None:
        """In the child before exec: the read end on `target`, kept open across exec."""
        if self.read_end == target:  # dup2 onto itself would keep close-on-exec
            os.set_inheritable(target, True)
        else:
            os.dup2(self.read_end, target)

    def started(self) -> None:
        """In the parent once the child runs: only the child reads."""
        if self.read_end >= 0:
            os.close(self.read_end)
            self.read_end = -1

    def send(self, data: bytes) -> None:
        """Write a command. A full pipe (a driver that stopped reading) or a closed one (a dead
        interpreter) loses it: the run then ends at its deadline or at the end of the output."""
        while data and self._write_end >= 0:
            try:
                data = data[os.write(self._write_end, data):]
            except OSError as exc:
                if exc.errno != errno.EINTR:
                    return

    def close(self) -> None:
        """Close both ends; safe to call twice."""
        self.started()
        if self._write_end >= 0:
            os.close(self._write_end)
            self._write_end = -1
