"""Showing session events in a terminal with rich."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from rich.console import Console
from rich.text import Text

from interp.core import events as ev
from interp.secrets import Redactor
from interp.ui import images
from interp.ui.displays import DisplayPainter
from interp.ui.output_view import OutputView, left_out_line
from interp.ui.panels import code_panel, markdown, reply_markdown
from interp.ui.sanitize import OutputFilter, safe_text
from interp.ui.status import StatusLine, fit
from interp.ui.stream import ReplyStream
from interp.ui.tables import files_line
from interp.ui.usage import Tally, compacted_line, reply_line

MAX_FILES_TEXT = 2000  # characters of a block.files line
UNSHOWN = frozenset({ev.SESSION_STARTED, ev.SESSION_FINISHED})  # nothing to show for these


class Renderer:
    """Turns events into terminal output; nothing untrusted reaches it unsanitised, and the
    given secrets are replaced by [REDACTED] everywhere.

    While interp waits (for the model, for a block) a status line shows what on, for how long
    and how to interrupt (`status`, drawn only on a terminal); a block's output is shown
    within bounds (interp.ui.output_view); a token and cost line follows each reply.

    The only escape sequences written that rich does not make are interp's own: the status
    line's, inline images (`image_protocol`, detected from the environment by default, see
    interp.images) and OSC 8 links to saved figures, all only on a terminal; paths in them are
    percent-encoded or sanitised first."""

    def __init__(self, console: Console, *, show_final: bool = True,
                 secrets: Iterable[str] = (), image_protocol: str | None = None,
                 status: StatusLine | None = None) -> None:
        self.console = console
        self.show_final = show_final
        self.image_protocol = (images.detect(os.environ) if image_protocol is None
                               else image_protocol)
        self._redactor = Redactor(secrets)
        self.status = status if status is not None else StatusLine.for_console(console)
        self._stream = ReplyStream(console, self.status, self.scrub, self.print,
                                   permanent=show_final)
        self._output: OutputFilter | None = None
        self._view: OutputView | None = None
        self._deferred: list[ev.Event] = []  # a block's displays and files, shown after its output
        self._model = "the model"
        self._phase = ""  # "model" while a reply is awaited or streams
        self._retry = ""  # the last retry line printed (identical lines merge)
        self.tally = Tally()

    def scrub(self, text: str) -> str:
        """Text with every secret replaced."""
        return self._redactor.walk(text)

    def handle(self, event: ev.Event) -> None:
        """Show one event; UnknownEvent for a type this renderer has no way to show."""
        if event.type in UNSHOWN:
            return
        handler = self._handlers().get(event.type)
        if handler is None:
            raise ev.UnknownEvent(f"the terminal cannot show event type {event.type!r}")
        handler(event.data)

    def _handlers(self) -> dict[str, Callable[[dict], None]]:
        return {
            ev.MODEL_REQUEST: self._on_model_request, ev.MODEL_RETRY: self._on_model_retry,
            ev.MODEL_HANDED_OVER: self._on_model_handed_over,
            ev.MESSAGE_DELTA: self._on_message_delta, ev.MESSAGE: self._on_message,
            ev.TURN_COMPLETED: self._on_turn_completed, ev.TASK_FINISHED: self._on_task_finished,
            ev.NOTICE: self._on_notice, ev.BLOCK_PROPOSED: self._on_block_proposed,
            ev.BLOCK_APPROVED: self._on_block_approved, ev.BLOCK_DECLINED: self._on_block_declined,
            ev.BLOCK_OUTPUT: self._on_block_output, ev.BLOCK_FINISHED: self._on_block_finished,
            ev.BLOCK_DISPLAY: self._on_block_display, ev.BLOCK_FILES: self._on_block_files,
            ev.CONTEXT_COMPACTING: self._on_compacting, ev.CONTEXT_COMPACTED: self._on_compacted,
            ev.BLOCK_BACKGROUND: self._on_block_background,
        }

    def stop(self) -> None:
        """Close any live view (after an interruption or at the end of a task)."""
        self._stream.close()
        self.status.stop()
        self._output, self._view, self._deferred, self._phase = None, None, [], ""

    def close(self) -> None:
        """Stop, and end the status line's thread."""
        self.stop()
        self.status.close()

    def print(self, *objects, **options) -> None:
        """console.print, with the status line out of the way."""
        with self.status.hidden():
            self.console.print(*objects, **options)

    def _clean(self, text: str) -> str:
        return self.scrub(safe_text(text))

    # -- the model ----------------------------------------------------------------------
    def _on_model_request(self, data: dict) -> None:
        self._model = self._clean(str(data.get("model") or "the model")).replace("\n", " ")
        self._phase = "model"
        self.status.start(f"waiting for {self._model}")

    def _on_model_retry(self, data: dict) -> None:
        text = self._clean(str(data.get("text") or "retrying the model")).replace("\n", " ")
        if data.get("restart") and self._stream.text:  # what streamed is shown; it starts over
            self._stream.close()
            self.print(Text("(the reply was cut off and starts over)", style="dim"))
        if self.status.enabled and self.status.active:
            self.status.note(text)
        elif text != self._retry:
            self.print(Text(text, style="dim"))
        self._retry = text

    def _on_model_handed_over(self, data: dict) -> None:
        """A provider handed to litellm: a lasting line, not a passing status note."""
        text = self._clean(str(data.get("text") or "sending the model's calls through litellm"))
        self.print(Text(text.replace("\n", " "), style="dim"))

    def _on_message_delta(self, data: dict) -> None:
        if not self._stream.text:
            self.status.update(f"receiving from {self._model}")
            self.status.note(None)
        self._stream.feed(data["text"])

    def _on_message(self, data: dict) -> None:
        printed, rest = self._end_model_phase(data.get("text") or "")
        if data.get("final") and not self.show_final:
            return
        if printed.strip():  # its first paragraphs were printed as they came
            self.print()
        if rest.strip() or not printed.strip():
            self.print(reply_markdown(rest, data.get("blocks")))

    def _end_model_phase(self, text: str | None = None) -> tuple[str, str]:
        """Erase the preview and the status; returns what of the reply (`text`, else what
        streamed) was printed already, and the rest, both sanitised."""
        stream = self._stream
        printed, rest = stream.printed, stream.rest(stream.text if text is None else text)
        stream.close()
        self.status.stop()
        self._phase, self._retry = "", ""
        return printed, rest

    def _on_turn_completed(self, data: dict) -> None:
        usage, cost = data.get("usage"), data.get("cost")
        self.tally.add(usage, cost)
        self.print(Text(reply_line(usage, cost, self.tally), style="dim"))

    def _on_task_finished(self, data: dict) -> None:
        self.stop()

    def _on_notice(self, data: dict) -> None:
        if self._phase == "model" and not self._stream.text and data.get("level") == "info":
            self.print(Text(self._clean(data["text"]), style="cyan"))  # e.g. the tools mode
            return
        if self._phase == "model":  # a reply cut off (stop, error): keep what came
            printed, rest = self._end_model_phase()
            if rest.strip():
                if printed.strip():
                    self.print()
                self.print(markdown(rest))
        style = {"error": "bold red", "warning": "yellow"}.get(data.get("level"), "cyan")
        self.print(Text(self._clean(data["text"]), style=style))

    def _on_compacting(self, data: dict) -> None:
        self.status.start("compacting the conversation (the model writes a summary)")

    def _on_compacted(self, data: dict) -> None:
        self.status.stop()
        self.print(Text(self.scrub(safe_text(compacted_line(data))), style="dim"))

    # -- blocks -------------------------------------------------------------------------
    def _on_block_proposed(self, data: dict) -> None:
        self.status.stop()
        self.print(code_panel(data["language"], self.scrub(data["code"]),
                              f"block {data['index']}"))

    def _on_block_approved(self, data: dict) -> None:
        if data.get("edited"):
            self.print(code_panel(data["language"], self.scrub(data["code"]), "edited code"))
        self._output = OutputFilter(self._redactor.secrets)
        self._view = self._new_view()
        self._deferred = []
        language = safe_text(str(data.get("language") or "")).replace("\n", " ")
        self.status.start(f"running {language} block {data.get('index')}")

    def _new_view(self) -> OutputView:
        live = self._live_line if self.status.enabled else None
        return OutputView(self._write_output, live)

    def _live_line(self, line: str) -> None:
        view = self._view
        if view is not None and view.collapsed:
            self.status.note(f"{view.hidden:,} lines not shown yet")
        width = self.status.size()[0] - 1
        self.status.preview([fit(line.expandtabs(), width)] if line else [])

    def _on_block_declined(self, data: dict) -> None:
        reason = f": {data['reason']}" if data.get("reason") else ""
        what, style = ("denied by policy", "red") if data.get("policy") else ("declined", "yellow")
        self.print(Text(self.scrub(safe_text(f"{what}{reason}")), style=style))

    def _on_block_output(self, data: dict) -> None:
        if self._output is None:
            self._output = OutputFilter(self._redactor.secrets)
        if self._view is None:
            self._view = self._new_view()
        self._view.feed(self._output.feed(data["text"]))

    def _write_output(self, text: str) -> None:
        with self.status.hidden():
            self.console.file.write(text)
            self.console.file.flush()

    def _end_output(self, spool_path: str | None) -> bool:
        """Show the rest of a block's output (the tail, if it was collapsed); True when the
        line that says where the full output is was shown."""
        view, output = self._view, self._output
        self._view, self._output = None, None
        if view is None:
            return False
        if output is not None:
            view.feed(output.flush())
        collapsed = view.finish()
        self.status.preview([])
        if collapsed is None:
            return False
        if collapsed.left_out:
            line = self.scrub(safe_text(left_out_line(collapsed.left_out, spool_path)))
            self.print(Text(line, style="dim"), soft_wrap=True)  # a path is never cut by a newline
        if collapsed.tail:
            self._write_output("".join(line + "\n" for line in collapsed.tail))
        return bool(collapsed.left_out and spool_path)

    def _on_block_finished(self, data: dict) -> None:
        told = self._end_output(data.get("spool_path"))
        self.status.stop()
        deferred, self._deferred = self._deferred, []
        for item in deferred:  # the view is closed now: they are shown
            self.handle(item)
        style = "green" if data["status"] == "ok" else "red"
        line = f"{'✓' if data['status'] == 'ok' else '✗'} {data['summary']} ({data['duration']:.2f} s)"
        if data.get("truncated") and not told:
            line += f"; long output saved to {data['spool_path']}"
        self.print(Text(self.scrub(safe_text(line)), style=style))

    def _defer(self, event: ev.Event) -> bool:
        """Keep a display or files event of a block whose output is being left out until the
        block ends (it is shown after the output's tail); else end the output's line."""
        view = self._view
        if view is None:
            return False
        if self._output is not None:
            view.feed(self._output.flush())
        view.end_line()
        if view.collapsed:
            self._deferred.append(event)
        return view.collapsed

    def _on_block_display(self, data: dict) -> None:
        if self._defer(ev.event(ev.BLOCK_DISPLAY, **data)):
            return
        with self.status.hidden():
            DisplayPainter(self.console, self.scrub, self.image_protocol).show(data)

    def _on_block_background(self, data: dict) -> None:
        if self._defer(ev.event(ev.BLOCK_BACKGROUND, **data)):
            return
        for item in data.get("processes") or ():
            output = f"; output: {item['output']}" if item.get("output") else ""
            line = (f"Left running: pid {item.get('pid')} {item.get('command')}{output} "
                    f"(/ps lists, /kill stops)")
            self.print(Text(self.scrub(safe_text(line)).replace("\n", " "), style="dim"))

    def _on_block_files(self, data: dict) -> None:
        if self._defer(ev.event(ev.BLOCK_FILES, **data)):
            return
        text = data.get("text")
        if not isinstance(text, str) or not text:
            text = files_line(data)
        if not text:
            return
        text = self.scrub(safe_text(text[:MAX_FILES_TEXT])).replace("\n", " ")
        self.print(Text(text, style="dim"))
