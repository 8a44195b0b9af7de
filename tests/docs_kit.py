"""Reading the user docs the way the tests that keep them in step with the code need: a
page's section under a heading, its headings and their anchors, and its links. Pure text
work: no process, no network, so tests that use it can be marked fast."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# CommonMark: up to three spaces, then ``` (with no backtick after) or ~~~
_FENCE = re.compile(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_CODE_SPAN = re.compile(r"(`+).+?\1")


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = _FENCE.match(line)
        if match:
            mark, rest = match.groups()
            if fence is None:
                fence = mark
                continue
            if mark[0] == fence[0] and len(mark) >= len(fence) and not rest.strip():
                fence = None
                continue
        if fence is None:
            yield number, line


def headings(text: str) -> list[tuple[int, str]]:
    """(level, text) of each Markdown heading, code blocks skipped."""
    found = []
    for _, line in prose_lines(text):
        match = _HEADING.match(line)
        if match:
            found.append((len(match.group(1)), match.group(2)))
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text without Markdown marks, lower case, with
    punctuation other than - and _ dropped and spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a page's headings give, with GitHub's -1, -2 ... for repeated ones."""
    seen: dict[str, int] = {}
    result = set()
    for _, heading in headings(text):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of each inline Markdown link or image outside code."""
    found = []
    for number, line in prose_lines(text):
        for match in _LINK.finditer(_CODE_SPAN.sub("", line)):
            found.append((number, match.group(1)))
    return found


def section(page: Path, heading: str) -> str:
    """The text under the heading `heading` of `page` (exact heading text, any level) up to the
    next heading of the same or a higher level; code blocks neither start nor end it."""
    text = page.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = level = None
    for number, line in prose_lines(text):
        match = _HEADING.match(line)
        if not match:
            continue
        depth = len(match.group(1))
        if start is None:
            if match.group(2) == heading:
                start, level = number, depth
        elif depth <= level:
            return "\n".join(lines[start:number - 1])
    if start is None:
        raise AssertionError(f"{page.relative_to(ROOT)} has no heading {heading!r}")
    return "\n".join(lines[start:])
