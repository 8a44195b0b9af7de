"""Standard input and output for the SDK's stdio transport, read and written on the event loop.

The SDK's own streams (`anyio.wrap_file`) move every line through a worker thread: a read, a
write and a flush per call, each a thread wake-up and a loop wake-up. These streams are waited
on by the loop itself (epoll) and written directly, and are handed to the SDK's `stdio_server`,
which still parses and serialises every message. As in the SDK, the wire moves to private
descriptors while serving: fd 0 reads the null device and fd 1 writes to stderr, so nothing
stray (a library's print, a child process) reaches the protocol stream.
"""

from __future__ import annotations

import os
import select
from collections.abc import Iterator
from contextlib import contextmanager

import anyio

from interp.stdio import claimed_fds

CHUNK = 1 << 16  # bytes read at once
# A pipe that polls writable takes this much in one write without blocking (and a socket or a
# tty as good as surely), so the loop never blocks on a client that is slow to read.
WRITE_STEP = select.PIPE_BUF


class LineReader:
    """Lines of a descriptor as text (UTF-8, bad bytes replaced), awaited on the loop."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer known to hold no newline
        self._pollable = True  # False for a regular file or /dev/null: reads never block
        self._eof = False

    def __aiter__(self) -> LineReader:
        return self

    async def __anext__(self) -> str:
        while (end := self._buffer.find(b"\n", self._scanned)) < 0:
            if self._eof:
                if not self._buffer:
                    raise StopAsyncIteration
                end = len(self._buffer) - 1
                break
            self._scanned = len(self._buffer)
            await self._fill()
        line = bytes(self._buffer[:end + 1])
        del self._buffer[:end + 1]
        self._scanned = 0
        return line.decode("utf-8", errors="replace")

    async def _fill(self) -> None:
        if self._pollable:
            try:
                await anyio.wait_readable(self._fd)
            except PermissionError:  # epoll refuses regular files and /dev/null
                self._pollable = False
        chunk = os.read(self._fd, CHUNK)
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True


class LineWriter:
    """Text written straight to a descriptor from the loop, waiting on it only when full."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._poll = select.poll()
        self._poll.register(fd, select.POLLOUT)

    async def write(self, text: str) -> None:
        """Write all of `text` (UTF-8)."""
        data = memoryview(text.encode("utf-8"))
        while data:
            if not self._poll.poll(0):
                await anyio.wait_writable(self._fd)
            data = data[os.write(self._fd, data[:WRITE_STEP]):]

    async def flush(self) -> None:
        """Nothing is buffered."""


@contextmanager
def claimed_stdio() -> Iterator[tuple[LineReader, LineWriter] | tuple[None, None]]:
    """The protocol's streams on private copies of fd 0 and 1, which meanwhile read the null
    device and write to stderr; put back on exit (interp/stdio.py). (None, None) when the
    descriptors cannot be copied: the SDK's own streams then serve."""
    with claimed_fds() as wires:
        yield (LineReader(wires[0]), LineWriter(wires[1])) if wires else (None, None)
