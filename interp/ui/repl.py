"""The interactive session: a prompt_toolkit prompt, slash commands, and tasks."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

from rich.console import Console
from rich.text import Text

from interp import __version__
from interp.core import events as ev
from interp.approval.decision import ApprovalState
from interp.core.session import Session
from interp.ui.drive import drive, interrupt_main
from interp.ui.keys import Keys
from interp.ui.questions import show_loading, task_prompt
from interp.ui.render import Renderer
from interp.ui.status import StatusLine
from interp.ui.slash import CommandContext, command_names, dispatch
from interp.ui.usage import session_line

_COMMAND = re.compile(r"/[a-zA-Z]+(\s|$)")


def interactive(session: Session, state: ApprovalState, notices: list[str], *,
                banner_model: str, history: Path | None,
                make_model: Callable[[str], tuple[object, str | None]],
                new_log: Callable[[], object], keys: Keys | None = None,
                status: StatusLine | None = None,
                loading: Callable[[], float | None] | None = None,
                after_reset: Callable[[], list[str]] | None = None,
                mcp=None) -> int:
    """Read tasks until /exit or Ctrl-D; returns 0. `make_model` builds the model /model
    switches to (and says what it reset), `new_log` the session file /reset starts; `keys`
    is the keyboard watched while a task runs (Esc stops it); `status` the status line;
    `loading` says how long a local model has been loading in the background (shown below
    the prompt until it is ready); `after_reset` runs after /reset (the SessionStart hooks)
    and returns lines to show; `mcp` is the MCP servers' pool, for /mcp."""
    console = Console()
    renderer = Renderer(console, status=status)
    console.print(Text(f"interp {__version__} · model {banner_model} · /help for commands, "
                       f"Ctrl-D to exit", style="dim"))
    for text in notices:
        renderer.handle(ev.Notice(level="info", text=text))
    ctx = CommandContext(session, state, console, make_model, new_log, keys,
                         after_reset=after_reset, mcp=mcp)
    prompt = task_prompt(history, command_names())
    try:
        while True:
            try:
                show_loading(prompt, loading)
                line = prompt.prompt("> ")
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            line = line.strip()
            if not line:
                continue
            try:
                if _COMMAND.match(line):
                    with keys.watching(interrupt_main) if keys is not None else nullcontext():
                        if not dispatch(line, ctx):
                            break
                    continue
                drive(session, line, renderer.handle, keys)
            except KeyboardInterrupt:  # a slow command, or a Ctrl-C just as a turn ended
                console.print(Text("Interrupted.", style="yellow"))
            finally:
                renderer.stop()
    finally:
        renderer.close()
        totals = session.totals
        session.close()
        if totals.prompt_tokens or totals.completion_tokens:
            console.print(Text(session_line(totals.prompt_tokens, totals.completion_tokens,
                                            totals.cost, totals.cost_known), style="dim"))
    return 0
