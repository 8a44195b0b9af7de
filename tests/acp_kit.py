"""Driving the real `interp acp` with the `agent-client-protocol` SDK's own client side: the
SDK starts it as a subprocess, as Zed does, and this client records every session update and
answers permission requests as a person would (a queue of answers)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import AllowedOutcome, DeniedOutcome, Implementation, RequestPermissionResponse

from helpers import interp_cmd
from session_kit import KEY

GUARD = 60.0  # seconds for any one request (a hang guard only)


@dataclass
class EditorClient:
    """An editor: the updates it was sent, the permission requests it was put, and what it
    answers to them (option ids in turn; "cancel" answers cancelled; "wait" never answers)."""

    answers: list[str] = field(default_factory=list)
    updates: list[Any] = field(default_factory=list)
    asked: list[Any] = field(default_factory=list)
    asked_event: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(self, options, session_id, tool_call, **kwargs):
        self.asked.append((tool_call, options))
        self.asked_event.set()
        answer = self.answers.pop(0) if self.answers else "cancel"
        if answer == "wait":
            await asyncio.sleep(3600)
        if answer == "cancel":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected",
                                                                option_id=answer))

    async def session_update(self, session_id, update, **kwargs):
        self.updates.append(update)

    # what interp never asks of an editor
    async def write_text_file(self, *args, **kwargs):
        raise NotImplementedError

    async def read_text_file(self, *args, **kwargs):
        raise NotImplementedError

    def on_connect(self, conn) -> None:
        pass

    # -- reading what was sent ---------------------------------------------------------------
    def kinds(self) -> list[str]:
        return [update.session_update for update in self.updates]

    def message(self) -> str:
        return "".join(u.content.text for u in self.updates
                       if u.session_update == "agent_message_chunk")

    def calls(self, call_id: str) -> list[Any]:
        """The tool_call and tool_call_update updates of one call, in order."""
        return [u for u in self.updates if u.session_update in ("tool_call", "tool_call_update")
                and u.tool_call_id == call_id]

    def shown(self, call_id: str) -> str:
        """The text of a call's content as the editor shows it last."""
        contents = [u.content for u in self.calls(call_id) if u.content is not None]
        return "\n".join(part.content.text for part in contents[-1]) if contents else ""

    def status(self, call_id: str) -> str | None:
        statuses = [u.status for u in self.calls(call_id) if u.status is not None]
        return statuses[-1] if statuses else None


@dataclass
class Agent:
    """A running `interp acp`: the SDK's connection to it, its process and its stderr file."""

    conn: Any
    process: Any
    client: EditorClient
    stderr: Path

    async def request(self, call, guard: float = GUARD):
        return await asyncio.wait_for(call, guard)

    async def start(self, cwd: Path) -> str:
        """initialize and session/new; the session id."""
        await self.request(self.conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_info=Implementation(name="test-editor", title="Test Editor", version="1")))
        return (await self.request(self.conn.new_session(cwd=str(cwd), mcp_servers=[]))).session_id

    async def prompt(self, session_id: str, text: str, guard: float = GUARD):
        return await self.request(self.conn.prompt(session_id=session_id,
                                                   prompt=[text_block(text)]), guard)

    def said(self) -> str:
        return self.stderr.read_text()


@asynccontextmanager
async def acp_agent(env: dict, server, *args: str, client: EditorClient | None = None,
                    model: bool = True) -> AsyncIterator[Agent]:
    """The real `interp acp ARGS` on the fake server, started by the SDK's client side in the
    test's folders; its stderr goes to a file."""
    client = client or EditorClient()
    cmd = interp_cmd()
    stderr = Path(env["cwd"]).parent / "acp-agent.err"
    extra = ["--model", "openai/fake-model", "--api-base", server.api_base] if model else []
    environ = dict(env["env"], OPENAI_API_KEY=KEY)
    with open(stderr, "w") as err:
        async with spawn_agent_process(client, cmd[0], *cmd[1:], "acp", *extra, *args,
                                       env=environ, cwd=str(env["cwd"]),
                                       transport_kwargs={"stderr": err}) as (conn, process):
            yield Agent(conn, process, client, stderr)
