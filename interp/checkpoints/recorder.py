"""The checkpoints of a session: the working folder's state before and after each block.

The session calls `prepare` when a block is proposed (the first time: checks that git is
there and the folder can be recorded, then starts `git add` while the person reads the
block), `before_block` right before the block runs and `after_block` right after, each with
the file snapshot the block's report takes anyway (interp.core.files.workspace). When a snapshot
shows nothing changed since the last state, that state is used again and git is not run, so
an unchanged folder costs a comparison. Each state is written to the saved conversation as
a `checkpoint` event line and kept by a ref in the shadow repository. Nothing here raises:
each problem is one line for the person, and the block runs regardless. The machinery is
imported at the first block, not when a session starts.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from interp.core.files import workspace

if TYPE_CHECKING:
    from interp.checkpoints.capture import Capturer, State

TIME_BOUND = 2.0  # seconds a block waits at most for its checkpoint (README: Checkpoints)
SLOW_LIMIT = 3  # checkpoints skipped for time in a row before they are off for the session
EVENT = "checkpoint"  # the session file's event kind for a Mark


@dataclass
class _Last:
    snap: workspace.Snapshot
    state: State


class Checkpoints:
    """Checkpoints of `folder` kept under `base` (DATA_DIR/checkpoints) for one session whose
    file is in `sessions` (the saved conversations, for pruning); `max_file_bytes`: the size
    bound (default capture.MAX_FILE_BYTES)."""

    def __init__(self, base: Path, folder: str, sessions: Path, *,
                 max_file_bytes: int | None = None, time_bound: float = TIME_BOUND,
                 git: str | None = None) -> None:
        self.base = Path(base)
        self.sessions = Path(sessions)
        self.folder = os.path.realpath(folder)
        self.max_file_bytes = max_file_bytes
        self.time_bound = time_bound
        self._git = git
        self._capturer: Capturer | None = None
        self._off: str | None = None  # why checkpoints are off, once they are
        self._off_told = False
        self._last: _Last | None = None
        self._kept: set[tuple[str, str]] = set()  # (session id, tree) already kept by a ref
        self._told: set[tuple[str, str]] = set()  # (kind, path) already named to the person
        self._remote: set[str] = set()  # languages told that they are not covered
        self._uncovered: int | None = None  # the block whose checkpoints are not taken
        self._slow = 0
        self._pruning = None  # a `git prune` started in the background

    @property
    def off(self) -> str | None:
        """Why checkpoints are off in this session, or None while they are on."""
        return self._off

    # -- the session's hooks -------------------------------------------------------------
    def prepare(self, session) -> list[str]:
        """A block was proposed: the first time, check and start recording ahead."""
        if self._capturer is None and self._off is None:
            self._start(session)
            if self._capturer is not None:  # big files are left out of this one too
                self._capturer.warm(workspace.snapshot(self.folder))
        return self._off_notice()

    def before_block(self, session, index: int, language: str,
                     snap: workspace.Snapshot | None) -> list[str]:
        """Record the folder before block `index` runs; returns lines for the person."""
        notes = self.prepare(session)
        self._uncovered = None
        if self._off is not None:
            return notes
        if _remote(session, language):
            self._uncovered = index
            self._record(session, index, "before", None, "it ran on a Jupyter gateway",
                         language)
            if language in self._remote:
                return notes
            self._remote.add(language)
            return notes + [f"{language} blocks run on a Jupyter gateway: what they do to files "
                            f"there is not checkpointed (/rewind cannot undo it)."]
        return notes + self._take(session, index, "before", snap, language)

    def after_block(self, session, index: int, snap: workspace.Snapshot | None) -> list[str]:
        """Record the folder after block `index` ran."""
        if self._off is not None or self._uncovered == index:
            return []
        return self._take(session, index, "after", snap)

    def close(self) -> None:
        """Stop a snapshot still running in the background."""
        if self._capturer is not None:
            self._capturer.close()

    # -- inside ---------------------------------------------------------------------------
    def _start(self, session) -> None:
        from interp.checkpoints.capture import MAX_FILE_BYTES, Capturer
        from interp.checkpoints.prune import prune_if_due
        from interp.checkpoints.shadow import CheckpointError, Shadow, git_path

        git = self._git or git_path()
        if git is None:
            self._off = "git is not installed, so /rewind cannot undo what blocks do"
            return
        too_big = _too_large(self.folder)
        if too_big:
            self._off = f"{self.folder} is {too_big} (too large to snapshot); start interp " \
                        f"in a project folder to have /rewind"
            return
        name = session.id or f"unsaved-{secrets.token_hex(3)}"
        shadow = Shadow(self.base, self.folder, index=name, git=git)
        try:
            shadow.open()
        except CheckpointError as exc:
            self._off = str(exc)
            return
        self.max_file_bytes = self.max_file_bytes or MAX_FILE_BYTES
        self._capturer = Capturer(shadow, self.max_file_bytes)
        self._pruning = prune_if_due(shadow, self.sessions)

    def _off_notice(self) -> list[str]:
        if self._off is None or self._off_told:
            return []
        self._off_told = True
        return [f"Checkpoints are off: {self._off}."]

    def _take(self, session, index: int, stage: str, snap, language: str | None = None
              ) -> list[str]:
        from interp.checkpoints.shadow import CheckpointError, TooSlow

        what = f"{stage} block {index}"
        reuse = snap is not None and self._last is not None and snap.same_as(self._last.snap)
        deadline = time.monotonic() + self.time_bound
        try:
            state = self._last.state if reuse else self._capturer.take(snap, deadline)
            self._keep(session, state.tree)
        except TooSlow as exc:
            return self._skipped(session, index, stage, exc, language)
        except CheckpointError as exc:
            self._last = None
            self._record(session, index, stage, None, str(exc), language)
            return [f"Checkpoint {what} skipped: {exc}."]
        self._slow = 0
        if not reuse:
            self._last = _Last(snap, state) if snap is not None and snap.complete else None
        self._record(session, index, stage, state, None, language)
        return [] if reuse else self._new_gaps(state, what)

    def _keep(self, session, tree: str) -> None:
        """A ref of this conversation keeps the tree (a new id after /reset: refs of its own)."""
        owner = session.id or "unsaved"
        if (owner, tree) not in self._kept:
            self._capturer.shadow.keep({f"{owner}/{tree}": tree})
            self._kept.add((owner, tree))

    def _skipped(self, session, index: int, stage: str, exc: Exception,
                 language: str | None) -> list[str]:
        self._last = None
        self._slow += 1
        why = str(exc) or f"snapshotting the folder took over {self.time_bound:g} s"
        self._record(session, index, stage, None, why, language)
        line = (f"Checkpoint {stage} block {index} skipped: {why} (it goes on in the "
                f"background); /rewind cannot go back to this point.")
        if self._slow >= SLOW_LIMIT:
            self._off, self._off_told = "the folder is too slow to snapshot", True
            line += " Checkpoints are off for the rest of this session."
        return [line]

    def _new_gaps(self, state: State, what: str) -> list[str]:
        """One line per kind of file left out that the person was not told about yet."""
        lines = []
        for kind, paths, text in (
                ("big", state.skipped, f"Not checkpointed (over "
                                       f"{workspace.format_size(self.max_file_bytes)})"),
                ("unreadable", state.unreadable, f"Not in the checkpoint {what} (vanished or "
                                                 f"unreadable while it was taken)"),
                ("nested", state.nested, "Not checkpointed (a git repository of its own)")):
            new = [p for p in paths if (kind, p) not in self._told]
            if kind != "unreadable":
                self._told.update((kind, p) for p in new)
            if new:
                named = ", ".join(workspace.safe_path(p) for p in new[:10])
                more = f" and {len(new) - 10} more" if len(new) > 10 else ""
                lines.append(f"{text}: {named}{more}.")
        return lines

    def _record(self, session, index: int, stage: str, state: State | None, why: str | None,
                language: str | None) -> None:
        """Write the state (or why there is none) to the session file, if there is one."""
        from interp.checkpoints.history import Mark
        from interp.storage.conversations import StoreError

        log = getattr(session, "log", None)
        if log is None:
            return
        mark = Mark(index, stage, self.folder, state, why, language)
        try:
            log.append_event(EVENT, mark.to_dict())
        except StoreError:  # a failing session file is reported where messages are written
            pass


def _remote(session, language: str) -> bool:
    """True when the language's blocks run on a Jupyter gateway (not on this machine)."""
    try:
        runner = session.registry.resolve(language)
    except Exception:  # an unknown language: its block does not run anyway
        return False
    return bool(getattr(getattr(runner, "choice", None), "gateway_url", None))


def _too_large(folder: str) -> str | None:
    """What makes a folder too large to snapshot on principle (home, a filesystem root)."""
    if folder == os.path.realpath(os.path.expanduser("~")):
        return "your home folder"
    if folder == os.path.realpath(os.sep):
        return "the root folder"
    return None
