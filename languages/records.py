"""Typed records that a runner yields while it runs a block, and the output a Result carries."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .escapes import strip_escapes
from .plots import Plot, plot_of


@dataclass(frozen=True)
class CapturedOutput:
    """What a block printed: the head and tail kept in memory, and the full text's spool file."""

    head: str
    tail: str
    omitted_chars: int
    omitted_lines: int
    total_chars: int
    spool_path: str | None

    @property
    def truncated(self) -> bool:
        """True when part of the output is only in the spool file."""
        return self.omitted_chars > 0

    @property
    def text(self) -> str:
        """Head and tail joined, with no marker (the full text when nothing was cut)."""
        return self.head + self.tail

    def within(self, chars: int | None) -> CapturedOutput:
        """This output with at most `chars` of its characters kept, half from its start and
        half from its end (at line ends, as the capture cuts), the rest counted as omitted:
        the full text stays where it was (the spool file, the block's record). None: as is."""
        if chars is None or len(self.head) + len(self.tail) <= chars:
            return self
        keep = max(chars // 2, 1)
        start, end = (self.head, self.tail) if self.truncated else (self.text, self.text)
        head = whole_lines_head(start[:keep])
        tail = whole_lines_tail(end[-keep:], end[-keep - 1:-keep] not in ("", "\n"))
        lines = self.omitted_lines + self.text.count("\n")
        return CapturedOutput(head, tail, self.total_chars - len(head) - len(tail),
                              max(0, lines - head.count("\n") - tail.count("\n")),
                              self.total_chars, self.spool_path)

    def for_model(self, chars: int | None = None) -> str:
        """A bounded, escape-free copy, at most `chars` characters of the output (None: what
        the capture kept), with a note on what was left out."""
        if chars is not None:
            return self.within(chars).for_model()
        if not self.truncated:
            return strip_escapes(self.head + self.tail)
        where = f"; full output in {self.spool_path}" if self.spool_path else ""
        note = (f"\n[... {self.omitted_chars} characters ({self.omitted_lines} lines) "
                f"omitted{where} ...]\n")
        return strip_escapes(self.head).rstrip("\n") + note + strip_escapes(self.tail)


def whole_lines_head(head: str) -> str:
    """head up to its last line end, unless that line end is in its first half."""
    cut = head.rfind("\n")
    return head if head.endswith("\n") or cut < len(head) // 2 else head[:cut + 1]


def whole_lines_tail(tail: str, cut: bool) -> str:
    """tail from the start of its first whole line (`cut`: it starts inside a line), unless
    that is past its first half."""
    start = tail.find("\n") if cut else -1
    return tail if start < 0 or start >= len(tail) // 2 else tail[start + 1:]


@dataclass(frozen=True)
class Output:
    """A piece of text the block printed (stdout and stderr share the terminal)."""

    text: str


@dataclass(frozen=True)
class Display:
    """Something the block showed besides its text: a saved figure or a rich value.

    kind "image": `path` is the absolute path of a PNG file; `data` is {"format": "png",
    "mime": "image/png", "width", "height", "figure", "plot"} and `text` is "[figure saved: PATH]".
    kind "plot": a figure the code saved itself (savefig): `path` is the file, `data` is
    {"plot"}, `text` is empty (the model is told of the file as of any other). "plot" is the
    bounded summary of what the figure shows; read it with `.plot`.
    kind "table": `text` is a bounded plain-text form (what the model is given); `data` is a
    bounded table for the renderer, or None when the value has no 2-D layout (draw `text`):
    {"type": "DataFrame" | "Series" | "ndarray", "shape": full shape, "columns": [str],
    "dtypes": [str] (one per column), "index": [str] (one per row), "rows": [[str]],
    "row_gap" / "col_gap": position before which rows / columns were left out, or None},
    plus "index_names" (pandas), "name" (Series) or "dtype" (ndarray).
    """

    kind: str  # "image" | "table" | "plot"
    text: str
    path: str | None = None
    data: dict[str, Any] | None = field(default=None, hash=False)

    @property
    def plot(self) -> Plot | None:
        """What the figure plots (kinds, titles, labels, data), for a saved figure."""
        return plot_of(self.data)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (for --json and exports)."""
        return {"kind": self.kind, "text": self.text, "path": self.path, "data": self.data}

    @classmethod
    def from_dict(cls, raw: object) -> Display | None:
        """The Display a driver sent, or None when it is malformed."""
        if not isinstance(raw, Mapping):
            return None
        kind, text, path, data = (raw.get(k) for k in ("kind", "text", "path", "data"))
        if not (isinstance(kind, str) and isinstance(text, str)):
            return None
        if path is not None and not isinstance(path, str):
            return None
        return cls(kind, text, path, dict(data) if isinstance(data, Mapping) else None)


def image_paths(displays) -> list[str]:
    """The files of the figures among `displays` (shown as images), in order."""
    return [d.path for d in displays if d.kind == "image" and d.path]


READ_EOF = ("a read of its standard input got end of input, so the value read is empty: "
            "nothing can be typed into a block; give the input another way (a value in the "
            "code, an argument, a file, a here-string or a pipe)")


def parse_displays(status: Mapping[str, Any] | None) -> tuple[Display, ...]:
    """The well-formed displays listed in a driver's status line."""
    raw = status.get("displays") if isinstance(status, Mapping) else None
    if not isinstance(raw, list):
        return ()
    return tuple(d for d in map(Display.from_dict, raw) if d is not None)


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """How a block's run ended, declared once: a runner's Result, interp's BlockRecord and the
    block.finished event are each an Outcome with more fields."""

    status: str  # "ok" | "error" | "interrupted" | "timeout" | "died" (a record: or why not run)
    exit_code: int | None = None
    error: str | None = None
    signal: str | None = None
    interrupted: bool = False
    timed_out: bool = False
    died: bool = False
    restarted: bool = False


@dataclass(frozen=True, kw_only=True)
class Result(Outcome):
    """The last event of every run: how the block ended, its output and what it showed."""

    output: CapturedOutput
    duration: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)
    displays: tuple[Display, ...] = field(default_factory=tuple)
    waiting_input: bool = False  # stopped because it sat reading the terminal (process/tty_wait.py)
    read_eof: bool = False  # a read of its standard input got end of input (nothing is typed in)
    background: tuple = ()  # background.BackgroundProcess: processes the block left running

    @property
    def ok(self) -> bool:
        """True when the block ran to the end without an error."""
        return self.status == "ok"

    @property
    def state_lost(self) -> bool:
        """True when the process was replaced, so earlier variables are gone."""
        return self.died or self.restarted

    def model_text(self, chars: int | None = None) -> str:
        """The bounded output for the model (at most `chars` characters of it; None: what the
        capture kept) followed by the text of each display, in order."""
        text = self.output.for_model(chars)
        shown = [strip_escapes(d.text) for d in self.displays if d.text]
        if not shown:
            return text
        if text and not text.endswith("\n"):
            text += "\n"
        return text + "\n".join(shown) + "\n"

    def summary(self) -> str:
        """One line that says how the block ended."""
        parts = [self._headline()]
        if self.restarted:
            parts.append("the runner was restarted; variables and other state were lost")
        parts.extend(self.notes)
        return "; ".join(parts)

    def _headline(self) -> str:
        if self.waiting_input:
            return "stopped: it was waiting for keyboard input"
        if self.timed_out:
            return "timed out and was stopped"
        if self.interrupted:
            return "interrupted"
        if self.died:
            if self.signal is None and self.exit_code is None:  # e.g. a kernel on a gateway
                return "the process died"
            how = f"killed by {self.signal}" if self.signal else f"exited with status {self.exit_code}"
            return f"the process {how}"
        if self.read_eof:
            return READ_EOF + (f"; exit status {self.exit_code}" if self.exit_code else "")
        if self.status == "error":
            if self.error:
                return f"error: {self.error}"
            return f"exit status {self.exit_code}"
        return "ok" if self.exit_code in (None, 0) else f"exit status {self.exit_code}"


Event = Output | Display | Result
