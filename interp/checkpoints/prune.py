"""Dropping the checkpoints of conversations that are gone.

interp never deletes a saved conversation; the person may. At most once a day (when a
session first records a checkpoint), the refs of conversations whose session file is gone
are deleted from that folder's shadow repository and `git prune` is started in the
background to free their objects; the repositories of other folders that keep nothing of an
existing conversation and were not used for a day are deleted whole.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from interp.checkpoints.shadow import CheckpointError, Shadow

PRUNE_EVERY = 24 * 3600.0  # seconds between two prunes
IDLE = 24 * 3600.0  # a repository untouched this long, for conversations all gone, is deleted


def prune_if_due(shadow: Shadow, sessions: Path, now: float | None = None
                 ) -> subprocess.Popen | None:
    """Prune when a day has passed since the last prune; returns `git prune` if started."""
    now = time.time() if now is None else now
    stamp = shadow.base / "pruned"
    try:
        if now - stamp.stat().st_mtime < PRUNE_EVERY:
            return None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        stamp.touch()
        os.utime(stamp, (now, now))
    except OSError:
        return None
    return prune(shadow, sessions, now)


def prune(shadow: Shadow, sessions: Path, now: float) -> subprocess.Popen | None:
    """Drop what conversations that are gone kept; returns `git prune` if started."""
    def gone(sid: str) -> bool:
        return not (sessions / f"{sid}.jsonl").exists()

    _drop_other_repositories(shadow, gone, now)
    for index in shadow.dir.glob("index-*"):
        if gone(index.name[len("index-"):]) and now - _mtime(index) > IDLE:
            index.unlink(missing_ok=True)
    try:
        dropped = [name for name in shadow.refs() if gone(name.partition("/")[0])]
        shadow.drop_refs(dropped)
        return shadow.start_prune() if dropped else None
    except (CheckpointError, OSError):
        return None


def _drop_other_repositories(shadow: Shadow, gone, now: float) -> None:
    try:
        repositories = [p for p in shadow.base.iterdir() if (p / "HEAD").is_file()]
    except OSError:
        return
    for repo in repositories:
        if repo == shadow.dir or (repo / "packed-refs").exists():
            continue  # packed refs are not read here: leave the repository be
        kept = repo / "refs" / "interp"
        try:
            sids = [p.name for p in kept.iterdir()] if kept.is_dir() else []
        except OSError:
            continue
        recent = max([_mtime(repo), _mtime(kept), *(_mtime(p) for p in repo.glob("index*"))])
        if all(gone(sid) for sid in sids) and now - recent > IDLE:
            shutil.rmtree(repo, ignore_errors=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
