"""The hooks of one session, where the session asks for them: before a block (an approver
around the approval rules), after it (a block watcher), on the answer (a reply check) and at
the session's start. Matching hooks of one event run at the same time; each has its time
bound, and a failure is one line."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from interp.approval.decision import Decision, Proposal
from interp.approval.rules import Resolve, explain
from interp.core import events as ev
from interp.core.blocks import BlockRecord
from interp.core.checks.base import Request, TaskView
from interp.core.loop.execution import AfterBlock
from interp.hooks import payloads
from interp.hooks.config import POST_TOOL_USE, PRE_TOOL_USE, SESSION_START, STOP, Hook, HookSet
from interp.hooks.process import hook_environment, run_command
from interp.hooks.replies import Said, line, read

STOP_SENDS_BACK = 8  # answers Stop hooks may send back in one task (Claude Code's cap)
STOP_NOTE = "A Stop hook sent your answer back"  # starts what the model is told


@dataclass(frozen=True)
class Before:
    """What the PreToolUse hooks decided about a block: deny > ask (or a failure) > allow;
    None when none decided. `why` names the hook and its reason; `lines` are for the person."""

    action: str | None
    why: str = ""
    lines: tuple[str, ...] = ()
    stop: bool = False


class SessionHooks:
    """The hooks of `hooks` for one session in `cwd`, their environment without `env_remove`;
    `where()` says which session they run in (its id and file, the approval mode)."""

    def __init__(self, hooks: HookSet, resolve: Resolve, cwd: str,
                 env_remove: frozenset[str], where: Callable[[], payloads.Where]) -> None:
        self.hooks = hooks
        self.resolve = resolve
        self.cwd = cwd
        self.env = hook_environment(cwd, env_remove)
        self.where = where

    # -- running ----------------------------------------------------------------------------
    def run(self, hooks: tuple[Hook, ...], stdin: str, pre_tool: bool = False
            ) -> list[tuple[Hook, Said]]:
        """Run `hooks` with `stdin` (at the same time when there are several)."""
        def one(hook: Hook) -> tuple[Hook, Said]:
            ran = run_command(hook.command, stdin, hook.timeout, self.cwd, self.env)
            return hook, read(ran, pre_tool)

        if len(hooks) <= 1:
            return [one(hook) for hook in hooks]
        with ThreadPoolExecutor(len(hooks)) as pool:
            return list(pool.map(one, hooks))

    def _for_block(self, event: str, language: str, code: str) -> tuple[Hook, ...]:
        return tuple(hook for hook in self.hooks.at(event)
                     if hook.matcher.matches_block(language, code, self.resolve))

    # -- PreToolUse ---------------------------------------------------------------------------
    def before(self, proposal: Proposal) -> Before:
        """Run the PreToolUse hooks a block matches; what they decided."""
        hooks = self._for_block(PRE_TOOL_USE, proposal.language, proposal.code)
        if not hooks:
            return Before(None)
        stdin = payloads.pre_tool_use(self.where(), PRE_TOOL_USE, proposal.index,
                                      proposal.language, proposal.code)
        said = self.run(hooks, stdin, pre_tool=True)
        lines = [f"PreToolUse hook `{name(hook)}`: {s.message}" for hook, s in said if s.message]
        for hook, s in said:
            if s.failed:
                lines.append(f"PreToolUse hook `{name(hook)}` failed ({s.failed}); the block "
                             f"is put to you instead of running on the hook's word.")
        stop = any(s.stop for _, s in said)
        for action in ("deny", "ask", "allow"):
            deciding = [(hook, s) for hook, s in said
                        if s.action == action or (action == "ask" and s.failed)]
            if deciding:
                hook, s = deciding[0]
                verb = {"deny": "denied it", "ask": "asks about it", "allow": "allowed it"}
                why = (f"the PreToolUse hook `{name(hook)}` failed" if s.failed else
                       f"the PreToolUse hook `{name(hook)}` {verb[action]}"
                       + (f": {s.reason}" if s.reason else ""))
                return Before(action, why, tuple(lines), stop)
        return Before(None, lines=tuple(lines), stop=stop)

    def approver(self, inner) -> HookedApprover:
        """`inner` (a PolicyApprover) with the PreToolUse hooks in front."""
        return HookedApprover(self, inner)

    # -- PostToolUse --------------------------------------------------------------------------
    def after_block(self, record: BlockRecord) -> AfterBlock:
        """Run the PostToolUse hooks a block that ran matches: lines for the person, and what
        they say back for the model."""
        hooks = self._for_block(POST_TOOL_USE, record.language, record.code)
        if not hooks:
            return AfterBlock()
        said = self.run(hooks, payloads.post_tool_use(self.where(), POST_TOOL_USE, record))
        notices, told = [], []
        for hook, s in said:
            label = f"PostToolUse hook `{name(hook)}`"
            notices += lines_of(label, s)
            for text in () if s.failed else (s.reason if s.action == "deny" else "", s.context):
                if text:
                    told.append(f"The {label} after block {record.index} says: {text}")
                    notices.append(ev.Notice(level="info", text=f"{label} told the model: "
                                                                 f"{line(text)}"))
        return AfterBlock(tuple(notices), tuple(told))

    # -- Stop ---------------------------------------------------------------------------------
    def stop_check(self) -> StopCheck | None:
        """The reply check that runs the Stop hooks on the answer (None: there are none)."""
        return StopCheck(self) if self.hooks.at(STOP) else None

    # -- SessionStart -------------------------------------------------------------------------
    def session_start(self, source: str) -> tuple[list[str], list[ev.Notice]]:
        """Run the SessionStart hooks for `source` (startup, resume, clear): what joins the
        model's context, and lines for the person."""
        hooks = tuple(hook for hook in self.hooks.at(SESSION_START)
                      if hook.matcher.matches_source(source))
        if not hooks:
            return [], []
        said = self.run(hooks, payloads.session_start(self.where(), SESSION_START, source))
        context, lines = [], []
        for hook, s in said:
            label = f"SessionStart hook `{name(hook)}`"
            lines += lines_of(label, s)
            if s.context and not s.failed:
                context.append(f"From the {label} (context for this session):\n{s.context}")
        return context, lines


