"""Output handling: incremental decoding, bounded capture, spooling and cleaning for the model."""

from __future__ import annotations

import codecs
import os
import re

from ..records import CapturedOutput, whole_lines_head, whole_lines_tail

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_surrogates(text: str) -> str:
    """text with every lone surrogate (an undecodable byte kept by `surrogateescape`, a
    `\\ud800` JSON escape) replaced by U+FFFD, and split surrogate pairs joined: safe to encode."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def encode_code(text: str) -> bytes:
    """UTF-8 bytes of a code file: bytes kept by `surrogateescape` come back as they were,
    other lone surrogates become U+FFFD."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return clean_surrogates(text).encode("utf-8")


class StreamDecoder:
    """Incremental UTF-8 decoder that never fails and turns CRLF into LF."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._held_cr = False

    def feed(self, data: bytes, final: bool = False) -> str:
        """Decode a chunk; a trailing CR is held back until the next chunk."""
        text = self._decoder.decode(data, final)
        if self._held_cr:
            text = "\r" + text
            self._held_cr = False
        if text.endswith("\r") and not final:
            text = text[:-1]
            self._held_cr = True
        return text.replace("\r\n", "\n") if "\r" in text else text  # `in` is a fast scan


class OutputCapture:
    """Keeps the first and last characters of a stream and spools all of it once it grows."""

    def __init__(self, spool_path: str | os.PathLike, head_chars: int = 8000,
                 tail_chars: int = 8000) -> None:
        self._spool_path = os.fspath(spool_path)
        self._head_limit = head_chars
        self._tail_limit = tail_chars
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self._total = 0
        self._lines = 0
        self._file = None

    def feed(self, text: str) -> None:
        """Add decoded text."""
        if not text:
            return
        self._total += len(text)
        self._lines += text.count("\n")
        if self._file is None and self._total > self._head_limit + self._tail_limit:
            self._open_spool()
        if self._file is not None:
            self._file.write(text)
        room = self._head_limit - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if text and self._tail_limit:  # one character more than the tail: does the tail start a line?
            keep = self._tail_limit + 1
            self._tail = text[-keep:] if len(text) >= keep else (self._tail + text)[-keep:]

    def _open_spool(self) -> None:
        os.makedirs(os.path.dirname(self._spool_path), exist_ok=True)
        self._file = open(self._spool_path, "w", encoding="utf-8", errors="replace", newline="")
        self._file.write("".join(self._head) + self._tail)

    def finish(self) -> CapturedOutput:
        """Close the spool file and describe what was captured. When output was left out,
        the head ends and the tail starts at a line boundary (unless that would drop more
        than half of either: one very long line is cut where the limit falls)."""
        head, tail = "".join(self._head), self._tail
        before = head[-1:]
        if len(tail) > self._tail_limit:
            before, tail = tail[:1], tail[1:]
        spool = None
        if self._file is not None:
            self._file.close()
            spool = self._spool_path
        if self._total > len(head) + len(tail):
            head, tail = whole_lines_head(head), whole_lines_tail(tail, before not in ("", "\n"))
        omitted = self._total - len(head) - len(tail)
        omitted_lines = max(0, self._lines - head.count("\n") - tail.count("\n"))
        return CapturedOutput(head, tail, omitted, omitted_lines if omitted else 0,
                              self._total, spool)


def spool_path(spool_dir: str | None, workdir: str | os.PathLike, runs: int, block: int | None,
               owner: str) -> str:
    """Where a run's long output is spooled: `spool_dir` (kept with the session), named by the
    block, or else the runner's `workdir` (removed with it); `owner` names unnumbered runs.
    (Plain strings: this is asked before every block, and only a long output uses it.)"""
    if spool_dir is None:
        return os.path.join(workdir, f"output-{runs}.log")
    name = f"block-{block}-output.txt" if block is not None else f"{owner}-{runs}-output.txt"
    return os.path.join(spool_dir, name)
