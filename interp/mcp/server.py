"""The MCP server: interp's runners behind four tools, one set of runners per client session,
over stdio or Streamable HTTP (on the `mcp` SDK's low-level Server).

Runners keep state between calls, so the server speaks the protocol revisions that have
sessions (the `initialize` handshake, up to 2025-11-25): a client that probes with
`server/discover` is told so and falls back to the handshake, and a request pinned to the
sessionless 2026-07-28 revision gets one clear error."""

from __future__ import annotations

import os
import signal
import sys
import traceback
from dataclasses import dataclass, field

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from interp import __version__
from interp.approval.policy import PolicyApprover
from interp.mcp.approval import ElicitingAsker, Question, Reply
from interp.mcp.clients import ClientState, Ran
from interp.mcp.config import HttpConfig, ServerConfig
from interp.mcp.results import block_result, text_result
from interp.mcp.running import Progress, eliciter, in_worker
from interp.mcp.tools import (Interrupt, ListLanguages, Reset, RunCode, ToolInputError,
                              parse_call, tool_specs)

_STATE_KEY = "interp"
# Requests up to this size reach the tools, which say what is too long; larger ones the SDK
# refuses (HTTP 413) before reading them.
MAX_BODY = 16 << 20
INSTRUCTIONS = (
    "interp runs code on the user's machine in persistent interpreters, one per language, "
    "kept for this session: variables, imports and the shell's directory carry over between "
    "run_code calls. Output comes back bounded, with how the block ended, the files it "
    "changed and its figures. The user's approval rules decide what runs: a refused block "
    "says why. Call list_languages to see what is available.")
ERA_MESSAGE = ("interp mcp keeps each client's interpreters in its session, and protocol "
               "2026-07-28 has no sessions: connect with the initialize handshake "
               "(protocol 2025-11-25 or earlier)")


@dataclass(eq=False)
class Client:
    """One session's state and the lock that runs its calls one at a time."""

    state: ClientState
    turn: anyio.Lock = field(default_factory=anyio.Lock)
    withdrawn: anyio.Event | None = None  # set to withdraw the question of the running call