class HookedApprover:
    """An approver with the PreToolUse hooks before the approval rules (`inner`, a
    PolicyApprover: its `policy` and `put_to_person`). A hook's deny wins; its allow is an
    allow rule (deny and ask rules still hold); its ask (or a hook that failed) puts the block
    to the person even in auto mode, and with nobody to ask it does not run."""

    def __init__(self, hooks: SessionHooks, inner) -> None:
        self.hooks = hooks
        self.inner = inner

    def __call__(self, proposal: Proposal) -> Decision:
        before = self.hooks.before(proposal)
        decision = self._decide(proposal, before)
        if before.lines:  # what the hooks said, before the rules' own line
            notice = " ".join([*before.lines, *([decision.notice] if decision.notice else [])])
            decision = replace(decision, notice=notice, notice_level="warning")
        return replace(decision, always=False)  # hooks see every block, even "always" ones

    def _decide(self, proposal: Proposal, before: Before) -> Decision:
        if before.stop or before.action == "deny":
            return Decision(run=False, policy=True, stop=before.stop,
                            reason=before.why or "a PreToolUse hook stopped the turn")
        if before.action is None:
            return self.inner(proposal)
        rules = self.inner.policy.evaluate(proposal.language, proposal.code, auto=True)
        if rules.action == "deny":
            return Decision(run=False, policy=True, reason=explain(rules))
        if before.action == "allow" and rules.action != "ask":
            return Decision(run=True, notice=f"{before.why[0].upper()}{before.why[1:]}.")
        why = explain(rules) if before.action == "allow" else before.why
        return self.inner.put_to_person(replace(proposal, why=why), rules)


class StopCheck:
    """A reply check (the Check protocol of interp/core/checks) that runs the Stop hooks on
    an answer: one that blocks sends it back with its reason, at most STOP_SENDS_BACK times a
    task; a failure is a line for the person (`said()`, which the loop yields)."""

    name = "stop-hook"
    reason = "a Stop hook of config.toml judges the answer"
    stage = "answer"
    scope = "any"
    asks = STOP_SENDS_BACK

    def __init__(self, hooks: SessionHooks) -> None:
        self.hooks = hooks
        self._said: list[ev.Notice] = []

    def __call__(self, view: TaskView) -> Request | None:
        active = any(text.startswith(STOP_NOTE) for text in view.shown)
        stdin = payloads.stop(self.hooks.where(), STOP, view.reply.text, active)
        for hook, s in self.hooks.run(self.hooks.hooks.at(STOP), stdin):
            label = f"Stop hook `{name(hook)}`"
            self._said += lines_of(label, s)
            if s.action == "deny" and not s.failed:
                reason = s.reason or "(no reason given)"
                return Request(f"{STOP_NOTE}: {reason}", f"The {label} sent the answer back: "
                               f"{line(reason)}", retracts=False)
        return None

    def said(self) -> list[ev.Notice]:
        """The lines for the person since last asked."""
        said, self._said = self._said, []
        return said


def lines_of(label: str, said: Said) -> list[ev.Notice]:
    """The lines for the person of what a hook said: that it failed, or its systemMessage."""
    if said.failed:
        return [ev.Notice(level="warning", text=f"{label} failed ({said.failed}).")]
    return [ev.Notice(level="info", text=f"{label}: {said.message}")] if said.message else []


def name(hook: Hook) -> str:
    """A hook as the person wrote it, shortened for a line."""
    return line(hook.command)[:80]


def transcript(log) -> str | None:
    """The path of a session's file, for `transcript_path`."""
    path = getattr(log, "path", None)
    return os.fspath(path) if path is not None else None


