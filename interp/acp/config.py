"""What `interp acp` is told at start (interp/cli/acp_command.py builds it from the settings):
how to open conversations, the approval rules, the models an editor may pick, and the bounds
of every wait."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from interp.approval.decision import Approver
from interp.approval.policy import Policy
from interp.core.session import Session
from interp.models.base import Model
from interp.storage.conversations import ConversationStore

APPROVAL_WAIT = 600.0  # seconds a permission request waits for the person's answer
STOP_WAIT = 10.0  # seconds a cancelled turn is given to stop before the prompt is answered


@dataclass(frozen=True)
class Opened:
    """A conversation opened for an editor, and what its start has to say (for the editor's
    log: the agent's standard error)."""

    session: Session
    notices: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    resumed: bool = False


class Conversations(Protocol):
    """Opens interp conversations with the settings of the run (the CLI supplies it)."""

    def new(self, cwd: str, approver: Approver) -> Opened:
        """A new conversation whose blocks run in `cwd`; UsageError or StoreError when it
        cannot be started (no model configured, a bad setting, the store not writable)."""

    def load(self, session_id: str, cwd: str, approver: Approver) -> Opened:
        """A saved conversation reopened (its runners fresh, in `cwd`); StoreError when it
        is not there or open in another interp."""

    def switch_model(self, name: str) -> tuple[Model, str | None]:
        """The model called `name`, and a line on what was reset for it, if anything."""


@dataclass(frozen=True)
class AgentConfig:
    """Settings shared by every session of one `interp acp`."""

    conversations: Conversations
    store: ConversationStore  # for session/list
    policy: Callable[[], Policy]  # a fresh copy per session: rules allowed there stay its own
    auto_approve: bool = False  # the sessions start in the auto mode (-y, mode = "auto")
    models: tuple[str, ...] = ()  # the editor's model picker, the configured model first
    approval_wait: float = APPROVAL_WAIT
    stop_wait: float = STOP_WAIT
    debug: bool = False  # tracebacks of unexpected errors on standard error
    secrets: tuple[str, ...] = field(default=(), repr=False)  # redacted from what is said
