"""--json: one JSON object per event on stdout, nothing else."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

from interp.core import events as ev
from interp.core.session import Session
from interp.secrets import Redactor
from interp.ui.drive import drive
from interp.ui.keys import Keys
from interp.ui.sanitize import OutputFilter


def run_json(session: Session, task: str, notices: list[str], secrets: list[str] = (),
             keys: Keys | None = None) -> int:
    """JSON Lines on stdout, nothing else; API keys are replaced as in saved sessions.
    With `keys` (a terminal), Esc stops the task as Ctrl-C does."""
    redactor = Redactor(secrets)
    streams: dict[object, OutputFilter] = {}  # per block: a key split across chunks

    def write(item: ev.Event) -> None:
        sys.stdout.write(json.dumps(redactor.walk(item.to_dict())) + "\n")
        sys.stdout.flush()

    def emit(item: ev.Event) -> None:
        if isinstance(item, ev.BlockOutput):
            stream = streams.setdefault(item.index,
                                        OutputFilter(redactor.secrets, sanitize=False))
            item = replace(item, text=stream.feed(item.text))
            if not item.text:
                return
        elif isinstance(item, ev.BlockFinished) and item.index in streams:
            if rest := streams.pop(item.index).flush():
                write(ev.BlockOutput(index=item.index, text=rest))
        if item.json:
            write(item)
        if isinstance(item, ev.SessionStarted):
            flush_notices()

    def flush_notices() -> None:  # start-up notices follow session.started, the first line
        while pending:
            write(pending.pop(0))

    pending = [ev.Notice(level="info", text=text) for text in notices]
    try:
        code = drive(session, task, emit, keys)
    finally:
        flush_notices()
        final = session.close()
    emit(replace(final, exit_code=code))
    return code
