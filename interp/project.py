"""The project a working folder belongs to: its root is the nearest folder at or above it with
a `.git`, else the working folder alone. AGENTS.md files and skills are looked for in the
folders from that root down to the working folder."""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_MARKERS = (".git",)


def project_root(cwd: str | os.PathLike) -> Path | None:
    """The nearest folder at or above `cwd` with a project marker (.git), or None."""
    cwd = Path(os.path.abspath(cwd))
    for folder in (cwd, *cwd.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return None


def project_folders(cwd: str | os.PathLike) -> list[Path]:
    """The folders from the project root (or `cwd` alone, outside a project) down to `cwd`."""
    cwd = Path(os.path.abspath(cwd))
    root = project_root(cwd) or cwd
    folders = [cwd, *cwd.parents]
    return list(reversed(folders[:folders.index(root) + 1]))


def home_shown(path: str, home: str | None = None) -> str:
    """`path` with the home folder (`home`, default the user's) shown as ~."""
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home):]
    return path
