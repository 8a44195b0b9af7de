"""Slash commands typed at the interactive prompt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from .agent import Session
from .prompts import ApprovalState

HELP = """\
/help          this list
/reset         start a new conversation with fresh runners
/undo          drop the last exchange (your last task and everything after it)
/model NAME    switch to another litellm model, e.g. /model anthropic/claude-sonnet-4-5
/tokens        tokens and cost so far
/auto          toggle auto-approve (run blocks without asking)
/exit          leave (Ctrl-D works too)
Esc-Enter inserts a new line; Ctrl-C clears the line, or interrupts a running block."""


@dataclass
class CommandContext:
    """What slash commands act on."""

    session: Session
    approval: ApprovalState
    console: Console
    make_model: Callable[[str], object]
    new_log: Callable[[], object] | None = None


def dispatch(line: str, ctx: CommandContext) -> bool:
    """Run a slash command; returns False when the person asked to exit."""
    name, _, arg = line.strip().partition(" ")
    handler = _COMMANDS.get(name.lower())
    if handler is None:
        ctx.console.print(Text(f"Unknown command {name}. Type /help for the list.", style="yellow"))
        return True
    return handler(ctx, arg.strip()) is not False


def _help(ctx: CommandContext, arg: str) -> None:
    ctx.console.print(HELP)


def _reset(ctx: CommandContext, arg: str) -> None:
    ctx.session.reset()
    if ctx.new_log is not None:
        if ctx.session.log is not None:
            ctx.session.log.close()
        ctx.session.attach_log(ctx.new_log())
    ctx.console.print("New conversation; runners restarted.")


def _undo(ctx: CommandContext, arg: str) -> None:
    dropped = ctx.session.undo()
    ctx.console.print(f"Dropped {dropped} messages." if dropped else "Nothing to undo.")


def _model(ctx: CommandContext, arg: str) -> None:
    if not arg:
        ctx.console.print(f"Model: {ctx.session.model.name}. Usage: /model NAME")
        return
    ctx.session.model = ctx.make_model(arg)
    ctx.console.print(f"Model set to {arg}.")


def _tokens(ctx: CommandContext, arg: str) -> None:
    totals = ctx.session.totals
    cost = f"${totals.cost:.4f}" if totals.cost_known else "unknown (the model has no price)"
    ctx.console.print(f"Tokens: {totals.prompt_tokens} prompt + {totals.completion_tokens} "
                      f"completion = {totals.prompt_tokens + totals.completion_tokens}. Cost: {cost}.")
    try:
        context = ctx.session.model.count_tokens(ctx.session.payload())
    except Exception as exc:  # token counting is advisory; never break the session
        ctx.console.print(f"Context size unknown: {exc}")
        return
    window = ctx.session.model.context_window()
    ctx.console.print(f"Context now: {context} tokens" + (f" of {window}." if window else "."))


def _auto(ctx: CommandContext, arg: str) -> None:
    ctx.approval.auto = not ctx.approval.auto
    ctx.console.print("Auto-approve is " + ("ON: blocks run without asking." if ctx.approval.auto
                                            else "OFF: each block is shown for approval."))


def _exit(ctx: CommandContext, arg: str) -> bool:
    return False


_COMMANDS = {"/help": _help, "/reset": _reset, "/undo": _undo, "/model": _model,
             "/tokens": _tokens, "/auto": _auto, "/exit": _exit, "/quit": _exit}
