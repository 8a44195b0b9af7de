"""One MCP server as the session keeps it, on the pool's event loop: started (a stdio command
with its standard error in a log file, or a Streamable HTTP URL with its headers), its tools
listed, kept open until the session ends; each call bounded by a deadline. A server that
fails to start, dies or answers what is not MCP is one line (`problem`), never an exception
out of here."""

from __future__ import annotations

import math
import os
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio

from interp.mcp.client.config import ServerSpec

State = Literal["starting", "ready", "failed", "stopped"]
LIST_PAGES = 50  # pages of a tool listing read at most
LINE = 300  # characters of a server's error quoted in one line


@dataclass(frozen=True)
class Tool:
    """A tool a server offers: its name, description and JSON Schema for the arguments."""

    server: str
    name: str
    description: str = ""
    input_schema: dict = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Answer:
    """What a call came to: the SDK's result, or why there is none (`problem`), and whether it
    ran past its deadline."""

    result: Any = None
    problem: str | None = None
    timed_out: bool = False


class Connection:
    """One server: `serve()` runs on the loop for the whole session (start, list, wait for
    `close()`); `call()` is awaited on the loop for each tool call."""

    def __init__(self, spec: ServerSpec, log_dir: Path | None, cwd: str) -> None:
        self.spec = spec
        self.log_path = (log_dir / f"{spec.name}.log") if log_dir is not None else None
        self.cwd = cwd
        self.state: State = "starting"
        self.problem: str | None = None
        self.tools: tuple[Tool, ...] = ()
        self.instructions: str | None = None
        self.ready = anyio.Event()
        self._closing = anyio.Event()
        self._client = None
        self._http_error: str | None = None  # the last HTTP error status of a URL server

    async def serve(self) -> None:
        """Start the server and list its tools (within the spec's start-up time), then keep it
        until `close()`; what goes wrong is kept in `problem`. (The deadline is the scope's
        around the whole connection: a time bound around entering the SDK's contexts only
        would be left while their task groups stay open.)"""
        try:
            with anyio.CancelScope() as scope:
                scope.deadline = anyio.current_time() + self.spec.startup_timeout
                async with AsyncExitStack() as stack:
                    self._client = await self._connect(stack)
                    self.tools = await self._list_tools()
                    self.instructions = self._client.instructions
                    scope.deadline = math.inf
                    self.state = "ready"
                    self.ready.set()
                    await self._closing.wait()
            if scope.cancelled_caught and self.state == "starting":
                self._fail(f"did not start and list its tools within "
                           f"{self.spec.startup_timeout:g} s")
        except Exception as exc:  # a server can fail in any way: one line, the session goes on
            self._fail(("stopped: " if self.state == "ready" else "could not start: ")
                       + _said(exc))
        finally:
            self._client = None
            if self.state not in ("failed",):
                self.state = "stopped"
            self.ready.set()

    def close(self) -> None:
        """End `serve()` (on the loop): the server is stopped."""
        self._closing.set()

    async def call(self, tool: str, arguments: dict, timeout: float) -> Answer:
        """Call a tool; at most `timeout` seconds."""
        client = self._client
        if client is None or self.state != "ready":
            return Answer(problem=f"MCP server {self.spec.name} is not running "
                                  f"({self.problem or self.state})")
        try:
            with anyio.fail_after(timeout):
                return Answer(await client.call_tool(tool, arguments))
        except TimeoutError:
            return Answer(problem=f"no result within {timeout:g} s", timed_out=True)
        except Exception as exc:  # a dead server, an error reply, a reply that is not MCP
            problem = _said(exc)
            if _gone(exc):
                self._fail(f"stopped: {problem}")
                return Answer(problem=f"MCP server {self.spec.name} has stopped ({problem})")
            return Answer(problem=problem)

    # -- inside ---------------------------------------------------------------------------
    async def _connect(self, stack: AsyncExitStack):
        from mcp import Client

        from interp import __version__
        from mcp_types import Implementation

        info = Implementation(name="interp", version=__version__)
        return await stack.enter_async_context(
            Client(await self._transport(stack), client_info=info,
                   read_timeout_seconds=self.spec.tool_timeout))

    async def _transport(self, stack: AsyncExitStack):
        spec = self.spec
        if spec.url is not None:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(httpx2.AsyncClient(
                headers=self._headers(), timeout=httpx2.Timeout(30, read=spec.tool_timeout),
                event_hooks={"response": [self._refused]}))
            return streamable_http_client(spec.url, http_client=http)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        errlog = stack.enter_context(self._errlog())
        params = StdioServerParameters(command=os.path.expanduser(spec.command),
                                       args=list(spec.args), env=dict(spec.env) or None,
                                       cwd=os.path.expanduser(spec.cwd) if spec.cwd else self.cwd)
        return stdio_client(params, errlog=errlog)

    async def _refused(self, response) -> None:
        """Keep the status of an HTTP error (the SDK's message leaves it out: 401 says the
        token is wrong)."""
        if response.status_code >= 400:
            self._http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    def _headers(self) -> dict[str, str]:
        """The HTTP headers: as written, from variables, and the bearer token's variable."""
        spec = self.spec
        headers = dict(spec.http_headers)
        for header, variable in spec.env_http_headers.items():
            if os.environ.get(variable):
                headers[header] = os.environ[variable]
        if spec.bearer_token_env_var:
            token = os.environ.get(spec.bearer_token_env_var)
            if not token:
                raise RuntimeError(f"{spec.bearer_token_env_var} is not set (it holds the "
                                   "bearer token)")
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def _errlog(self):
        """Where a stdio server's standard error goes: its log file (else nowhere)."""
        if self.log_path is None:
            return open(os.devnull, "w")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        return open(self.log_path, "a", encoding="utf-8", errors="replace")

    async def _list_tools(self) -> tuple[Tool, ...]:
        tools, cursor = [], None
        for _ in range(LIST_PAGES):
            page = await self._client.list_tools(cursor=cursor)
            tools += [Tool(self.spec.name, t.name, (t.description or "").strip(),
                           dict(t.input_schema or {"type": "object"}))
                      for t in page.tools if self.spec.offers(t.name)]
            cursor = page.next_cursor
            if cursor is None:
                break
        return tuple(tools)

    def _fail(self, problem: str) -> None:
        self.state, self.problem = "failed", problem
        if self._http_error:
            self.problem += f" ({self._http_error})"
        if self.log_path is not None and self.spec.url is None:
            self.problem += f" (its output: {self.log_path})"


def _said(exc: BaseException) -> str:
    """An exception in one line (groups: their first)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= LINE else text[:LINE - 1] + "…"


def _gone(exc: BaseException) -> bool:
    """Whether an error means the connection is over (the server exited or hung up)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, anyio.ClosedResourceError | anyio.BrokenResourceError |
                  anyio.EndOfStream | ConnectionError | EOFError):
        return True
    return "connection closed" in str(exc).lower()
