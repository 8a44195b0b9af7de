"""Approval through the editor: a block the rules ask about becomes a permission request
(`session/request_permission`) with the choices of the terminal's question: run it once,
run it and allow its commands' prefix or its whole language for the rest of the session, or
do not run it (which ends the turn, as `n` without a reason does). What the editor answers
becomes the Decision; an answer that is not one of the choices runs nothing."""

from __future__ import annotations

from dataclasses import dataclass

from acp import text_block, tool_content
from acp.schema import PermissionOption, ToolCallUpdate

from interp.approval.decision import RUN, Decision, Proposal, decline
from interp.approval.prefixes import always_choices
from interp.approval.rules import Resolve
from interp.acp.updates import call_title
from interp.core.replies.fences import fence

ONCE, REJECT = "run-once", "reject"


@dataclass(frozen=True)
class Question:
    """A permission request: the tool call it is about, the options, and what each means."""

    tool_call: ToolCallUpdate
    options: tuple[PermissionOption, ...]
    choices: dict[str, Decision]

    def decision(self, outcome) -> Decision:
        """What the editor's answer (a RequestPermissionResponse's outcome) means."""
        if getattr(outcome, "outcome", None) != "selected":  # cancelled: the turn was stopped
            return Decision(run=False, reason=None, stop=True)
        chosen = self.choices.get(getattr(outcome, "option_id", None))
        if chosen is None:
            return Decision(run=False, reason=None, stop=True, notice_level="warning", notice=(
                f"Not run: the editor answered with {outcome.option_id!r}, which is not one of "
                f"the choices."))
        return chosen


def question(proposal: Proposal, resolve: Resolve) -> Question:
    """The permission request for a block."""
    options = [PermissionOption(option_id=ONCE, name="Run it", kind="allow_once")]
    choices: dict[str, Decision] = {ONCE: RUN}
    for n, (shown, entry) in enumerate(always_choices(proposal.language, proposal.code,
                                                      resolve), 1):
        option = f"allow-{n}"
        options.append(PermissionOption(option_id=option, kind="allow_always",
                                        name=f"Run it, and allow {shown} for this session"))
        choices[option] = Decision(run=True, allow=entry)
    options.append(PermissionOption(option_id=REJECT, name="Don't run it", kind="reject_once"))
    choices[REJECT] = decline(None)  # as `n` with no reason: the turn ends
    content = [fence(proposal.code, proposal.language)]
    if proposal.why:
        content.append(f"Asked because {proposal.why}.")
    call = ToolCallUpdate(tool_call_id=f"block-{proposal.index}", status="pending",
                          title=call_title(proposal.index, proposal.language, proposal.code),
                          content=[tool_content(text_block(text)) for text in content])
    return Question(call, tuple(options), choices)
