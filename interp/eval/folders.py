"""Working folders for benchmark runs whose path is the same on every run."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

OWNER = ".owner"  # beside the folder (FOLDER.owner, out of the code's reach): the pid holding it
UNOWNED_AGE = 60.0  # seconds after which a folder with no owner is taken as left behind


@contextlib.contextmanager
def fixed_folder(name: str) -> Iterator[Path]:
    """A fresh folder named after `name` in the temporary directory, removed afterwards. The
    prompt holds its path (the working directory, the files it names), so a greedy run sees the
    same prompt every time. A folder of that name left by a run that was killed is taken over;
    a second run of the same name at once gets a random suffix."""
    stem = "interp-" + re.sub(r"[^\w.-]+", "-", name).strip("-")
    top = Path(tempfile.gettempdir()) / stem
    if not _claim(top):
        top = Path(tempfile.mkdtemp(prefix=stem + "-"))
    owner = _owner(top)
    try:
        owner.write_text(str(os.getpid()))
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)
        owner.unlink(missing_ok=True)


def _owner(top: Path) -> Path:
    return top.with_name(top.name + OWNER)


def _claim(top: Path) -> bool:
    """Make `top`, first removing it if the run that made it is gone; False when it is held."""
    try:
        top.mkdir(mode=0o700)
        return True
    except FileExistsError:
        if not _left_behind(top):
            return False
    shutil.rmtree(top, ignore_errors=True)
    try:
        top.mkdir(mode=0o700)  # another run may have claimed it in between
    except FileExistsError:
        return False
    return True


def _left_behind(top: Path) -> bool:
    """Whether a folder's owner is no longer running (or, with no owner, it is old)."""
    try:
        pid = int(_owner(top).read_text())
    except (OSError, ValueError):
        try:
            return time.time() - top.stat().st_mtime > UNOWNED_AGE
        except OSError:
            return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, someone else's
        return False
    return False
