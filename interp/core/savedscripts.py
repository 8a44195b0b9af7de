"""Script files and the blocks that stand for them. Run instructions in a reply: "save the
code above as dedupe.py, then run `python dedupe.py`": small models often end a reply that way.
interp has already run the Python block, and the file was never written, so running the
instruction only fails, and the failure (the last block) hides the output that answered the
task. And the reverse: asked to fix report.py, a small model runs its fixed copy as a block,
and report.py itself never changes.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from interp.core.bounded import read_at_most

# `python3 NAME.py [args]`, `node NAME.js [args]`, one line, as a shell block
_RUN_FILE = re.compile(r"^(?:python3?|node)\s+(?P<file>[^\s;&|<>]+\.(?P<ext>py|js))(?:\s[^;&|<>]*)?$")
# How a script file of each kind is run from the shell.
RUN_WITH = {".py": "python3", ".js": "node", ".mjs": "node", ".cjs": "node", ".sh": "bash"}
SCRIPT_LANGUAGE = {".py": "python", ".js": "javascript", ".mjs": "javascript",
                   ".cjs": "javascript", ".sh": "shell"}  # the runner a script's code is for
MIN_LINES = 3  # a file shorter than this is not recognised in a block
SCRIPT_BYTES = 1024 * 1024  # a larger script is not read, kept or compared
# A task that asks to change a file it names: "Fix report.py so that...", "update clean.py".
_FIXES = re.compile(r"\b(?:fix|repair|correct|debug|patch|edit|change|update|modify)(?:es|ed|s)?\b",
                    re.IGNORECASE)


def unwritten_script(language: str, code: str, root: str | Path,
                     ran_before: set[str]) -> str | None:
    """Why a shell block that only runs a script file is not run, or None to run it: the file
    does not exist and a block of the script's language already ran in this reply."""
    match = _RUN_FILE.match(code.strip()) if language in ("shell", "bash", "sh") else None
    if match is None or SCRIPT_LANGUAGE["." + match["ext"]] not in ran_before:
        return None
    try:
        name = shlex.split(match["file"])[0]
    except ValueError:
        return None
    if (Path(root) / name).exists():
        return None
    kind = SCRIPT_LANGUAGE["." + match["ext"]]
    return (f"Not run: `{code.strip()}` runs {name}, which does not exist, and your {kind} "
            f"block above has already run: code blocks run as they are in this session, so "
            f"there is no need to save them to a file first.")


def heredoc(name: str) -> str:
    """How to save a script file from a shell block, said to the model: a here-document
    never needs the code's quotes escaped, which small models get wrong."""
    return f"a ```bash block with `cat > {name} <<'EOF'`, the code, then `EOF`"


def run_line(name: str) -> str:
    """The shell line that runs a script file, or "" for a file that is no script."""
    program = RUN_WITH.get(Path(name).suffix.lower())
    return f"{program} {shlex.quote(name)}" if program else ""


def copied_script(code: str, names: list[str], root: str | Path,
                  changed: set[str]) -> str | None:
    """A note when a block that ran holds most of the lines of a script the task names
    (`names`), and that file is not among the files the block changed (`changed`): the fixed
    copy ran in the session, the file itself did not change."""
    lines = _lines(code)
    for name in names:
        if not run_line(name) or name in changed:
            continue
        try:
            text = read_at_most(Path(root) / name, SCRIPT_BYTES).decode("utf-8", "replace")
        except OSError:  # TooLarge too
            continue
        if _holds_most(lines, text):
            return (f"Note: this code ran in the session, and {name} itself is unchanged. If "
                    f"the task is to change {name}, save the new code to it ({heredoc(name)}) "
                    f"and run it with `{run_line(name)}`.")
    return None


def saved_copy(language: str, code: str, scripts: dict[str, bytes]) -> tuple[str, str] | None:
    """(name, shell code) for a block that holds most lines of a script of `scripts` (as
    they were when the task began), in its language: the shell code saves the block to the
    file with a here-document and runs it. None for any other block."""
    lines = _lines(code)
    end = next((word for word in ("EOF", "INTERP_EOF", "END_OF_SCRIPT") if word not in lines),
               None)
    for name, before in scripts.items():
        if end is None or SCRIPT_LANGUAGE.get(Path(name).suffix.lower()) != language:
            continue
        if _holds_most(lines, before.decode("utf-8", "replace")):
            body = code.rstrip("\n")
            return name, (f"cat > {shlex.quote(name)} <<'{end}'\n{body}\n{end}\n"
                          f"{run_line(name)}")
    return None


def _lines(code: str) -> set[str]:
    return {line.strip() for line in code.splitlines() if line.strip()}


def _holds_most(lines: set[str], script: str) -> bool:
    """Whether a block's `lines` hold most lines of `script` (one of at least MIN_LINES)."""
    wanted = _lines(script)
    return len(wanted) >= MIN_LINES and len(wanted & lines) * 2 >= len(wanted)


def scripts_to_fix(task: str, names: list[str], root: str | Path) -> dict[str, bytes]:
    """The scripts among `names` (files the task names that exist) with their contents, when
    the task asks to fix or change something ("report.py crashes: fix it")."""
    if not _FIXES.search(task):
        return {}
    kept = {}
    for name in names:
        try:
            if run_line(name):
                kept[name] = read_at_most(Path(root) / name, SCRIPT_BYTES)
        except OSError:  # TooLarge too
            continue
    return kept


def unchanged_scripts(scripts: dict[str, bytes], root: str | Path) -> list[str]:
    """The scripts of `scripts_to_fix` that still hold what they held when the task began."""
    same = []
    for name, before in scripts.items():
        try:
            if read_at_most(Path(root) / name, len(before)) == before:
                same.append(name)
        except OSError:  # TooLarge: it grew
            continue
    return same
