"""Slash commands typed at the interactive prompt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.console import Console
from rich.text import Text

from interp.core.loop.processes import ProcessNumbers
from interp.core.session import Session
from interp.approval.decision import ApprovalState

HELP = """\
/help          this list
/reset         start a new conversation with fresh runners (/clear does the same)
/undo          drop the last exchange (your last task and everything after it)
/model NAME    switch to another litellm model, e.g. /model anthropic/claude-sonnet-4-5
/tokens        tokens and cost so far, how full the context is (and a local model's speed)
/compact [FOCUS]  have the model summarise the earlier conversation to free the context
/mode [MODE]   show or set the approval mode: ask, or auto (run what no rule stops)
/auto          toggle auto-approve (/mode auto, /mode ask)
/rules         list the approval rules in force, numbered
/rules remove N|ENTRY            remove a rule (a config rule from config.toml too)
/rules add allow|ask|deny ENTRY  add a rule to config.toml
/mcp           the MCP servers of config.toml: their state and tools
/ps            the processes blocks left running: pid, running time, last lines of output
/kill N        stop process N of /ps (or the process with pid N) and what it started
/file PATH     attach a file to your next task (the model gets its path, size, type, preview)
/skills        the skills the model was told of (.agents/skills), and those skipped
/export [PATH] save this conversation as .md, .ipynb or .json (default ./interp-ID.md)
/rewind [N]    put the folder back as it was before block N (lists the blocks; /rewind undo)
/diff [N]      what block N changed in the folder (default: the last block)
/exit          leave (Ctrl-D works too)
Tab completes a command. Esc-Enter inserts a new line; Ctrl-C clears the line.
While a task runs, Esc or Ctrl-C stops it: the running block is interrupted (its runner
keeps its state), nothing more runs and the model is not called again."""


@dataclass
class CommandContext:
    """What slash commands act on."""

    session: Session
    approval: ApprovalState
    console: Console
    make_model: Callable[[str], tuple[object, str | None]]  # the model and what was reset
    new_log: Callable[[], object] | None = None
    keys: object | None = None  # the terminal's Keys (interp.ui.keys), for questions
    processes: ProcessNumbers = field(default_factory=ProcessNumbers)  # /ps numbers, kept
    after_reset: Callable[[], list[str]] | None = None  # SessionStart hooks: lines to show
    mcp: object | None = None  # the MCP servers' pool (interp.mcp.client.pool), for /mcp


def command_names() -> list[str]:
    """Every slash command, for completion."""
    return sorted(_COMMANDS)


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
    policy = ctx.approval.policy
    cleared = policy.clear_session() if policy is not None else 0
    rules = (f"; {cleared} session rule{'s' * (cleared != 1)} cleared" if cleared else "")
    ctx.console.print(f"New conversation; runners restarted{rules}.")
    for line in ctx.after_reset() if ctx.after_reset is not None else ():
        ctx.console.print(Text(line, style="dim"))


def _undo(ctx: CommandContext, arg: str) -> None:
    dropped = ctx.session.undo()
    ctx.console.print(f"Dropped {dropped} messages." if dropped else "Nothing to undo.")


def _model(ctx: CommandContext, arg: str) -> None:
    if not arg:
        ctx.console.print(f"Model: {ctx.session.model.name}. Usage: /model NAME")
        return
    from interp.errors import UsageError

    try:
        model, note = ctx.make_model(arg)
    except UsageError as exc:  # /model local with no local model or no xllamacpp
        ctx.console.print(Text(str(exc), style="yellow"))
        return
    ctx.session.model = model
    ctx.console.print(Text(f"Model set to {arg}." + (f" {note}" if note else "")))


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
    from interp.ui.usage import context_line

    window = ctx.session.model.context_window()
    ctx.console.print(context_line(context, window, ctx.session.config.compact_at))
    speed = getattr(ctx.session.model, "speed", None)  # a local model's measured speed
    if callable(speed):
        from interp.ui.local_setup import speed_text

        if text := speed_text(speed()):
            ctx.console.print(text)


def _compact(ctx: CommandContext, arg: str) -> None:
    from interp.core import events as ev
    from interp.ui.usage import compacted_line

    for item in ctx.session.compact(arg or None):
        if isinstance(item, ev.ContextCompacting):
            ctx.console.print(Text("Compacting: the model writes a summary of the earlier "
                                   "conversation…", style="dim"))
        elif isinstance(item, ev.ContextCompacted):
            ctx.console.print(Text(compacted_line(item.body())))
        elif isinstance(item, ev.Notice):
            ctx.console.print(Text(item.text,
                                   style="yellow" if item.level != "info" else ""))


def _ps(ctx: CommandContext, arg: str) -> None:
    from interp.core.loop.processes import running
    from interp.ui.sanitize import safe_text
    from interp.ui.wrap import wrapped

    listed = running(ctx.session, ctx.processes)
    if not listed:
        ctx.console.print("No processes left running by blocks.")
        return
    for item in listed:
        process = item.process
        where = (f"output: {process.output}" if process.output else
                 "output discarded" if process.discarded else "output not captured")
        line = safe_text(f"{item.number}. pid {process.pid}, {process.language} block "
                         f"{process.block}, running {item.running}: {process.command} ({where})")
        ctx.console.print(Text(wrapped(line, ctx.console.width, 3)), soft_wrap=True)
        for line in item.tail:
            ctx.console.print(Text(safe_text(f"     {line}")[:300], style="dim"))
    ctx.console.print(Text("/kill N stops one.", style="dim"))


def _kill(ctx: CommandContext, arg: str) -> None:
    from interp.core.loop.processes import stop

    if not arg.strip():
        ctx.console.print(Text("Usage: /kill N (a number from /ps, or a pid)", style="yellow"))
        return
    try:
        process = stop(ctx.session, ctx.processes, arg)
    except ProcessLookupError as exc:
        ctx.console.print(Text(f"Could not stop it: {exc}.", style="yellow"))
        return
    if process is None:
        ctx.console.print(Text(f"No process {arg} in /ps.", style="yellow"))
        return
    ctx.console.print(Text(f"Stopped pid {process.pid} ({process.command}) and what it started."))


def _auto(ctx: CommandContext, arg: str) -> None:
    ctx.approval.auto = not ctx.approval.auto
    ctx.console.print("Auto-approve is " + ("ON: blocks run without asking (approval mode auto; "
                                            "deny and ask rules still apply)." if ctx.approval.auto
                                            else "OFF: each block is shown for approval "
                                            "(approval mode ask)."))


_MODES = {
    "ask": "blocks that no allow rule covers ask first",
    "auto": "blocks run without asking unless a deny rule refuses them or an ask rule matches",
}


def _mode(ctx: CommandContext, arg: str) -> None:
    arg = arg.lower()
    if arg and arg not in _MODES:
        ctx.console.print(Text(f"Unknown mode {arg!r}. Usage: /mode ask | /mode auto",
                               style="yellow"))
        return
    if arg:
        ctx.approval.auto = arg == "auto"
    mode = ctx.approval.mode
    ctx.console.print(Text(f"Approval mode{' set to' if arg else ''}: {mode} ({_MODES[mode]})."
                           + ("" if arg else " Change it with /mode ask or /mode auto.")))


def _rules(ctx: CommandContext, arg: str) -> None:
    from interp.approval.policy import session_listing
    from interp.approval.rules import RulesError

    policy = ctx.approval.policy
    if policy is None:
        ctx.console.print("No approval rules are in use.")
        return
    action, _, rest = arg.partition(" ")
    try:
        if action.lower() in ("remove", "rm", "delete"):
            if not rest.strip():
                raise RulesError("usage: /rules remove N (or ENTRY)")
            for item in policy.remove(rest):
                where = f" and from {policy.path}" if item.origin == "config" else ""
                ctx.console.print(Text(f"Removed {item.kind} rule `{item.rule.entry}` "
                                       f"({item.origin}){where}."))
            return
        if action.lower() == "add":
            kind, _, entry = rest.strip().partition(" ")
            if not entry.strip():
                raise RulesError("usage: /rules add allow|ask|deny ENTRY")
            rule, new = policy.add(kind.lower(), entry, save=True)
            ctx.console.print(Text(f"Added {kind.lower()} rule `{rule.entry}` to {policy.path}."
                                   if new else f"`{rule.entry}` is already a {kind.lower()} rule."))
            return
        if action:
            raise RulesError(f"unknown /rules action {action!r}; use /rules, /rules remove "
                             f"N|ENTRY or /rules add allow|ask|deny ENTRY")
    except RulesError as exc:
        ctx.console.print(Text(str(exc), style="yellow"))
        return
    ctx.console.print(Text(session_listing(policy, ctx.approval)))


def _paths(arg: str) -> list[str]:
    """The paths in a command's argument: the whole of it if that exists, else shell words."""
    import os
    import shlex

    if os.path.exists(os.path.expanduser(arg)):
        return [arg]
    try:
        return shlex.split(arg) or [arg]
    except ValueError:
        return [arg]


def _file(ctx: CommandContext, arg: str) -> None:
    from interp.core.files.attachments import AttachmentError, attachment_notice

    if not arg:
        queued = len(ctx.session.attachments)
        ctx.console.print(Text(f"{queued} file{'s' * (queued != 1)} queued for your next task. "
                               if queued else "") + "Usage: /file PATH (more than one is fine)")
        return
    for path in _paths(arg):
        try:
            notice = attachment_notice(ctx.session.attach(path))
        except AttachmentError as exc:
            ctx.console.print(Text(f"Cannot attach {exc}", style="yellow"))
            continue
        ctx.console.print(Text(f"{notice} It goes to the model with your next task."))


def _skills(ctx: CommandContext, arg: str) -> None:
    from interp.ui.sanitize import safe_text

    skills = ctx.session.config.skills
    ctx.console.print(Text(safe_text(skills.listing()) if skills is not None else (
        "No skills were read: skills are off (--no-skills), or this conversation was resumed "
        "and keeps the prompt it started with.")))


def _export(ctx: CommandContext, arg: str) -> None:
    from interp.storage.export import ExportError, write_export
    from interp.storage.conversations import ConversationStore, StoreError

    session = ctx.session
    paths = _paths(arg) if arg else [f"interp-{session.id or 'session'}.md"]
    if len(paths) != 1:
        ctx.console.print(Text("Usage: /export [PATH] (.md, .ipynb or .json)", style="yellow"))
        return
    title = None
    try:
        if not any(m.role not in ("system", None) for m in session.messages):
            ctx.console.print("Nothing to export: the conversation is empty.")
            return
        if session.log is not None:  # the saved form: keys are already [REDACTED] there
            store = ConversationStore(session.log.path.parent)
            messages, title = store.load(session.log.id), store.info(session.log.id).title
        else:
            messages = session.messages
        fmt = write_export(messages, paths[0], title=title or None)
    except (ExportError, StoreError, OSError) as exc:
        ctx.console.print(Text(str(exc), style="yellow"))
        return
    ctx.console.print(Text(f"Exported the conversation ({fmt}) to {paths[0]}."))


def _mcp(ctx: CommandContext, arg: str) -> None:
    from interp.ui.sanitize import safe_text

    if ctx.mcp is None:
        ctx.console.print("No MCP servers are configured: add [mcp_servers.NAME] tables to "
                          "config.toml (see docs/integrations.md).")
        return
    for line in ctx.mcp.describe():
        ctx.console.print(Text(safe_text(line), style="dim" if line.startswith("  ") else ""))
    ctx.console.print(Text("Rules: mcp: SERVER.TOOL (or SERVER.*) in [approval]; each call asks "
                           "like a block.", style="dim"))


def _exit(ctx: CommandContext, arg: str) -> bool:
    return False


def _rewind(ctx: CommandContext, arg: str) -> None:
    from interp.ui.rewind import rewind_command

    rewind_command(ctx, arg)


def _diff(ctx: CommandContext, arg: str) -> None:
    from interp.ui.rewind import diff_command

    diff_command(ctx, arg)


_COMMANDS = {"/help": _help, "/reset": _reset, "/clear": _reset, "/undo": _undo, "/model": _model,
             "/tokens": _tokens, "/compact": _compact, "/ps": _ps, "/kill": _kill,
             "/auto": _auto, "/mode": _mode, "/rules": _rules, "/file": _file,
             "/skills": _skills, "/export": _export, "/mcp": _mcp, "/exit": _exit, "/quit": _exit,
             "/rewind": _rewind, "/diff": _diff}
