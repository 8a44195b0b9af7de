"""Blocks that only install packages: such a block does not do the task, and one that
installed nothing ("Requirement already satisfied") changed nothing a failed block met."""

from __future__ import annotations

import re

# pip install x, python3 -m pip install x, %pip install x, !pip install x, uv pip install x,
# conda install x, npm install x, npm i x, yarn add x
_INSTALL = re.compile(r"[%!]?(?:sudo\s+)?(?:\S*python[\d.]*\s+-m\s+)?"
                      r"(?:(?:uv\s+)?pip3?|conda|mamba|npm|pnpm|yarn)\s+(?:install|add|i)\b")
_MORE = re.compile(r"[;|]|&&")  # a line that runs more than the install
_NOTHING = re.compile(r"^Requirement already satisfied:", re.MULTILINE)
_INSTALLED = re.compile(r"^Successfully installed\b", re.MULTILINE)
INSTALLED_NEXT = ("That block only installed packages, which does not do the task: now run the "
                  "code that does it.")
NOTHING_INSTALLED = ("That block installed nothing: the packages were already installed, so "
                     "the earlier error was not a missing package. Read that error's note, "
                     "change the code, and run it.")


def only_installs(language: str, code: str) -> bool:
    """Whether every line of a shell block, or of a Python block's magics, installs
    packages (comments and blank lines aside)."""
    if language not in ("shell", "bash", "sh", "zsh", "python"):
        return False
    lines = [line.strip() for line in code.splitlines()
             if line.strip() and not line.strip().startswith("#")]
    if language == "python" and not all(line.startswith(("%", "!")) for line in lines):
        return False
    return bool(lines) and all(_INSTALL.match(line) and not _MORE.search(line) for line in lines)


def installed_nothing(output: str) -> bool:
    """Whether pip's output says every package was already there."""
    return bool(_NOTHING.search(output)) and not _INSTALLED.search(output)


def after_installs(records) -> str | None:
    """The ask after a reply whose blocks (that ran) only installed packages, or None."""
    ran = [record for record in records if record.ran]
    if not ran or not all(only_installs(r.language, r.code) for r in ran):
        return None
    return (NOTHING_INSTALLED if all(installed_nothing(r.output_text()) for r in ran)
            else INSTALLED_NEXT)
