"""Extract fenced markdown code blocks from (possibly messy or partial) model text.

Follows the CommonMark fenced-code-block rules where they matter for an agent:

* An opening fence is 3+ backticks or 3+ tildes, indented by at most 3 spaces.
  The rest of the line is the *info string*; its first word is the language.
  A backtick fence whose info string contains a backtick is not a fence, so
  inline spans such as ```` ```x``` ```` never open a block.
* The closing fence uses the same character, is at least as long as the
  opening one and carries nothing but trailing whitespace.  Shorter or
  different fence-like lines are ordinary code, which is how a ```` ```` ````
  fence can contain ``` lines.
* Content lines lose up to as many leading spaces as the opening fence had.
* A fence that is never closed runs to the end of the text (``closed=False``).
* ``\\r\\n`` and ``\\n`` both end a line; ``code`` always uses ``\\n``.

Deliberate leniencies for model output (CommonMark would differ):

* Inside a list item a fence may be indented up to 3 spaces past the item's
  content column (``"  - step:\\n    ```bash"``), and may sit on the marker
  line itself (``"1. ```bash"``).  Its closing fence is accepted at any indent
  up to 3 spaces past that content column, even if it is under-indented.
* Blockquotes (``> ```py``) and HTML blocks are not interpreted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CodeBlock", "canonical_tag", "fence", "parse_blocks", "split_text"]

_FENCE = re.compile(r"( *)(`{3,}|~{3,})(.*)")
_CLOSE = re.compile(r"( *)(`{3,}|~{3,})[ \t]*")
_LIST = re.compile(r"( *)([-*+]|\d{1,9}[.)])( +|$)")
_TAG = re.compile(r"[\s{\[(.]*([\w+#.-]*)")

# (start offset, end offset including the line terminator, body without it)
_Line = tuple[int, int, str]
# (indent of a non-blank text line, content column if it is a list item)
_Ctx = list[tuple[int, int | None]]


@dataclass(frozen=True)
class CodeBlock:
    """One fenced code block found in model text."""

    language: str  # canonical_tag() of the info string; "" if none
    code: str  # content lines joined with "\n", fence indentation removed
    closed: bool  # False if the text ended before a closing fence
    start: int  # offset of the opening fence line (after a list marker on it)
    end: int  # offset just past the closing fence line and its line ending
    info: str = ""  # full info string as written, stripped, e.g. 'js title="x"'


def canonical_tag(tag: str) -> str:
    """Return the first clean lower-case token of a fence tag ("{.Python}" -> "python")."""
    # Only cleans syntax ("Python", "{.py}", "python:main.py", "js title=x");
    # aliases such as py3 -> python are the runner registry's job.
    match = _TAG.match(tag.lower())
    return match.group(1).rstrip(".-") if match else ""


def parse_blocks(text: str) -> list[CodeBlock]:
    """Return the fenced code blocks of ``text`` in order of appearance."""
    lines = _split_lines(text)
    blocks: list[CodeBlock] = []
    context: _Ctx = []
    i = 0
    while i < len(lines):
        line_start, _, body = lines[i]
        opener = _opening(body, context)
        _track(context, body)
        if opener is None:
            i += 1
            continue
        skip, indent, base, fence, info = opener
        content: list[str] = []
        j = i + 1
        while j < len(lines) and not _closes(lines[j][2], fence, base + 3):
            content.append(_dedent(lines[j][2], indent))
            j += 1
        closed = j < len(lines)
        blocks.append(
            CodeBlock(
                language=canonical_tag(info),
                code="\n".join(content),
                closed=closed,
                start=line_start + skip,
                end=lines[j][1] if closed else len(text),
                info=info,
            )
        )
        i = j + 1
    return blocks


def split_text(text: str) -> list[str | CodeBlock]:
    """Split ``text`` into non-empty prose strings interleaved with its code blocks."""
    parts: list[str | CodeBlock] = []
    pos = 0
    for block in parse_blocks(text):
        if block.start > pos:
            parts.append(text[pos : block.start])
        parts.append(block)
        pos = block.end
    if pos < len(text):
        parts.append(text[pos:])
    return parts


def _split_lines(text: str) -> list[_Line]:
    """Split text into (start, end, body) lines; body drops the \\n or \\r\\n."""
    lines: list[_Line] = []
    pos = 0
    while pos < len(text):
        newline = text.find("\n", pos)
        end = len(text) if newline < 0 else newline + 1
        body = text[pos:end].removesuffix("\n").removesuffix("\r")
        lines.append((pos, end, body))
        pos = end
    return lines


def _opening(body: str, context: _Ctx) -> tuple[int, int, int, str, str] | None:
    """Parse an opening fence as (skip, indent, base, fence, info), else None."""
    skip = base = 0
    item = _LIST.match(body)
    if item and _FENCE.fullmatch(body, _item_column(item)):
        skip = base = _item_column(item)  # fence on the marker line: "1. ```sh"
    match = _FENCE.fullmatch(body, skip)
    if match is None:
        return None
    indent = skip + len(match.group(1))
    if not skip:
        base = _list_column(indent, context) or 0
    if indent - base > 3:
        return None
    fence, info = match.group(2), match.group(3).strip()
    if fence[0] == "`" and "`" in info:
        return None
    return skip, indent, base, fence, info


def _closes(body: str, fence: str, max_indent: int) -> bool:
    """Tell whether ``body`` is a closing fence for ``fence``."""
    match = _CLOSE.fullmatch(body)
    if match is None or len(match.group(1)) > max_indent:
        return False
    run = match.group(2)
    return run[0] == fence[0] and len(run) >= len(fence)


def _item_column(item: re.Match[str]) -> int:
    """Return the content column of a list item matched by _LIST."""
    marker_end = item.end(2)
    spaces = len(item.group(3))
    return marker_end + (spaces if 1 <= spaces <= 4 else 1)


def _list_column(indent: int, context: _Ctx) -> int | None:
    """Return the content column of the list item enclosing a line at ``indent``."""
    for line_indent, column in reversed(context):
        if line_indent < indent and column is not None and column <= indent:
            return column
    return None


def _track(context: _Ctx, body: str) -> None:
    """Record a prose line's indentation (and list column) for list-aware fences."""
    if not body.strip():
        return
    indent = len(body) - len(body.lstrip(" "))
    while context and context[-1][0] >= indent:
        context.pop()
    item = _LIST.match(body)
    context.append((indent, _item_column(item) if item else None))


def _dedent(body: str, indent: int) -> str:
    """Remove up to ``indent`` leading spaces from a content line."""
    stripped = body.lstrip(" ")
    removed = min(indent, len(body) - len(stripped))
    return body[removed:]


def fence(text: str, language: str = "", *, shortest: int = 3) -> str:
    """text in a backtick fence longer than any run of backticks inside it (and `shortest` long
    at least), so that nothing in text can close it."""
    ticks = "`" * max(shortest, max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{ticks}{language}\n{text}\n{ticks}"
