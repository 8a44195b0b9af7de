"""Shared by the checkpoint tests: a folder's entries as they are on disk."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def tree_of(root: Path) -> dict[str, tuple]:
    """Every entry under root: files with their bytes and permission bits, links with their
    target, folders as such (nothing followed)."""
    out = {}
    for path in sorted(root.rglob("*")):
        info = os.lstat(path)
        rel = path.relative_to(root).as_posix()
        if stat.S_ISLNK(info.st_mode):
            out[rel] = ("link", os.readlink(path))
        elif stat.S_ISDIR(info.st_mode):
            out[rel] = ("dir",)
        else:
            out[rel] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return out
