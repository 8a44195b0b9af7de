"""One-shot runs (-e): progress on stderr, the final answer on stdout."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markdown import Markdown

from interp.core import events as ev
from interp.core.session import Session
from interp.ui.drive import drive
from interp.ui.render import Renderer
from interp.ui.sanitize import safe_text


def run_oneshot(session: Session, task: str, notices: list[str], secrets: list[str] = ()) -> int:
    """Progress on stderr, the final answer on stdout; both sanitised, secrets redacted."""
    console = Console(stderr=True)
    renderer = Renderer(console, show_final=False, secrets=secrets)
    for text in notices:
        renderer.handle(ev.event(ev.NOTICE, level="info", text=text))
    answers: list[str] = []

    def on_event(item: ev.Event) -> None:
        renderer.handle(item)
        if item.type == ev.MESSAGE and item.data.get("final"):
            answers.append(item.data.get("text") or "")

    try:
        code = drive(session, task, on_event)
    finally:
        renderer.stop()
        session.close()
    if answers:
        out, answer = Console(), renderer.scrub(safe_text(answers[-1]))
        if out.is_terminal:
            out.print(Markdown(answer, hyperlinks=False))
        else:
            sys.stdout.write(answer.rstrip("\n") + "\n")
    return code
