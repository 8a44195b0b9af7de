"""Rewinding a saved conversation's folder: what each block changed, a block's diff, and
putting the folder back to before a block (or undoing the last rewind). /rewind, /diff and
`interp rewind` are front ends of this.

A rewind first records the folder as it is (so that it can be undone), then works out which
files changed outside interp since the point it goes back to: between blocks, or after the
last one. The front end shows those and asks (the terminal) or refuses (the command, without
--force); `carry_out` then puts the files back and writes a `rewind` line to the session file.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from interp.core.files import workspace
from interp.core.history import Entry
from interp.checkpoints.capture import MAX_FILE_BYTES, Capturer, State
from interp.checkpoints.history import REWIND_EVENT, Mark, RewindMark, read_history
from interp.checkpoints.restore import Applied, Plan, apply, make_plan, outside_paths
from interp.checkpoints.shadow import Change, CheckpointError, Shadow, TooSlow, git_path

REWIND_SECONDS = 120.0  # the bound of a rewind's own snapshots (the person asked and waits)


class RewindError(Exception):
    """A rewind or a diff cannot be done; the message is one line for the person."""


@dataclass(frozen=True)
class BlockPoint:
    """A block of the conversation and its checkpoints."""

    index: int
    language: str
    code: str
    before: Mark
    changes: tuple[Change, ...] | None  # what the block changed; None: not known

    @property
    def usable(self) -> bool:
        """True when the folder can go back to before this block."""
        return self.before.state is not None


class Rewinder:
    """The checkpoints of one saved conversation (`messages`: as replayed from its file)."""

    def __init__(self, base: Path, session_path: Path, session_id: str,
                 messages: list[Entry]) -> None:
        try:
            self.history = read_history(session_path)
        except OSError as exc:
            raise RewindError(f"cannot read {session_path}: {exc.strerror or exc}") from None
        self.root = self.history.root
        if self.root is None:
            raise RewindError(f"conversation {session_id} has no checkpoints")
        git = git_path()
        if git is None:
            raise RewindError("git is not installed: checkpoints cannot be read")
        self.shadow = Shadow(base, self.root, index=f"rewind-{os.getpid()}", git=git)
        if not self.shadow.exists():
            raise RewindError(f"the checkpoints of {self.root} are gone from {base}")
        self.session_id = session_id
        self.messages = messages

    # -- reading ----------------------------------------------------------------------------
    def points(self) -> list[BlockPoint]:
        """The blocks of the conversation that have checkpoints, in order."""
        recorded = {r.index: r for m in self.messages for r in m.blocks or ()}
        top = max(recorded, default=0)
        out = []
        for index, mark in sorted(self.history.before.items()):
            record = recorded.get(index)
            if record is None and index <= top:
                continue  # dropped from the conversation (/undo)
            language = record.language if record else (mark.language or "?")
            out.append(BlockPoint(index, language, record.code if record else "", mark,
                                  self._changes(mark, self.history.after.get(index))))
        return out

    def point(self, index: int) -> BlockPoint:
        """Block `index`'s point; RewindError when it has none to go back to."""
        for point in self.points():
            if point.index == index:
                if not point.usable:
                    raise RewindError(f"block {index} has no checkpoint: {point.before.why}")
                return point
        raise RewindError(f"block {index} is not a block of this conversation with a "
                          f"checkpoint")

    def diff(self, index: int) -> bytes:
        """What block `index` changed, as a unified diff (b"" when nothing)."""
        before, after = self.history.before.get(index), self.history.after.get(index)
        if before is None:
            raise RewindError(f"block {index} has no checkpoint")
        if before.state is None or after is None or after.state is None:
            why = before.why or (after.why if after else None) or "it was not recorded"
            raise RewindError(f"what block {index} changed is not known: {why}")
        try:
            return self.shadow.patch(before.state.tree, after.state.tree)
        except CheckpointError as exc:
            raise RewindError(str(exc)) from None

    def _changes(self, before: Mark, after: Mark | None) -> tuple[Change, ...] | None:
        if before.state is None or after is None or after.state is None:
            return None
        old, new = before.state, after.state
        try:
            changes = self.shadow.changes(old.tree, new.tree, renames=True)
        except CheckpointError:
            return None
        named = {c.path for c in changes}
        try:
            entries = None if old.same_usual(new) else self.shadow.entries(new.tree)
        except CheckpointError:
            return None
        modes = sorted(old.mode_changes(new, entries) - named)
        return tuple(changes) + tuple(Change("M", p, "", "", "", "") for p in modes)

    # -- going back -------------------------------------------------------------------------
    def plan_to(self, index: int) -> Plan:
        """Record the folder now, then plan going back to before block `index`."""
        point = self.point(index)
        return self._plan(point.before.state, self.history.starts[index])

    def plan_undo(self) -> Plan:
        """Record the folder now, then plan undoing the last rewind."""
        if not self.history.rewinds:
            raise RewindError("there is no rewind to undo in this conversation")
        return self._plan(self.history.rewinds[-1].saved, self.history.rewind_starts[-1])

    def _plan(self, target: State, start: int) -> Plan:
        now = self.capture()
        spans = self.history.spans(start)
        spans.append((self.history.points[-1].state, now, False))
        try:
            return make_plan(self.shadow, target, now, outside_paths(self.shadow, spans))
        except CheckpointError as exc:
            raise RewindError(str(exc)) from None

    def carry_out(self, plan: Plan, to_block: int | None, log, *, kept: tuple[str, ...] = (),
                  conversation: bool = False) -> tuple[Applied, RewindMark]:
        """Put the files back and record the rewind in `log` (a ConversationLog, or None); Ctrl-C
        waits until every file is back (half a rewind would be worse than none)."""
        try:
            with _uninterrupted():
                applied = apply(self.shadow, plan)
        except CheckpointError as exc:
            raise RewindError(str(exc)) from None
        try:
            after = self.capture()
        except RewindError:
            after = None
        mark = RewindMark(self.root, plan.now, after, to_block, applied.restored,
                          applied.removed, tuple(kept), conversation)
        if log is not None:
            log.append_event(REWIND_EVENT, mark.to_dict())
        return applied, mark

    def capture(self) -> State:
        """The folder's state now, kept by a ref of this conversation."""
        snap = workspace.snapshot(self.root)
        try:
            state = Capturer(self.shadow, MAX_FILE_BYTES).take(
                snap, time.monotonic() + REWIND_SECONDS)
            self.shadow.keep({f"{self.session_id}/{state.tree}": state.tree})
        except TooSlow:
            raise RewindError(f"recording {self.root} took over {REWIND_SECONDS:g} s") from None
        except CheckpointError as exc:
            raise RewindError(str(exc)) from None
        return state

    def close(self) -> None:
        """Remove the index file this rewind used."""
        for path in (self.shadow.index, Path(f"{self.shadow.index}.lock")):
            try:
                path.unlink()
            except OSError:
                pass


