"""Approval of proposed code blocks: the request, the decision, and simple approvers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Proposal:
    """A code block the model wants to run; `why`: why the person is asked (set when
    approval rules are in force, e.g. "no rule allows `ls -la`")."""

    index: int
    language: str
    code: str
    why: str | None = None


@dataclass(frozen=True)
class Decision:
    """What the person (or a policy) decided about a proposal.

    `policy`: an approval rule decided (a refusal is reported as "denied by policy").
    `allow`/`save`: at the question the person chose an allow rule (an entry such as
    `shell: git status *`, or several, one per command of the block) for the session, or
    saved to config.toml; a PolicyApprover applies it. `notice` is a line to show (a `notice` event at `notice_level`)."""

    run: bool
    code: str | None = None
    reason: str | None = None
    always: bool = False
    stop: bool = False
    policy: bool = False
    allow: str | tuple[str, ...] | None = None
    save: bool = False
    notice: str | None = None
    notice_level: str = "info"

    def edited(self, original: str) -> bool:
        """True when the code to run differs from what the model proposed."""
        return self.run and self.code is not None and self.code != original


RUN = Decision(run=True)


def decline(reason: str | None = None, stop: bool = False) -> Decision:
    """A decision not to run; `stop` also ends the turn."""
    return Decision(run=False, reason=reason, stop=stop)


@dataclass
class ApprovalState:
    """The approval mode of a session (`auto`: run blocks no rule stops; `/mode`, `/auto`)
    and the approval rules in force (an `interp.policy.Policy`, or None)."""

    auto: bool = False
    policy: Any = None

    @property
    def mode(self) -> str:
        """`auto` or `ask`."""
        return "auto" if self.auto else "ask"


class Approver(Protocol):
    """Decides whether a proposal runs."""

    def __call__(self, proposal: Proposal) -> Decision: ...


def auto_approve(proposal: Proposal) -> Decision:
    """Approve everything (`--auto-approve`)."""
    return RUN


def refuse_all(proposal: Proposal) -> Decision:
    """Approve nothing."""
    return decline("not approved (no approver)", stop=True)


ApproverFn = Callable[[Proposal], Decision]
