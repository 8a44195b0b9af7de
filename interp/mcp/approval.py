"""Approval for MCP clients: the terminal's rules (PolicyApprover: deny, then ask, then allow)
with the question put to the person through MCP elicitation, or, when the client cannot ask,
a refusal that names the rule to add."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from languages.escapes import HIDDEN_NOTE, has_hidden, visible

from interp.approval.decision import RUN, Decision, Proposal, decline
from interp.approval.policy import Policy
from interp.approval.prefixes import always_choices, prefix_rules
from interp.approval.rules import explain
from interp.core.replies.fences import fence

SHOWN_CODE = 4000  # characters of the block shown in the question
_ONCE, _NO = "run", "no"


class NoAnswer(Exception):
    """The question got no answer (time-out, the call was cancelled, the client failed);
    the message says why, `stop` when the call itself is over."""

    def __init__(self, reason: str, stop: bool = False) -> None:
        super().__init__(reason)
        self.stop = stop


@dataclass(frozen=True)
class Reply:
    """The client's answer to a question: its action and the form's values."""

    action: str  # "accept" | "decline" | "cancel"
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class Question:
    """An approval question as an elicitation form: its text, its schema, and what each
    choice means."""

    message: str
    schema: dict[str, Any]
    choices: dict[str, Decision] = field(default_factory=dict)


def question(proposal: Proposal, policy: Policy, client: str) -> Question:
    """The form that asks whether to run a block: run once, run and allow rules for the
    session (as the terminal's "always"), or do not run (with a reason for the model)."""
    code = visible(proposal.code[:SHOWN_CODE])  # as the terminal shows it: nothing hidden
    if len(proposal.code) > SHOWN_CODE:
        code += f"\n… ({len(proposal.code) - SHOWN_CODE:,} more characters)"
    hidden = f"\n({HIDDEN_NOTE})" if has_hidden(proposal.code) else ""
    why = f"\n\nAsked because {visible(proposal.why)}." if proposal.why else ""
    message = (f"{visible(client)} wants to run this {visible(proposal.language)} block on this "
               f"machine:\n\n{fence(code, proposal.language)}{hidden}{why}")
    choices: dict[str, Decision] = {_ONCE: RUN}
    options = [{"const": _ONCE, "title": "Run it once"}]
    targets = always_choices(proposal.language, proposal.code, policy.resolve)
    for n, (shown, entry) in enumerate(targets, 1):
        const = f"allow-{n}"
        choices[const] = Decision(run=True, allow=entry)
        options.append({"const": const,
                        "title": f"Run it, and allow {shown} for the rest of this session"})
    choices[_NO] = decline()
    options.append({"const": _NO, "title": "Do not run it"})
    schema = {"type": "object", "properties": {
        "answer": {"type": "string", "title": f"Run this {proposal.language} block?",
                   "oneOf": options, "default": _ONCE},
        "reason": {"type": "string", "title": "Reason",
                   "description": "If it should not run: why (the model is told)."}},
              "required": ["answer"]}
    return Question(message, schema, choices)


def decision(asked: Question, reply: Reply) -> Decision:
    """What the person's answer means; anything but a known choice runs nothing, and a
    malformed answer is declined with what was wrong with it."""
    content = reply.content if isinstance(reply.content, dict) else {}
    reason = content.get("reason")
    reason = reason.strip() if isinstance(reason, str) and reason.strip() else None
    if reply.action == "decline":
        return decline(reason or "The user declined it.")
    if reply.action != "accept":
        return decline(reason or "The user dismissed the question without answering.")
    answer = content.get("answer")
    chosen = asked.choices.get(answer) if isinstance(answer, str) else None
    if chosen is None:
        return decline(_not_a_choice(asked, reply.content))
    return chosen if chosen.run else decline(reason)


def _not_a_choice(asked: Question, content: object) -> str:
    """What was wrong with an answer that names none of the choices."""
    choices = ", ".join(asked.choices)
    if not isinstance(content, dict) or "answer" not in content:
        return f"The form came back without an answer (the choices: {choices}); nothing ran."
    answer = content["answer"]
    shown = repr(answer) if len(repr(answer)) <= 80 else repr(answer)[:79] + "…"
    if isinstance(answer, str):
        return f"The answer {shown} is not one of the choices ({choices}); nothing ran."
    kind = {list: "a list", dict: "an object", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(answer), type(answer).__name__)
    return f"The answer is {kind} ({shown}), not one of the choices ({choices}); nothing ran."


def refusal(proposal: Proposal, policy: Policy) -> Decision:
    """The decision for a block the rules say to ask about when nobody can be asked: not run,
    with the way out (the rule to add, or why only a person can approve it)."""
    verdict = policy.evaluate(proposal.language, proposal.code, auto=False)
    why = explain(verdict) or f"no rule allows this {proposal.language} block"
    cannot = "and this MCP client cannot ask the user (it does not support elicitation)"
    if verdict.action == "ask" and verdict.rule is not None:
        return Decision(run=False, policy=True, reason=(
            f"{why}, so the user must approve it, {cannot}. Only a person can approve it: use "
            f"a client that supports elicitation, or remove the rule with "
            f"`interp rules remove {shlex.quote(verdict.rule.entry)}`."))
    entries = [rule.entry for rule in prefix_rules(proposal.language, proposal.code,
                                                   policy.resolve)]
    adds = " and ".join(f"`interp rules add allow {shlex.quote(entry)}`" for entry in entries)
    return Decision(run=False, policy=True, reason=(
        f"{why}, so the user must approve it, {cannot}. To let blocks like it run, the user "
        f"can add a rule: {adds} (or start the server with `interp mcp --auto-approve`)."))


class ElicitingAsker:
    """PolicyApprover's `ask` for one client: puts the question through `elicit` (which
    returns the Reply or raises NoAnswer), or refuses when `elicit` is None."""

    def __init__(self, policy: Policy, elicit: Callable[[Question], Reply] | None,
                 client: str) -> None:
        self.policy = policy
        self.elicit = elicit
        self.client = client

    def __call__(self, proposal: Proposal) -> Decision:
        if self.elicit is None:
            return refusal(proposal, self.policy)
        asked = question(proposal, self.policy, self.client)
        try:
            return decision(asked, self.elicit(asked))
        except NoAnswer as exc:
            return decline(f"Not run: {exc}.", stop=exc.stop)
