"""Plain lines for a terminal, wrapped at word boundaries (rich does this for its own output,
but folds a word longer than the line; here such a word, a path, stays whole and the terminal
wraps it, so it copies as one)."""

from __future__ import annotations

import os
import textwrap


def for_terminal(text: str, stream, hang: int | None = None) -> str:
    """`text` wrapped at word boundaries (see `wrapped`) when `stream` is a terminal;
    unchanged otherwise, so that scripts reading a pipe get one line per message."""
    try:
        if not stream.isatty():
            return text
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return text
    return wrapped(text, width, hang)


def wrapped(text: str, width: int, hang: int | None = None) -> str:
    """Each line of `text` longer than `width` wrapped at word boundaries, its continuation
    lines indented as the line itself is or, with `hang`, by that many spaces (where each word
    from that column on fits in what is left of the row; else by 4 more than the line); a word
    longer than a row stays whole."""
    if width < 20:
        return text
    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        if hang is not None:  # the words from that column on must fit under it
            longest = max((len(word) for word in line[hang:].split()), default=0)
            indent = " " * (hang if hang + longest <= width else len(indent) + 4)
        lines.extend(textwrap.wrap(line, width, subsequent_indent=indent,
                                   break_long_words=False, break_on_hyphens=False) or [""])
    return "\n".join(lines)
