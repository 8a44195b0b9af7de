"""Driving the real `interp mcp` with the `mcp` SDK's own client: over stdio (the client starts
the server) and over Streamable HTTP (a server started here, on 127.0.0.1, with its token);
and the processes the runners leave, read from /proc."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from helpers import alive, interp_cmd, wait_gone  # noqa: F401  (used by the MCP tests)

START_GUARD = 60.0  # seconds for a server to say where it listens (a hang guard only)
GUARD = 120.0  # seconds for a test's conversation with a server (a hang guard only)


def converse(body, guard: float = GUARD):
    """Run an async test body (a coroutine function) under the hang guard."""
    async def guarded():
        with anyio.fail_after(guard):
            return await body()

    return anyio.run(guarded)


def stdio_server(env: dict, *args: str) -> StdioServerParameters:
    """The real `interp mcp ARGS` as the stdio client starts it, in the test's folders."""
    cmd = interp_cmd()
    return StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp", *args],
                                 env=env["env"], cwd=str(env["cwd"]))


def stdio_client(env: dict, *args: str, **options) -> Client:
    """An SDK client of a fresh `interp mcp ARGS` over stdio."""
    return Client(stdio_server(env, *args), read_timeout_seconds=120, **options)


@dataclass
class HttpServer:
    """A running `interp mcp --http`: its URL, its token, its process and what it printed."""

    url: str
    token: str
    process: subprocess.Popen
    said: list[str]


@contextmanager
def http_server(env: dict, *args: str, token: str | None = None) -> Iterator[HttpServer]:
    """`interp mcp --http --port 0 ARGS` until the block ends (then SIGTERM, as a person's
    Ctrl-C or a service manager would stop it); what it says on stderr goes to a file."""
    environ = dict(env["env"], **({"INTERP_MCP_TOKEN": token} if token else {}))
    said_path = Path(env["cwd"]).parent / "mcp-server.err"
    with open(said_path, "w") as said_file:
        process = subprocess.Popen([*interp_cmd(), "mcp", "--http", "--port", "0", *args],
                                   env=environ, cwd=env["cwd"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=said_file, text=True)
    try:
        said = _read_until(process, said_path, "bearer token:")
        url = next(line.split(" at ", 1)[1] for line in said if " at http://" in line)
        printed = next(line for line in said if "bearer token:" in line).split("token: ", 1)[1]
        yield HttpServer(url, token or printed.split(" ")[0], process, said)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        process.stdout.close()


def _read_until(process: subprocess.Popen, path: Path, marker: str) -> list[str]:
    """The lines of `path` once one holds `marker` (the server has started)."""
    deadline = time.monotonic() + START_GUARD
    while True:
        lines = path.read_text().splitlines()
        if any(marker in line for line in lines):
            return lines
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"interp mcp --http did not start: {lines}")
        time.sleep(0.05)


@asynccontextmanager
async def http_client(server: HttpServer, token: str | None = None,
                      **options) -> AsyncIterator[Client]:
    """An SDK client of the HTTP server, sending `token` (default: the server's)."""
    headers = {"Authorization": f"Bearer {token or server.token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        async with Client(streamable_http_client(server.url, http_client=http),
                          read_timeout_seconds=120, **options) as client:
            yield client


def text(result) -> str:
    """The text parts of a tool result, joined."""
    return "\n".join(part.text for part in result.content if part.type == "text")


def kill_all(pids: list[int]) -> None:
    """Clean up after a failed test: SIGKILL what is still there."""
    for pid in pids:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
