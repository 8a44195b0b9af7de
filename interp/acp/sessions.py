"""One editor session: an interp conversation (its runners kept between prompts), its
approval mode and rules, the models it may switch to, and the turn running, if any. Its modes
and its settings are offered both ways the protocol has: session modes and config options
(a "mode" and a "model" select)."""

from __future__ import annotations

from acp.schema import (SessionConfigOptionSelect, SessionConfigSelectOption, SessionMode,
                        SessionModeState)

from interp.acp.turn import Turn
from interp.approval.decision import ApprovalState, Decision, Proposal
from interp.approval.policy import Policy, PolicyApprover
from interp.core.session import Session

MODES = {"ask": ("Ask", "Ask before running each block that no rule allows."),
         "auto": ("Auto", "Run blocks without asking, except what the approval rules stop.")}
MODE, MODEL = "mode", "model"


class AcpSession:
    """An editor's session of interp; `session` is set once its conversation is open."""

    def __init__(self, policy: Policy, auto: bool, models: tuple[str, ...]) -> None:
        self.policy = policy
        self.approval = ApprovalState(auto=auto or policy.mode == "auto", policy=policy)
        self.approver = PolicyApprover(policy, self._ask, self.approval)
        self.models = models
        self.session: Session | None = None
        self.cwd = ""
        self.turn: Turn | None = None
        self.untold: list[str] = []  # warnings of the start, said with the first prompt

    @property
    def id(self) -> str | None:
        return self.session.id if self.session is not None else None

    @property
    def busy(self) -> bool:
        """A turn is running (or still stopping after a cancel)."""
        turn = self.turn
        return turn is not None and turn.thread is not None and turn.thread.is_alive()

    def _ask(self, proposal: Proposal) -> Decision:
        turn = self.turn
        if turn is None:  # only a turn runs blocks
            return Decision(run=False, reason=None, stop=True)
        return turn.approve(proposal)

    # -- modes and options ---------------------------------------------------------------
    def modes(self) -> SessionModeState:
        return SessionModeState(current_mode_id=self.approval.mode, available_modes=[
            SessionMode(id=mode, name=name, description=text)
            for mode, (name, text) in MODES.items()])

    def config_options(self) -> list[SessionConfigOptionSelect]:
        """The session's settings an editor may change: the approval mode and the model."""
        model = self.session.model.name if self.session is not None else ""
        names = self.models if model in self.models else (model, *self.models)
        return [
            SessionConfigOptionSelect(
                id=MODE, name="Approval", category="mode", type="select",
                description="Whether blocks no rule allows ask first.",
                current_value=self.approval.mode,
                options=[SessionConfigSelectOption(value=mode, name=name, description=text)
                         for mode, (name, text) in MODES.items()]),
            SessionConfigOptionSelect(
                id=MODEL, name="Model", category="model", type="select",
                description="The model that writes the code (from the next model call on).",
                current_value=model,
                options=[SessionConfigSelectOption(value=name, name=name) for name in names])]

    def set_mode(self, mode: str) -> None:
        """`ask` or `auto`; ValueError for another."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; interp's modes are {', '.join(MODES)}")
        self.approval.auto = mode == "auto"

    def close(self) -> None:
        """Stop the turn and every runner; the conversation stays saved."""
        if self.turn is not None:
            self.turn.session.stop()
        if self.session is not None:
            self.session.close()
