"""Plain lines for a terminal, wrapped at word boundaries (rich does this for its own output)."""

from __future__ import annotations

import os
import textwrap


def for_terminal(text: str, stream) -> str:
    """`text` with each line longer than the terminal's width wrapped at word boundaries when
    `stream` is a terminal (a long word, such as a path, stays whole); unchanged otherwise,
    so that scripts reading a pipe get one line per message."""
    try:
        if not stream.isatty():
            return text
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return text
    if width < 20:
        return text
    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip(" "))]
        lines.extend(textwrap.wrap(line, width, subsequent_indent=indent,
                                   break_long_words=False, break_on_hyphens=False) or [""])
    return "\n".join(lines)
