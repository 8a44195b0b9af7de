"""One-shot runs (-e): progress on stderr, the final answer on stdout."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from interp.core import events as ev
from interp.core.session import Session
from interp.ui.drive import drive
from interp.ui.keys import Keys
from interp.ui.render import Renderer
from interp.ui.status import StatusLine
from interp.ui.sanitize import safe_text
from interp.ui.usage import session_line


def run_oneshot(session: Session, task: str, notices: list[str], secrets: list[str] = (),
                keys: Keys | None = None, status: StatusLine | None = None) -> int:
    """Progress on stderr, the final answer on stdout (with an output schema: its JSON value
    alone, once valid); both sanitised, secrets redacted.
    With `keys` (a terminal), Esc stops the task as Ctrl-C does."""
    console = Console(stderr=True)
    renderer = Renderer(console, show_final=False, secrets=secrets, status=status)
    for text in notices:
        renderer.handle(ev.Notice(level="info", text=text))
    answers: list[str] = []

    def on_event(item: ev.Event) -> None:
        renderer.handle(item)
        if isinstance(item, ev.Message) and item.final:
            answers.append(item.text or "")

    try:
        code = drive(session, task, on_event, keys)
    finally:
        renderer.close()
        totals = session.totals
        session.close()
    if renderer.tally.replies > 1 and (totals.prompt_tokens or totals.completion_tokens):
        console.print(Text(session_line(totals.prompt_tokens, totals.completion_tokens,
                                        totals.cost, totals.cost_known), style="dim"))
    if session.config.output_schema is not None:  # the JSON alone, once valid, for scripts
        from interp.core.checks.schema import answer_text

        if (text := answer_text(session)) is not None:
            sys.stdout.write(renderer.scrub(text) + "\n")
    elif answers:
        out, answer = Console(), renderer.scrub(safe_text(answers[-1]))
        if out.is_terminal:
            out.print(Markdown(answer, hyperlinks=False))
        else:
            sys.stdout.write(answer.rstrip("\n") + "\n")
    return code
