"""Pasted terminal sessions in shell blocks: the commands after the `$ ` prompts, nothing else.

A model often writes what it wants run as a terminal transcript (a ```console block, or
`$ ` lines in a ```bash block), output lines included. Rewritten line for line (line numbers
stay those of the block): a prompt line keeps its command, a line continued with `\\` or
`> ` (bash's PS2) and a here-document's body keep theirs, every other line (the output) is
blanked. Only a block whose first non-blank line starts with `$ ` is a paste: `$ ` at the
start of a line is never a command bash could run.
"""

from __future__ import annotations

import re

PROMPT = re.compile(r"^\s*\$( |$)")
_CONTINUED = re.compile(r"^\s*> ?")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w-]*)\1")
CONSOLE_NOTE = ("the block was a pasted terminal session: the commands after its $ prompts ran "
                "and the output lines in it were skipped")


def is_console_paste(code: str) -> bool:
    """Whether the block's first non-blank line starts with a `$ ` prompt."""
    first = next((line for line in code.split("\n") if line.strip()), "")
    return PROMPT.match(first) is not None


def console_commands(code: str) -> str | None:
    """The block with only its commands left (output lines blanked), or None if it is not a
    pasted terminal session."""
    if not is_console_paste(code):
        return None
    out: list[str] = []
    command, heredocs = None, []  # the command being read (None between commands)
    for line in code.split("\n"):
        if heredocs:  # a here-document's body, up to its delimiter line
            body = _CONTINUED.sub("", line, count=1)
            out.append(body)
            if body.strip() == heredocs[0]:
                heredocs.pop(0)
            continue
        prompt = PROMPT.match(line)
        ps2 = _CONTINUED.match(line)
        if prompt:
            kept, command = line[prompt.end():], ""
        elif command is not None and (ps2 or _incomplete(command)):
            kept = line[ps2.end():] if ps2 else line
        else:
            out.append("")
            command = None
            continue
        out.append(kept)
        command += kept + "\n"
        heredocs = [m.group(2) for m in _HEREDOC.finditer(kept)]
    return "\n".join(out)


def _incomplete(command: str) -> bool:
    """Whether bash would go on reading after `command` (a trailing backslash, an open quote)."""
    return command.rstrip("\n").endswith("\\") or _open_quote(command)


def _open_quote(command: str) -> bool:
    """Whether a command line leaves a quote open (bash would go on reading: PS2 lines follow)."""
    quote = None
    escaped = False
    for char in command:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote is None and char in "'\"":
            quote = char
        elif char == quote:
            quote = None
        elif quote is None and char == "#":
            break
    return quote is not None
