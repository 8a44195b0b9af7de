"""One Python for every language: a folder of `python`, `python3`, `pip` and `pip3` commands that
run the interpreter Python blocks use, put first on the runners' PATH.

So a shell block's `pip install pandas` installs where a Python block imports from, and its
`python script.py` sees the same packages. The commands are two-line sh scripts (not symlinks:
a virtualenv's interpreter finds its packages from the path it is run by), kept in interp's
cache folder, one folder per interpreter, written once.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import tempfile
from functools import cache
from pathlib import Path

from ..cache import cache_folder

COMMANDS = {"python": "", "python3": "", "pip": " -m pip", "pip3": " -m pip"}
SHIM_FOLDER = "python-bin"  # in interp's cache folder


@cache
def shim_folder(python: str) -> str | None:
    """The folder whose commands run `python` (an absolute path), or None where interp's cache
    folder cannot be written or `python` is not an absolute path to a file."""
    if not os.path.isabs(python) or not os.path.isfile(python):
        return None
    key = hashlib.sha256(python.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    folder = cache_folder() / SHIM_FOLDER / key
    try:
        for name, extra in COMMANDS.items():
            _write_script(folder / name, f'#!/bin/sh\nexec {shlex.quote(python)}{extra} "$@"\n')
    except OSError:
        return None
    return os.fspath(folder)


def _write_script(path: Path, text: str) -> None:
    """Write an executable script unless it is there already with that text."""
    with contextlib.suppress(OSError):
        if path.read_text(encoding="utf-8") == text and os.access(path, os.X_OK):
            return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, 0o755)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def path_with(folder: str | None, path: str | None) -> str:
    """PATH with `folder` first (and not repeated further on)."""
    rest = [entry for entry in (path or os.defpath).split(os.pathsep) if entry and entry != folder]
    return os.pathsep.join([folder, *rest] if folder else rest)
