"""Working folders for benchmark runs whose path is the same on every run."""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def fixed_folder(name: str) -> Iterator[Path]:
    """A fresh folder named after `name` in the temporary directory, removed afterwards. The
    prompt holds its path (the working directory, the files it names), so a greedy run sees the
    same prompt every time; a second run of the same name at once gets a random suffix."""
    stem = "interp-" + re.sub(r"[^\w.-]+", "-", name).strip("-")
    top = Path(tempfile.gettempdir()) / stem
    try:
        top.mkdir(mode=0o700)
    except FileExistsError:
        top = Path(tempfile.mkdtemp(prefix=stem + "-"))
    try:
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)
