"""Yes/no questions answered with one key, as the approval question is."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from interp.ui.keys import Keys

_HELP = "Press y for yes or n for no (Enter: {default}; Esc: no)."


def ask_yes_no(console: Console, question: str, default: bool = True,
               keys: Keys | None = None) -> bool:
    """Ask `question` with a [Y/n] (or [y/N]) hint and read one key, no Enter: y or n, Enter
    for the default, Esc, Ctrl-D or end of input for no; Ctrl-C raises KeyboardInterrupt.
    Without a terminal on standard input a line is read instead."""
    hint = "[Y/n]" if default else "[y/N]"
    keys = keys if keys is not None else Keys.for_stdin()
    if keys is None:
        return _line_answer(console, f"{question} {hint} ", default)
    while True:
        console.print(Text(f"{question} {hint} "), end="")
        console.file.flush()
        key = keys.read_key()
        answer = {"y": True, "n": False, "enter": default, "esc": False,
                  "ctrl-d": False}.get(key.lower() if len(key) == 1 else key)
        console.print("^C" if key == "ctrl-c" else "yes" if answer else "no" if answer is False
                      else "?")
        if key == "ctrl-c":
            raise KeyboardInterrupt
        if answer is not None:
            return answer
        console.print(Text(_HELP.format(default="yes" if default else "no"), style="dim"))


def _line_answer(console: Console, prompt: str, default: bool) -> bool:
    try:
        answer = console.input(Text(prompt)).strip().lower()
    except EOFError:
        return False
    return default if not answer else answer in ("y", "yes")
