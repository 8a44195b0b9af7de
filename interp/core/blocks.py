"""One typed record per block: what the model proposed, what ran, and how it ended.

The session builds a BlockRecord for every block of a reply and keeps it on the history entry
that reports the blocks to the model (`Entry.blocks`, interp.core.history: saved in the
session file, never sent); the model's text is rendered from it (interp.core.replies.report) and
exports read it (interp.storage.export), so no one parses the model's text back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from languages import CapturedOutput, Display, Result
from languages.escapes import strip_escapes
from languages.process.background import background_note
from languages.plots import Plot
from languages.records import Outcome, image_paths

RECORD_VERSION = 1
RAN = frozenset({"ok", "error", "interrupted", "timeout", "died"})  # statuses of blocks that ran
FAILED = frozenset({"error", "timeout", "died"})  # of blocks that ran and failed
NOT_RUN = frozenset({"declined", "denied", "skipped"})


@dataclass(frozen=True)
class FileChanges:
    """Files a block created, modified or deleted (relative paths) and the line shown for them."""

    created: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"created": list(self.created), "modified": list(self.modified),
                "deleted": list(self.deleted), "text": self.text}

    @classmethod
    def from_dict(cls, raw: object) -> FileChanges | None:
        """The changes in a stored record, or None when missing or malformed."""
        if not isinstance(raw, Mapping):
            return None
        lists = [_strings(raw.get(k)) for k in ("created", "modified", "deleted")]
        text = raw.get("text")
        return cls(*lists, text=text if isinstance(text, str) else "")


@dataclass(frozen=True, kw_only=True)
class BlockRecord(Outcome):
    """A block of a reply and what became of it.

    `status` is how a block that ran ended ("ok", "error", "interrupted", "timeout", "died")
    or why it did not run ("declined" by the user, "denied" by an approval rule, "skipped":
    not runnable, the turn was stopped, or no result was recorded). `code` is what ran (or was
    proposed); `proposed` is the model's own code when the user edited it. The output fields
    are the runner's bounded capture (escape sequences removed); `spool_path` holds the full
    text when it was cut."""

    index: int
    language: str
    code: str
    proposed: str | None = None
    reason: str | None = None  # the user's reason, the rule, or why it was skipped
    call_id: str | None = None  # the execute tool call it answers, if any
    summary: str = ""  # how it ended, in one line
    background: str = ""  # the processes it left running, bounded (background_note), or ""
    output_head: str = ""
    output_tail: str = ""
    omitted_chars: int = 0
    omitted_lines: int = 0
    total_chars: int = 0
    spool_path: str | None = None
    displays: tuple[Display, ...] = ()  # figures and tables, in the order they were shown
    files: FileChanges | None = None
    duration: float = 0.0
    python: str | None = None  # the interpreter of a failed Python block (install hints)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # unknown stored keys

    @property
    def ran(self) -> bool:
        """True when the block was run (whatever the outcome)."""
        return self.status in RAN

    @property
    def edited(self) -> bool:
        """True when the user changed the code before it ran."""
        return self.proposed is not None

    @property
    def declined(self) -> bool:
        """True when the user declined it."""
        return self.status == "declined"

    @property
    def denied(self) -> bool:
        """True when an approval rule refused it."""
        return self.status == "denied"

    @property
    def figures(self) -> list[str]:
        """Paths of the figures it saved."""
        return image_paths(self.displays)

    @property
    def tables(self) -> list[Display]:
        """The rich values (tables) it showed."""
        return [d for d in self.displays if d.kind == "table"]

    @property
    def plots(self) -> dict[str, Plot]:
        """What each figure file it saved (interp or the code itself) plots, by absolute path."""
        return {d.path: plot for d in self.displays if d.path and (plot := d.plot) is not None}

    @property
    def truncated(self) -> bool:
        """True when part of the output is only in the spool file."""
        return self.omitted_chars > 0

    def captured(self) -> CapturedOutput:
        """The output as the runner's bounded capture."""
        return CapturedOutput(self.output_head, self.output_tail, self.omitted_chars,
                              self.omitted_lines, self.total_chars, self.spool_path)

    @property
    def result(self) -> str:
        """How it ended and what it left running, as the model is told ("ok; left running in
        the background: ...")."""
        return f"{self.summary}; {self.background}" if self.background else self.summary

    def output_text(self) -> str:
        """The bounded output, with a note where part was left out (as the model gets it)."""
        return self.captured().for_model()

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored in the session file (with derived flags for other readers)."""
        data = {"v": RECORD_VERSION, **{k: getattr(self, k) for k in _SCALARS
                                         if k not in _UNSET_LEFT_OUT or getattr(self, k)}}
        data.update(displays=[d.to_dict() for d in self.displays],
                    files=self.files.to_dict() if self.files else None,
                    figures=self.figures, edited=self.edited, declined=self.declined,
                    denied=self.denied)
        return {**self.extra, **data}

    @classmethod
    def from_dict(cls, raw: object) -> BlockRecord | None:
        """The record stored in a session file, or None when it is not one."""
        if not isinstance(raw, Mapping):
            return None
        index, language, code, status = (raw.get(k) for k in ("index", "language", "code",
                                                               "status"))
        if not (_is_int(index) and isinstance(language, str) and isinstance(code, str)
                and isinstance(status, str)):
            return None
        values = {k: raw[k] for k in _SCALARS if k in raw and _fits(k, raw[k])}
        displays = raw.get("displays")
        values["displays"] = tuple(d for d in map(Display.from_dict, displays)
                                   if d is not None) if isinstance(displays, list) else ()
        values["files"] = FileChanges.from_dict(raw.get("files"))
        extra = {k: v for k, v in raw.items() if k not in _KNOWN}
        return cls(**values, extra=extra)


_TYPES: dict[str, tuple[type, ...]] = {
    "index": (int,), "language": (str,), "code": (str,), "status": (str,),
    "proposed": (str, type(None)), "reason": (str, type(None)), "call_id": (str, type(None)),
    "exit_code": (int, type(None)), "error": (str, type(None)), "signal": (str, type(None)),
    "interrupted": (bool,), "timed_out": (bool,), "died": (bool,), "restarted": (bool,),
    "summary": (str,), "background": (str,), "output_head": (str,), "output_tail": (str,),
    "omitted_chars": (int,),
    "omitted_lines": (int,), "total_chars": (int,), "spool_path": (str, type(None)),
    "duration": (int, float), "python": (str, type(None)),
}
_SCALARS = tuple(_TYPES)
_UNSET_LEFT_OUT = frozenset({"background"})  # saved only when set: records keep their old shape
_KNOWN = frozenset({*_SCALARS, "v", "displays", "files", "figures", "edited", "declined",
                    "denied"})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fits(key: str, value: object) -> bool:
    kinds = _TYPES[key]
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


# -- building records -----------------------------------------------------------------------
def ran(index: int, language: str, code: str, result: Result, *, proposed: str | None = None,
        files: FileChanges | None = None, python: str | None = None,
        call_id: str | None = None) -> BlockRecord:
    """The record of a block that ran, from the runner's Result."""
    out = result.output
    head, tail = _clean(out.head, out.tail, out.truncated)
    return BlockRecord(
        index=index, language=language, code=code, status=result.status, proposed=proposed,
        call_id=call_id, exit_code=result.exit_code, error=result.error, signal=result.signal,
        interrupted=result.interrupted, timed_out=result.timed_out, died=result.died,
        restarted=result.restarted, summary=result.summary(),
        background=background_note(result.background) if result.background else "",
        output_head=head,
        output_tail=tail, omitted_chars=out.omitted_chars, omitted_lines=out.omitted_lines,
        total_chars=out.total_chars, spool_path=out.spool_path, displays=result.displays,
        files=files, duration=round(result.duration, 4), python=python)


