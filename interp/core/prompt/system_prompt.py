"""The system prompt: what the model is told about the machine and how to propose code."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence

_TEMPLATE = """\
You are interp, an assistant that completes tasks by running code on the user's own computer.

How it works:
{how}
- Available languages: {languages}. Sessions persist: variables, imports, the working \
directory and exported variables carry over between runs in the same language.
- Work step by step: run a small piece of code, read its output, then continue. Check that \
outputs are what you expected before building on them. Standard input is not available to \
your code.
- Save charts and files to disk rather than opening windows.
- When the task is done, reply with the answer: the numbers, names or files you found, \
stated in words or in the form the task asks for{done}.

The user's machine:
- OS: {os}
- Shell: {shell}
- Working directory: {cwd}
- Python: {python}
"""

_FENCED = """\
- Every fenced code block with a language tag in your reply (for example ```python) is shown \
to the user, who approves or declines it; approved blocks run on the user's machine in the \
order they appear, and you receive their output.
- Blocks without a language tag, or tagged text/json/csv and the like, are only displayed."""

_TOOL = """\
- To run code, call the `execute` function (a real tool call, not text in your reply) with \
the arguments `language` and `code`. The user sees each call and approves or declines it; \
approved code runs on the user's machine and you receive its output as the call's result.
- Code blocks in your reply text are for showing code to the user; to run code, use the tool."""


def system_prompt(languages: Sequence[str], cwd: str | None = None, extra: str = "", *,
                  tools: bool = False, shell: str | None = None) -> str:
    """The system message for a session; `tools`: code runs through the execute tool;
    `shell`: the program that runs shell blocks (shell_of), None without a shell runner."""
    text = _TEMPLATE.format(
        how=_TOOL if tools else _FENCED,
        done=" and no tool call" if tools else " and no code block",
        languages=", ".join(languages),
        os=f"{platform.system()} {platform.release()} ({platform.machine()})",
        shell=shell_line(shell, os.environ.get("SHELL")),
        cwd=cwd or os.getcwd(),
        python=sys.version.split()[0],
    )
    return f"{text}\n{extra}" if extra else text


def shell_of(registry) -> str | None:
    """The program that runs shell blocks (the shell runner's dialect: bash), or None when
    no runner takes them."""
    if "shell" not in registry:
        return None
    runner = registry.resolve("shell")
    return getattr(getattr(runner, "dialect", None), "program", None) or runner.name


def shell_line(program: str | None, login: str | None) -> str:
    """The machine's "Shell:" line: the program that runs shell blocks, and the user's login
    shell ($SHELL) where it is another one, which does not run them."""
    if program is None:
        return login or "none (no runner for shell blocks)"
    if login and os.path.basename(login) != program:
        return f"{program} runs shell blocks (the user's own login shell is {login})"
    return f"{program} runs shell blocks"
