"""JSON-RPC messages over newline-delimited JSON on two descriptors, for the SDK's connection
(its `Transport`: `send`, `receive`, `close`), waited on by the event loop itself.

What the client sends that is not a message gets one clear answer and one line on stderr,
never a traceback or a hang: a line that is not JSON (-32700), a batch, a value that is not an
object or an object that is neither a request nor a response (-32600), a line over MAX_LINE
bytes (its bytes are dropped as they come, never held). Writes wait on the loop when the client
is slow to read, one message at a time, and at most WRITE_WAIT seconds for it to read."""

from __future__ import annotations

import asyncio
import json
import os
import select
from collections.abc import Callable
from typing import Any

from interp.secrets import Redactor

MAX_LINE = 64 * 1024 * 1024  # bytes of one message (the SDK's own limit is 50 MiB)
WRITE_WAIT = 120.0  # seconds a message waits for the client to read what was sent before
CHUNK = 1 << 16
WRITE_STEP = select.PIPE_BUF  # written at once to a pipe that polls writable, never blocking
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class LineWire:
    """The agent's side of the stdio connection: messages in from `read_fd`, out to
    `write_fd` with the secrets of `redactor` redacted; `say` writes one line for the person
    (to stderr)."""

    def __init__(self, read_fd: int, write_fd: int, say: Callable[[str], None],
                 redactor: Redactor | None = None, max_line: int = MAX_LINE) -> None:
        self._in, self._out, self._say = read_fd, write_fd, say
        self._redactor = redactor or Redactor(())
        self._max = max_line
        self._buffer = bytearray()
        self._eof = False
        self._pollable = True  # False for a regular file: its reads never block
        self._poll = select.poll()
        self._poll.register(write_fd, select.POLLOUT)
        self._writing = asyncio.Lock()
        self._lines = 0

    async def receive(self) -> dict[str, Any] | None:
        """The next message; None at the end of input."""
        while True:
            line = await self._line()
            if line is None:
                return None
            self._lines += 1
            if line.strip():
                message = await self._message(line)
                if message is not None:
                    return message

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message, the secrets in it redacted (values JSON cannot hold are written
        as their text)."""
        data = memoryview(self._redactor.line(message).encode("utf-8", "replace"))
        async with self._writing:
            while data:
                if not self._poll.poll(0):
                    try:
                        await asyncio.wait_for(self._ready(self._out, writing=True), WRITE_WAIT)
                    except TimeoutError:
                        self._say(f"the client has read nothing for {WRITE_WAIT:g} s; a message "
                                  f"to it was given up")
                        raise ConnectionError("the client does not read its input") from None
                data = data[os.write(self._out, data[:WRITE_STEP]):]

    async def close(self) -> None:
        """Nothing is buffered; the descriptors belong to whoever claimed them."""

    async def _message(self, line: bytes) -> dict[str, Any] | None:
        """The message a line holds, or None after answering what is wrong with it."""
        try:
            message = json.loads(line)
        except ValueError as exc:
            return await self._refuse(PARSE_ERROR, f"line {self._lines} is not JSON ({exc})")
        if isinstance(message, list):
            return await self._refuse(INVALID_REQUEST, "batches of messages are not supported; "
                                      "send one message a line")
        if not isinstance(message, dict):
            return await self._refuse(INVALID_REQUEST, f"line {self._lines} is not a JSON-RPC "
                                      f"message (an object), but {type(message).__name__}")
        method = message.get("method")
        if "method" in message and not isinstance(method, str):
            return await self._refuse(INVALID_REQUEST, "the method must be a string",
                                      message.get("id"))
        if method is None and "id" not in message:
            return await self._refuse(INVALID_REQUEST, f"line {self._lines} is neither a "
                                      f"request, a notification nor a response")
        return message

    async def _refuse(self, code: int, why: str, request_id: Any = None) -> None:
        self._say(f"refused a message from the client: {why}")
        await self.send({"jsonrpc": "2.0", "id": request_id,
                         "error": {"code": code, "message": why}})
        return None

    async def _line(self) -> bytes | None:
        """The next line (its newline dropped), or None at the end of input; a line over the
        limit is answered and dropped."""
        dropping = False
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                if not dropping:
                    return line
                dropping = False
                self._lines += 1
                await self._refuse(INVALID_REQUEST, f"line {self._lines} is longer than "
                                   f"{self._max:,} bytes; it was dropped")
                continue
            if len(self._buffer) > self._max:
                dropping = True
                self._buffer.clear()
            if self._eof:
                line, self._buffer = bytes(self._buffer), bytearray()
                return line if line and not dropping else None
            await self._fill()

    async def _fill(self) -> None:
        if self._pollable:
            try:
                await self._ready(self._in, writing=False)
            except PermissionError:  # epoll refuses regular files
                self._pollable = False
        chunk = os.read(self._in, CHUNK)
        if chunk:
            self._buffer += chunk
        else:
            self._eof = True

    async def _ready(self, fd: int, writing: bool) -> None:
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        add, remove = ((loop.add_writer, loop.remove_writer) if writing
                       else (loop.add_reader, loop.remove_reader))
        add(fd, lambda: ready.done() or ready.set_result(None))
        try:
            await ready
        finally:
            remove(fd)
