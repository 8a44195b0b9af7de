"""The session's MCP servers, all on one event loop in a thread of their own (an anyio
blocking portal): started together, waited for once (each within its start-up time), called
from the runner's thread with a deadline, a call interrupted by cancelling it, and every
server stopped when the session ends."""

from __future__ import annotations

import concurrent.futures
import importlib
import logging
import threading
from pathlib import Path

import anyio
from anyio.from_thread import start_blocking_portal

from interp.mcp.client.config import ServerSpec
from interp.mcp.client.connection import Answer, Connection, Tool

GRACE = 5.0  # seconds past a deadline a call is waited for after it was cancelled
CLOSE_WAIT = 5.0  # seconds the servers are given to stop at the end


class ServerPool:
    """The servers of `specs`; their stdio servers' standard error goes to `log_dir`."""

    def __init__(self, specs: tuple[ServerSpec, ...], log_dir: Path | None, cwd: str) -> None:
        self.specs = specs
        self._log_dir, self._cwd = log_dir, cwd
        self.connections: list[Connection] = []
        self._portal_cm = None
        self._portal = None
        self._serving: list[concurrent.futures.Future] = []
        self._current: concurrent.futures.Future | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start every server (in the background: `wait()` for them). The SDK's log lines
        (a server that writes what is not JSON-RPC) are not printed over the session."""
        logging.getLogger("mcp").addHandler(logging.NullHandler())
        logging.getLogger("mcp").propagate = False
        # The SDK checks a result against its tool's output schema with jsonschema, imported
        # at the first call (seconds, where its format checkers' grammars are installed):
        # imported while the servers start instead.
        threading.Thread(target=importlib.import_module, args=("jsonschema",), daemon=True,
                         name="interp-mcp-preload").start()
        self._portal_cm = start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self.connections = self._portal.call(self._make)
        self._serving = [self._portal.start_task_soon(c.serve) for c in self.connections]

    async def _make(self) -> list[Connection]:  # on the loop: the connections' events are its
        return [Connection(spec, self._log_dir, self._cwd) for spec in self.specs]

    def wait(self, limit: float | None = None) -> bool:
        """Wait until every server is ready or has failed (each within its start-up time), or
        `limit` seconds; whether they all have."""
        if self._portal is not None:
            self._portal.call(self._ready, limit)
        return not self.starting()

    def starting(self) -> list[str]:
        """The servers still starting."""
        return [c.spec.name for c in self.connections if c.state == "starting"]

    async def _ready(self, limit: float | None) -> None:
        longest = max((s.startup_timeout for s in self.specs), default=0) + 2
        with anyio.move_on_after(longest if limit is None else min(limit, longest)):
            for connection in self.connections:
                await connection.ready.wait()

    def connection(self, name: str) -> Connection | None:
        return next((c for c in self.connections if c.spec.name == name), None)

    def tools(self) -> list[Tool]:
        """The tools of the servers that are ready, in the order of the config."""
        return [tool for c in self.connections if c.state == "ready" for tool in c.tools]

    def call(self, server: str, tool: str, arguments: dict, timeout: float) -> Answer | None:
        """Call a tool of a server, at most `timeout` seconds (and the server's own bound);
        None when the call was interrupted."""
        connection = self.connection(server)
        if connection is None:
            known = ", ".join(c.spec.name for c in self.connections) or "none"
            return Answer(problem=f"there is no MCP server {server!r} (servers: {known})")
        if self._portal is None:
            return Answer(problem="the MCP servers have been stopped")
        timeout = min(timeout, connection.spec.tool_timeout)
        try:
            future = self._portal.start_task_soon(connection.call, tool, arguments, timeout)
        except RuntimeError as exc:  # the loop has ended
            return Answer(problem=f"the MCP servers' loop has stopped ({exc})")
        with self._lock:
            self._current = future
        try:
            return future.result(timeout + GRACE)
        except concurrent.futures.CancelledError:
            return None
        except concurrent.futures.TimeoutError:
            future.cancel()
            return Answer(problem=f"no result within {timeout:g} s", timed_out=True)
        finally:
            with self._lock:
                self._current = None

    def describe(self) -> list[str]:
        """What /mcp shows: each server, how it is reached, its state and its tools."""
        lines = []
        for c in self.connections:
            how = "HTTP" if c.spec.url else "stdio"
            state = c.state if c.problem is None else f"{c.state}: {c.problem}"
            lines.append(f"{c.spec.name} ({how}: {c.spec.where}): {state}")
            for tool in c.tools if c.state == "ready" else ():
                about = " ".join(tool.description.split())
                about = about if len(about) <= 100 else about[:99] + "…"
                lines.append(f"  {c.spec.name}.{tool.name}" + (f": {about}" if about else ""))
            if c.state == "ready" and not c.tools:
                lines.append("  (no tools)")
        return lines

    def interrupt(self) -> None:
        """Cancel the call that is running, if any (any thread)."""
        with self._lock:
            future = self._current
        if future is not None:
            future.cancel()

    def close(self) -> None:
        """Stop every server (bounded), then the loop."""
        if self._portal is None:
            return
        portal, self._portal = self._portal, None
        try:
            for connection in self.connections:
                portal.call(connection.close)
            concurrent.futures.wait(self._serving, CLOSE_WAIT)
            portal.call(portal.stop, True)
        finally:
            try:
                self._portal_cm.__exit__(None, None, None)
            except Exception:  # the loop is going away: nothing more to do for it
                pass
