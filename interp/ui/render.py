"""Showing session events in a terminal with rich."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from rich.console import Console
from rich.text import Text

from languages.process.background import head_tail

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
from interp.ui.wrap import wrapped

MAX_FILES_TEXT = 2000  # characters of a block.files line
BACKGROUND_CHARS = 80  # of the processes a block left running, named at the head and the tail
UNSHOWN = frozenset({ev.SessionStarted, ev.SessionFinished})  # nothing to show for these


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
        if type(event) in UNSHOWN:
            return
        handler = self._handlers().get(type(event))
        if handler is None:
            raise ev.UnknownEvent(f"the terminal cannot show event type {event.type!r}")
        handler(event)

    def _handlers(self) -> dict[type[ev.Event], Callable]:
        return {
            ev.ModelRequest: self._on_model_request, ev.ModelRetry: self._on_model_retry,
            ev.ModelHandedOver: self._on_model_handed_over,
            ev.MessageDelta: self._on_message_delta, ev.Message: self._on_message,
            ev.TurnCompleted: self._on_turn_completed, ev.TaskFinished: self._on_task_finished,
            ev.Notice: self._on_notice, ev.BlockProposed: self._on_block_proposed,
            ev.BlockApproved: self._on_block_approved, ev.BlockDeclined: self._on_block_declined,
            ev.BlockOutput: self._on_block_output, ev.BlockFinished: self._on_block_finished,
            ev.BlockDisplay: self._on_block_display, ev.BlockFiles: self._on_block_files,
            ev.ContextCompacting: self._on_compacting, ev.ContextCompacted: self._on_compacted,
            ev.BlockBackground: self._on_block_background,
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
    def _on_model_request(self, event: ev.ModelRequest) -> None:
        self._model = self._clean(str(event.model or "the model")).replace("\n", " ")
        self._phase = "model"
        self.status.start(f"waiting for {self._model}")

    def _on_model_retry(self, event: ev.ModelRetry) -> None:
        text = self._clean(str(event.text or "retrying the model")).replace("\n", " ")
        if event.restart and self._stream.text:  # what streamed is shown; it starts over
            self._stream.close()
            self.print(Text("(the reply was cut off and starts over)", style="dim"))
        if self.status.enabled and self.status.active:
            self.status.note(text)
        elif text != self._retry:
            self.print(Text(text, style="dim"))
        self._retry = text

    def _on_model_handed_over(self, event: ev.ModelHandedOver) -> None:
        """A provider handed to litellm: a lasting line, not a passing status note."""
        text = self._clean(event.text or "sending the model's calls through litellm")
        self.print(Text(text.replace("\n", " "), style="dim"))

    def _on_message_delta(self, event: ev.MessageDelta) -> None:
        if not self._stream.text:
            self.status.update(f"receiving from {self._model}")
            self.status.note(None)
        self._stream.feed(event.text)

    def _on_message(self, event: ev.Message) -> None:
        printed, rest = self._end_model_phase(event.text or "")
        if event.final and not self.show_final:
            return
        if printed.strip():  # its first paragraphs were printed as they came
            self.print()
        if rest.strip() or not printed.strip():
            self.print(reply_markdown(rest, event.blocks))

    def _end_model_phase(self, text: str | None = None) -> tuple[str, str]:
        """Erase the preview and the status; returns what of the reply (`text`, else what
        streamed) was printed already, and the rest, both sanitised."""
        stream = self._stream
        printed, rest = stream.printed, stream.rest(stream.text if text is None else text)
        stream.close()
        self.status.stop()
        self._phase, self._retry = "", ""
        return printed, rest

    def _on_turn_completed(self, event: ev.TurnCompleted) -> None:
        usage, cost = event.usage, event.cost
        self.tally.add(usage, cost)
        self.print(Text(reply_line(usage, cost, self.tally), style="dim"))

    def _on_task_finished(self, event: ev.TaskFinished) -> None:
        self.stop()

    def _on_notice(self, event: ev.Notice) -> None:
        text = f"[{event.check}] {event.text}" if event.check else event.text  # whose request
        if self._phase == "model" and not self._stream.text and event.level == "info":
            self.print(Text(self._clean(text), style="cyan"))  # e.g. the tools mode
            return
        if self._phase == "model":  # a reply cut off (stop, error): keep what came
            printed, rest = self._end_model_phase()
            if rest.strip():
                if printed.strip():
                    self.print()
                self.print(markdown(rest))
        style = {"error": "bold red", "warning": "yellow"}.get(event.level, "cyan")
        self.print(Text(self._clean(text), style=style))

    def _on_compacting(self, event: ev.ContextCompacting) -> None:
        self.status.start("compacting the conversation (the model writes a summary)")

    def _on_compacted(self, event: ev.ContextCompacted) -> None:
        self.status.stop()
        self.print(Text(self.scrub(safe_text(compacted_line(event.body()))), style="dim"))

    # -- blocks -------------------------------------------------------------------------
    def _on_block_proposed(self, event: ev.BlockProposed) -> None:
        self.status.stop()
        self.print(code_panel(event.language, self.scrub(event.code), f"block {event.index}"))

    def _on_block_approved(self, event: ev.BlockApproved) -> None:
        if event.edited:
            self.print(code_panel(event.language, self.scrub(event.code), "edited code"))
        self._output = OutputFilter(self._redactor.secrets)
        self._view = self._new_view()
        self._deferred = []
        language = safe_text(str(event.language or "")).replace("\n", " ")
        self.status.start(f"running {language} block {event.index}")

    def _new_view(self) -> OutputView:
        live = self._live_line if self.status.enabled else None
        return OutputView(self._write_output, live)

    def _live_line(self, line: str) -> None:
        view = self._view
        if view is not None and view.collapsed:
            self.status.note(f"{view.hidden:,} lines not shown yet")
        width = self.status.size()[0] - 1
        self.status.preview([fit(line.expandtabs(), width)] if line else [])

    def _on_block_declined(self, event: ev.BlockDeclined) -> None:
        reason = f": {event.reason}" if event.reason else ""
        what, style = ("denied by policy", "red") if event.policy else ("declined", "yellow")
        self.print(Text(self.scrub(safe_text(f"{what}{reason}")), style=style))

    def _on_block_output(self, event: ev.BlockOutput) -> None:
        if self._output is None:
            self._output = OutputFilter(self._redactor.secrets)
        if self._view is None:
            self._view = self._new_view()
        self._view.feed(self._output.feed(event.text))

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
            line = wrapped(line, self.console.width)  # at words; a path is never cut by a newline
            self.print(Text(line, style="dim"), soft_wrap=True)
        if collapsed.tail:
            self._write_output("".join(line + "\n" for line in collapsed.tail))
        return bool(collapsed.left_out and spool_path)

    def _on_block_finished(self, event: ev.BlockFinished) -> None:
        told = self._end_output(event.spool_path)
        self.status.stop()
        deferred, self._deferred = self._deferred, []
        for item in deferred:  # the view is closed now: they are shown
            self.handle(item)
        style = "green" if event.status == "ok" else "red"
        line = f"{'✓' if event.status == 'ok' else '✗'} {event.summary} ({event.duration:.2f} s)"
        if event.truncated and not told:
            line += f"; long output saved to {event.spool_path}"
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

    def _on_block_display(self, event: ev.BlockDisplay) -> None:
        if self._defer(event):
            return
        with self.status.hidden():
            DisplayPainter(self.console, self.scrub, self.image_protocol).show(event.body())

    def _on_block_background(self, event: ev.BlockBackground) -> None:
        if self._defer(event):
            return
        items = [item for item in event.processes or () if isinstance(item, dict)]
        if not items:
            return
        outputs = {item.get("output") for item in items}  # one, said once, when they share it
        named = [f"pid {item.get('pid')} {item.get('command')}"
                 + (f" (output: {item['output']})" if len(outputs) > 1 and item.get("output")
                    else "") for item in items]
        shared = f"; output: {items[0]['output']}" if len(outputs) == 1 and items[0].get(
            "output") else ""
        many = f"{len(items)} processes: " if len(items) > 1 else ""
        line = (f"Left running: {many}{head_tail(named, BACKGROUND_CHARS, ', ')}{shared} "
                f"(/ps lists, /kill stops)")
        self.print(Text(self.scrub(safe_text(line)).replace("\n", " "), style="dim"))

    def _on_block_files(self, event: ev.BlockFiles) -> None:
        if self._defer(event):
            return
        text = event.text
        if not isinstance(text, str) or not text:
            text = files_line(event.body())
        if not text:
            return
        text = self.scrub(safe_text(text[:MAX_FILES_TEXT])).replace("\n", " ")
        self.print(Text(text, style="dim"))