class InterpServer:
    """interp's MCP server: the SDK server, the tools, and every live client's state."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.live: set[Client] = set()
        self.specs = tool_specs(config.registry, config.timeout)
        self.server = Server("interp", version=__version__, title="interp",
                             instructions=INSTRUCTIONS, on_list_tools=self._list_tools,
                             on_call_tool=self._call_tool)
        self.server.add_request_handler("server/discover", types.RequestParams, self._discover)
        self.server.middleware.append(self._handshake_era)

    # -- serving ------------------------------------------------------------------------------
    async def serve_stdio(self) -> None:
        """Serve one client on standard input and output until it closes them."""
        from mcp.server.runner import serve_loop
        from mcp.server.stdio import stdio_server

        from interp.mcp.stdio import claimed_stdio

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._end_on_signal)
                with claimed_stdio() as (stdin, stdout):
                    async with stdio_server(stdin, stdout) as (read, write):
                        await serve_loop(self.server, read, write, lifespan_state={},
                                         init_options=self.server.create_initialization_options())
                group.cancel_scope.cancel()
        finally:
            await self.close_all()

    async def _end_on_signal(self) -> None:
        """SIGTERM or SIGHUP: stop every runner, then die of the signal. Not by unwinding: where
        the SDK's own streams serve, its reader of standard input sits in a thread that only a
        closed stdin would end."""
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP) as signals:
            async for signum in signals:
                await self.close_all()
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)

    async def serve_http(self, http: HttpConfig, sock) -> None:
        """Serve clients over Streamable HTTP on the bound socket until stopped."""
        from interp.mcp.http import serve

        app = self.server.streamable_http_app(host=http.host,
                                              session_idle_timeout=http.session_timeout,
                                              max_request_body_size=MAX_BODY)
        try:
            await serve(app, sock, http.token)
        finally:
            await self.close_all()

    async def close_all(self) -> None:
        """Stop every client's runners (at shutdown)."""
        with anyio.CancelScope(shield=True):
            for client in list(self.live):
                await self._end(client)

    def close_now(self) -> None:
        """The same without an event loop: the last line of defence when the process ends."""
        for client in list(self.live):
            self.live.discard(client)
            client.state.close()

    # -- handlers -----------------------------------------------------------------------------
    async def _discover(self, ctx, params) -> types.DiscoverResult:
        """Tell a probing client to use the handshake (this server's state lives in sessions)."""
        return types.DiscoverResult(supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
                                    capabilities=self.server.get_capabilities(),
                                    instructions=INSTRUCTIONS)

    async def _handshake_era(self, ctx, call_next):
        """A request of the sessionless revision (HTTP routes it by its header; on stdio it
        carries the version in `_meta`) gets one clear error; a discover probe is answered."""
        version = (ctx.meta or {}).get(types.PROTOCOL_VERSION_META_KEY, ctx.protocol_version)
        if version in MODERN_PROTOCOL_VERSIONS and ctx.method != "server/discover":
            raise MCPError(code=types.UNSUPPORTED_PROTOCOL_VERSION, message=ERA_MESSAGE,
                           data={"supported": list(HANDSHAKE_PROTOCOL_VERSIONS),
                                 "requested": version})
        return await call_next(ctx)

    async def _list_tools(self, ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(
            name=spec.name, title=spec.title, description=spec.description,
            input_schema=spec.input_schema,
            annotations=types.ToolAnnotations(title=spec.title, read_only_hint=spec.read_only,
                                              destructive_hint=spec.destructive,
                                              open_world_hint=False))
            for spec in self.specs])

    async def _call_tool(self, ctx, params) -> types.CallToolResult:
        try:
            request = parse_call(params.name, params.arguments, self.config.registry,
                                 self.config.timeout)
        except ToolInputError as exc:
            return text_result(str(exc), error=True)
        try:
            client = self._client(ctx)
            if isinstance(request, RunCode):
                return await self._run_code(client, request, ctx)
            if isinstance(request, Interrupt):
                return self._interrupt(client)
            if isinstance(request, Reset):
                return await self._reset(client, request)
            if isinstance(request, ListLanguages):
                return text_result(client.state.describe())
            raise AssertionError(f"unhandled request {request!r}")
        except Exception as exc:  # the last line of defence: one line, never a traceback
            if self.config.debug:
                sys.stderr.write("".join(traceback.format_exception(exc)))
            return text_result(f"interp: unexpected error: {type(exc).__name__}: {exc}",
                               error=True)

    async def _run_code(self, client: Client, request: RunCode, ctx) -> types.CallToolResult:
        async with client.turn:
            withdrawn = client.withdrawn = anyio.Event()
            ask = None
            if _can_elicit(ctx):
                async def elicit(asked: Question) -> Reply:
                    answer = await ctx.session.elicit_form(asked.message, asked.schema,
                                                           ctx.request_id)
                    return Reply(answer.action, answer.content)

                ask = eliciter(elicit, withdrawn, self.config.approval_wait)
            state = client.state
            approver = PolicyApprover(state.policy, ElicitingAsker(state.policy, ask, state.client),
                                      state.approval)
            if state.hooks is not None:  # the PreToolUse hooks before the rules
                approver = state.hooks.approver(approver)
            progress = Progress(ctx.session.report_progress) if _wants_progress(ctx) else None
            feed = progress.feed if progress is not None else _ignore

            def stop() -> None:
                withdrawn.set()
                state.interrupt()

            def work() -> Ran:
                return state.run(request, approver, feed)

            try:
                if progress is None:
                    ran = await in_worker(work, stop)
                else:
                    async with anyio.create_task_group() as group:
                        group.start_soon(progress.pump)
                        ran = await in_worker(work, stop)
                        group.cancel_scope.cancel()
            finally:
                client.withdrawn = None
        return block_result(ran)

    def _interrupt(self, client: Client) -> types.CallToolResult:
        language = client.state.interrupt()
        if language is not None:
            return text_result(f"Interrupted the running {language} block; its interpreter "
                               f"keeps its state.")
        if client.withdrawn is not None:
            client.withdrawn.set()
            return text_result("Withdrew the approval question; the block does not run.")
        return text_result("Nothing is running.")

    async def _reset(self, client: Client, request: Reset) -> types.CallToolResult:
        client.state.interrupt()
        async with client.turn:
            lost = await anyio.to_thread.run_sync(client.state.reset, request.language)
        if lost:
            return text_result(f"Restarted {', '.join(lost)}: variables and other state are "
                               f"gone; the next block starts afresh.")
        which = f"{request.language} interpreter" if request.language else "interpreter"
        return text_result(f"No {which} was running in this session; nothing to reset.")

    # -- per-client state ---------------------------------------------------------------------
    def _client(self, ctx) -> Client:
        """The state of the request's session, made on its first call and ended with it."""
        # The SDK's per-connection object (its `state` and `exit_stack`, unwound when the
        # session ends for any reason) is not yet public on the request context (mcp 2.3).
        connection = ctx.session._connection
        client = connection.state.get(_STATE_KEY)
        if client is None:
            client = Client(ClientState(self.config, _client_name(ctx)))
            connection.state[_STATE_KEY] = client
            self.live.add(client)
            connection.exit_stack.push_async_callback(self._end, client)
        return client

    async def _end(self, client: Client) -> None:
        if client in self.live:
            self.live.discard(client)
            await anyio.to_thread.run_sync(client.state.close)


def _client_name(ctx) -> str:
    params = ctx.session.client_params
    info = params.client_info if params is not None else None
    if info is None:
        return "an MCP client"
    return f"{info.name} {info.version}".strip() if info.version else info.name


def _can_elicit(ctx) -> bool:
    """Whether the client said it can put a form to the user."""
    capabilities = ctx.session.client_capabilities
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def _wants_progress(ctx) -> bool:
    return (ctx.meta or {}).get("progress_token") is not None


def _ignore(text: str) -> None:
    return None
