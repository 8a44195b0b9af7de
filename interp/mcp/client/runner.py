"""The runner of the `mcp` language: a block is one tool call (`SERVER.TOOL {json}`), run
through the session's server pool with the block's deadline (and the server's), its result
turned into output, figures and a status. `runner_class(pool)` makes the class the session's
registry gets, which tells the model about the tools (`model_note`) and offers each as a
function (`functions()`)."""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Iterator
from typing import ClassVar

from languages import Output, RunnerConfig
from languages.process.output_capture import OutputCapture, spool_path

from interp.core.replies.steps import RunnerFunction
from interp.mcp.client import results
from interp.mcp.client.connection import Tool
from interp.mcp.client.pool import ServerPool
from interp.mcpcall import LANGUAGE, CallError, McpCall, function_name, parse_call

DESCRIPTION_CHARS = 1000  # of a tool's description sent with its function
NOTE_CHARS = 160  # of a tool's description in the system prompt's list
NOTE_TOOLS = 60  # tools listed in the system prompt at most
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class McpRunner:
    """Runs MCP tool calls (`pool` is set on the class `runner_class` makes)."""

    name: ClassVar[str] = LANGUAGE
    aliases: ClassVar[tuple[str, ...]] = ()
    pool: ClassVar[ServerPool | None] = None
    model_note: ClassVar[str] = ""

    def __init__(self, config: RunnerConfig | None = None) -> None:
        self.config = config or RunnerConfig()
        self._runs = 0

    def start(self) -> None:
        """Nothing to start: the servers are the session's, started with it."""

    def run(self, code: str, timeout: float | None = None, *,
            block: int | None = None) -> Iterator:
        """Call the tool the block names; yields its output, then the Result."""
        started = time.monotonic()
        self._runs += 1
        try:
            call = parse_call(code)
        except CallError as exc:
            yield results.not_run(str(exc))
            return
        deadline = timeout or self.config.timeout or 600.0
        answer = self.pool.call(call.server, call.tool, call.arguments, deadline)
        capture = OutputCapture(self._spool(block), self.config.head_chars, self.config.tail_chars)
        if answer is None:
            yield results.finished("", capture, started, interrupted=True)
            return
        if answer.problem is not None:
            yield results.finished("", capture, started, error=answer.problem,
                                   timed_out=answer.timed_out)
            return
        text = results.output_text(answer.result)
        if text:
            yield Output(text if text.endswith("\n") else text + "\n")
        shown = results.images(answer.result, self._figures(), _stem(call, block))
        error = "the tool reported an error" if answer.result.is_error else None
        yield results.finished(text, capture, started, error=error, displays=shown)

    def interrupt(self) -> None:
        """Cancel the call that is running (the server goes on)."""
        if self.pool is not None:
            self.pool.interrupt()

    def stop(self) -> None:
        """Nothing to stop: the servers end with the session."""

    def restart(self) -> None:
        """Nothing to restart."""

    @classmethod
    def functions(cls) -> tuple[RunnerFunction, ...]:
        """Each tool of the servers that are ready, as a function the model may call."""
        return functions(cls.pool.tools()) if cls.pool is not None else ()

    def _spool(self, block: int | None) -> str:
        """Where a long result is kept: with the session, else a temporary folder."""
        workdir = os.path.join(tempfile.gettempdir(), f"interp-mcp-{os.getpid()}")
        return spool_path(self.config.spool_dir, workdir, self._runs, block, LANGUAGE)

    def _figures(self) -> str:
        return self.config.output_dir or os.path.join(self.config.cwd or os.getcwd(),
                                                      "interp-output")


def runner_class(pool: ServerPool) -> type[McpRunner]:
    """The runner class for a session's servers (call after `pool.wait()`: the note lists
    the tools of the servers that started)."""
    return type("McpRunner", (McpRunner,), {"pool": pool, "model_note": model_note(pool.tools()),
                                            "__doc__": McpRunner.__doc__})


def functions(tools: list[Tool]) -> tuple[RunnerFunction, ...]:
    """The tools as functions `mcp__SERVER__TOOL` (unique), each making its call's block."""
    out, taken = [], set()
    for tool in tools:
        name = function_name(tool.server, tool.name)
        base, n = name, 1
        while name in taken:
            n += 1
            name = f"{base[:60]}_{n}"
        taken.add(name)
        schema = tool.input_schema if tool.input_schema.get("type") == "object" else \
            {"type": "object", "properties": {}}
        description = f"MCP tool {tool.name} of the server {tool.server}. {tool.description}"
        out.append(RunnerFunction(name, description[:DESCRIPTION_CHARS].strip(), schema,
                                  LANGUAGE, _maker(tool.server, tool.name)))
    return tuple(out)


def _maker(server: str, tool: str):
    return lambda arguments: McpCall(server, tool, arguments).text()


def model_note(tools: list[Tool]) -> str:
    """What the model is told of the tools in the system prompt: how to call one as a block,
    and each tool in a line (its arguments, required ones starred, and its description)."""
    if not tools:
        return ""
    example = f"{tools[0].server}.{tools[0].name} {json.dumps(_example(tools[0]))}"
    lines = ["- MCP tools from the user's MCP servers: to call one, write an `mcp` block whose "
             "code is SERVER.TOOL followed by its arguments as one JSON object, for example:",
             f"```mcp\n{example}\n```",
             "  (When functions are offered, each tool is also the function mcp__SERVER__TOOL.) "
             "The user approves each call like a block; its result comes back as the output. "
             "The tools (required arguments starred):"]
    for tool in tools[:NOTE_TOOLS]:
        properties = tool.input_schema.get("properties") or {}
        required = set(tool.input_schema.get("required") or ())
        params = ", ".join(f"{name}{'*' if name in required else ''}" for name in properties)
        about = " ".join(tool.description.split())
        about = about if len(about) <= NOTE_CHARS else about[:NOTE_CHARS - 1] + "…"
        lines.append(f"  - {tool.server}.{tool.name}({params}){': ' + about if about else ''}")
    if len(tools) > NOTE_TOOLS:
        lines.append(f"  - … and {len(tools) - NOTE_TOOLS} more (the user's /mcp lists them)")
    return "\n".join(lines)


def _example(tool: Tool) -> dict:
    """Example arguments for a tool: its required ones, with placeholders of their type."""
    properties = tool.input_schema.get("properties") or {}
    placeholder = {"string": "...", "integer": 1, "number": 1, "boolean": True, "array": [],
                   "object": {}}
    return {name: placeholder.get((properties.get(name) or {}).get("type"), "...")
            for name in tool.input_schema.get("required") or ()}


def _stem(call: McpCall, block: int | None) -> str:
    return _UNSAFE.sub("_", f"mcp-{call.server}-{call.tool}" + (f"-block{block}" if block else ""))