def not_run(index: int, language: str, code: str, status: str, reason: str | None = None, *,
            call_id: str | None = None) -> BlockRecord:
    """The record of a block that did not run: status "declined", "denied" or "skipped"."""
    if status not in NOT_RUN:
        raise ValueError(f"not a status of a block that did not run: {status!r}")
    return BlockRecord(index=index, language=language, code=code, status=status, reason=reason,
                       call_id=call_id)


def _clean(head: str, tail: str, truncated: bool) -> tuple[str, str]:
    """Head and tail without escape sequences, cleaned as the model's copy is."""
    if not truncated:  # the model's copy cleans the whole text at once
        return strip_escapes(head + tail), ""
    return strip_escapes(head), strip_escapes(tail)


# Where a traceback names the block's own line: Python's `File "<block 3>", line 7`, Node's
# `block-3.js:7`.
_FAILED_LINE = re.compile(r'File "<block (\d+)>", line (\d+)|\bblock-(\d+)\.[cm]?js:(\d+)')
LINE_CHARS = 160  # of a failing line quoted in a note


def failing_line(code: str, output: str, index: int) -> tuple[int, str] | None:
    """(number, text) of the line of block `index` where its traceback (the last one in
    `output`) says it failed, or None (also when that frame is in another block)."""
    found = [(int(a or c), int(b or d)) for a, b, c, d in _FAILED_LINE.findall(output)]
    lines = code.splitlines()
    if not found or found[-1][0] != index:
        return None
    number = found[-1][1]
    text = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    if not text:
        return None
    return number, text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"
