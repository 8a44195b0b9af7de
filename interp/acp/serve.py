"""Serving one editor over standard input and output until it goes: the SDK's agent-side
connection on interp's own wire (wire.py), then every session's runners stopped."""

from __future__ import annotations

import asyncio

from acp import run_agent

from interp.acp.agent import InterpAgent
from interp.acp.config import AgentConfig
from interp.acp.wire import LineWire
from interp.secrets import Redactor
from interp.stdio import claimed_fds


def serve_stdio(config: AgentConfig) -> None:
    """Serve the editor that started this process until it closes standard input."""
    agent = InterpAgent(config)
    with claimed_fds() as wires:
        if wires is None:
            raise OSError("cannot take over standard input and output")
        asyncio.run(_serve(agent, *wires))


async def _serve(agent: InterpAgent, read_fd: int, write_fd: int) -> None:
    wire = LineWire(read_fd, write_fd, agent.say, Redactor(agent.config.secrets))
    try:
        await run_agent(agent, wire)
    finally:
        agent.close()
