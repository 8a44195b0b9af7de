"""Run instructions in a reply: "save the code above as dedupe.py, then run `python dedupe.py`".

Small models often end a reply that way. interp has already run the Python block, and the
file was never written, so running the instruction only fails, and the failure (the last
block) hides the output that answered the task.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

# `python3 NAME.py [args]`, `node NAME.js [args]`, one line, as a shell block
_RUN_FILE = re.compile(r"^(?:python3?|node)\s+(?P<file>[^\s;&|<>]+\.(?P<ext>py|js))(?:\s[^;&|<>]*)?$")
_LANGUAGE = {"py": "python", "js": "javascript"}


def unwritten_script(language: str, code: str, root: str | Path,
                     ran_before: set[str]) -> str | None:
    """Why a shell block that only runs a script file is not run, or None to run it: the file
    does not exist and a block of the script's language already ran in this reply."""
    match = _RUN_FILE.match(code.strip()) if language in ("shell", "bash", "sh") else None
    if match is None or _LANGUAGE[match["ext"]] not in ran_before:
        return None
    try:
        name = shlex.split(match["file"])[0]
    except ValueError:
        return None
    if (Path(root) / name).exists():
        return None
    kind = _LANGUAGE[match["ext"]]
    return (f"Not run: `{code.strip()}` runs {name}, which does not exist, and your {kind} "
            f"block above has already run: code blocks run as they are in this session, so "
            f"there is no need to save them to a file first.")