@contextmanager
def _uninterrupted() -> Iterator[None]:
    """SIGINT ignored meanwhile (in the main thread, where Python handles it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def conversation_cut(messages: list[Entry], index: int) -> int | None:
    """Where the conversation goes back to with block `index`: the position of the model's
    message that proposed it (None when it cannot be found)."""
    for position, message in enumerate(messages):
        if any(r.index == index for r in message.blocks or ()):
            for back in range(position - 1, -1, -1):
                if messages[back].role == "assistant":
                    return back
            return None
    return None


def change_summary(changes: tuple[Change, ...] | None, limit: int = 6) -> str:
    """One short line: "created a.txt; changed b.csv; deleted c; renamed d → e"."""
    if changes is None:
        return "(not known)"
    if not changes:
        return "no file changed"
    groups: dict[str, list[str]] = {}
    for change in changes:
        label = {"A": "created", "D": "deleted", "R": "renamed"}.get(change.status, "changed")
        name = workspace.safe_path(change.path)
        if change.status == "R":
            name = f"{workspace.safe_path(change.old_path or '')} → {name}"
        groups.setdefault(label, []).append(name)
    parts = []
    for label in ("created", "changed", "deleted", "renamed"):
        names = groups.get(label, [])
        if names:
            more = f" and {len(names) - limit} more" if len(names) > limit else ""
            parts.append(f"{label} {', '.join(names[:limit])}{more}")
    return "; ".join(parts)


LISTED_CHANGES = 60  # the column where a listed block's changes start (wrapped lines go under it)


def listing(points: list[BlockPoint], rewinds: list[RewindMark]) -> list[str]:
    """The lines that list a conversation's blocks (and its rewinds) for the person; each
    block's changes start at column LISTED_CHANGES."""
    lines = []
    for point in points:
        first = _telling_line(point.code)
        first = workspace.safe_path(first if len(first) <= 40 else first[:39] + "…")
        what = (change_summary(point.changes) if point.usable
                else f"no checkpoint: {point.before.why}")
        lines.append(f"  {point.index:>3}  {point.language:<10} {first:<40}  {what}")
    for number, rewind in enumerate(rewinds, 1):
        to = (f"back to before block {rewind.to_block}" if rewind.to_block is not None
              else "undid the rewind before it")
        files = len(rewind.restored) + len(rewind.removed)
        lines.append(f"  rewind {number}: {to} ({files} file{'s' * (files != 1)})")
    return lines


def _telling_line(code: str) -> str:
    """The first line of code that says what it does (not a comment, an import or a require)."""
    lines = [line.strip() for line in code.splitlines() if line.strip()]
    for line in lines:
        if not line.startswith(("#", "//", "import ", "from ")) and "require(" not in line:
            return line
    return lines[0] if lines else ""


def applied_summary(applied: Applied, kept: tuple[str, ...] = (), limit: int = 8) -> str:
    """What a rewind did, in one line."""
    parts = []
    for label, paths in (("put back", applied.restored), ("removed", applied.removed),
                         ("kept as they were", kept)):
        if paths:
            named = ", ".join(workspace.safe_path(p) for p in paths[:limit])
            more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
            parts.append(f"{label} {named}{more}")
    return "; ".join(parts) or "no file needed to change"
