"""What the server is told at start: the runners, their limits, the approval rules, the store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from languages import Registry, RunnerConfig

from interp.approval.policy import Policy
from interp.storage.conversations import ConversationStore

APPROVAL_WAIT = 600.0  # seconds the server waits for the person to answer an approval question


@dataclass(frozen=True)
class ServerConfig:
    """Settings shared by every client of one server; each client gets its own runners."""

    registry: Registry
    runner: RunnerConfig  # cwd, sandbox, limits, environment (the block time-out is `timeout`)
    timeout: float  # the longest a block may run, in seconds (--timeout)
    policy: Callable[[], Policy]  # a fresh copy of the rules per client: session rules stay its own
    auto_approve: bool = False  # run what no rule stops without asking (--auto-approve)
    store: ConversationStore | None = None  # where conversations are saved; None: not saved
    secrets: tuple[str, ...] = ()  # values redacted from saved conversations
    approval_wait: float = APPROVAL_WAIT
    debug: bool = False  # tracebacks of unexpected errors on stderr
    checkpoints: bool = True  # record the folder before each block (`interp rewind` undoes it)
    # The hooks of config.toml for one client, given its approval state (interp.hooks), or None.
    hooks: Callable[[object], object | None] | None = None


@dataclass(frozen=True)
class HttpConfig:
    """`--http`: where to listen and the token every request must carry."""

    token: str
    port: int = 8765
    host: str = "127.0.0.1"
    session_timeout: float = 1800.0  # seconds a session may sit with nothing in flight
