"""The interactive session: a prompt_toolkit prompt, slash commands, and tasks."""

from __future__ import annotations

import re

from rich.console import Console
from rich.text import Text

from . import __version__
from . import events as ev
from .agent import Session
from .app import make_model, new_log
from .commands import CommandContext, dispatch
from .config import Settings, data_dir
from .drive import drive
from .prompts import ApprovalState, task_prompt
from .render import Renderer
from .store import SessionStore

_COMMAND = re.compile(r"/[a-zA-Z]+(\s|$)")


def interactive(session: Session, state: ApprovalState, settings: Settings,
                store: SessionStore, notices: list[str]) -> int:
    """Read tasks until /exit or Ctrl-D; returns 0."""
    console = Console()
    renderer = Renderer(console)
    console.print(Text(f"interp {__version__} · model {settings.model} · /help for commands, "
                       f"Ctrl-D to exit", style="dim"))
    for text in notices:
        renderer.handle(ev.event(ev.NOTICE, level="info", text=text))
    ctx = CommandContext(session, state, console, lambda name: make_model(settings, name),
                         lambda: new_log(settings, store))
    prompt = task_prompt(data_dir() / "history")
    try:
        while True:
            try:
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
                    if not dispatch(line, ctx):
                        break
                    continue
                drive(session, line, renderer.handle)
            except KeyboardInterrupt:  # a slow command, or a Ctrl-C just as a turn ended
                console.print(Text("Interrupted.", style="yellow"))
            finally:
                renderer.stop()
    finally:
        session.close()
    return 0
