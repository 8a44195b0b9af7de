"""The checkpoints and rewinds of a saved conversation, read back from its session file.

They are `event` lines of the session file (kind `checkpoint`: a Mark; kind `rewind`: a
RewindMark), which older readers skip. Block numbers start again after a `reset` line; for a
block that ran more than once under one number (after /undo and --resume) the latest counts.
The states are also kept in the order they were taken (`points`), so that what changed
between two of them without interp (`outside`) can be told from what blocks and rewinds did.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interp.checkpoints.capture import State
from interp.storage.entries import from_saved
from interp.storage.replay import records

REWIND_EVENT = "rewind"


@dataclass(frozen=True)
class Mark:
    """The folder's state before or after one block (state None: not taken, and why)."""

    block: int
    stage: str  # "before" or "after"
    root: str
    state: State | None
    why: str | None = None
    language: str | None = None  # the block's (on "before" marks)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the data of a `checkpoint` event line)."""
        return {"block": self.block, "stage": self.stage, "root": self.root,
                "state": self.state.to_dict() if self.state else None, "why": self.why,
                "language": self.language}

    @classmethod
    def from_dict(cls, raw: object) -> Mark | None:
        """The mark of a stored line, or None when it is not one."""
        if not isinstance(raw, Mapping):
            return None
        block, stage, root, why, language = (raw.get(k) for k in ("block", "stage", "root",
                                                                  "why", "language"))
        if not (isinstance(block, int) and not isinstance(block, bool)
                and stage in ("before", "after") and isinstance(root, str)):
            return None
        return cls(block, stage, root, State.from_dict(raw.get("state")),
                   why if isinstance(why, str) else None,
                   language if isinstance(language, str) else None)


@dataclass(frozen=True)
class RewindMark:
    """A rewind: the folder just before it (what undoing it puts back) and just after."""

    root: str
    saved: State
    after: State | None
    to_block: int | None  # None: it undid the rewind before it
    restored: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # changed outside interp and left as they were
    conversation: bool = False  # the conversation went back too

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the data of a `rewind` event line)."""
        return {"root": self.root, "saved": self.saved.to_dict(),
                "after": self.after.to_dict() if self.after else None,
                "to_block": self.to_block, "restored": list(self.restored),
                "removed": list(self.removed), "kept": list(self.kept),
                "conversation": self.conversation}

    @classmethod
    def from_dict(cls, raw: object) -> RewindMark | None:
        """The rewind of a stored line, or None when it is not one."""
        if not isinstance(raw, Mapping) or not isinstance(raw.get("root"), str):
            return None
        saved = State.from_dict(raw.get("saved"))
        to_block = raw.get("to_block")
        if saved is None or not (to_block is None or isinstance(to_block, int)):
            return None
        lists = [tuple(v for v in raw.get(k) or () if isinstance(v, str))
                 if isinstance(raw.get(k), list) else () for k in ("restored", "removed", "kept")]
        return cls(raw["root"], saved, State.from_dict(raw.get("after")), to_block, *lists,
                   conversation=raw.get("conversation") is True)

    def note(self) -> str:
        """What the model is told at its next task."""
        where = (f"before block {self.to_block}" if self.to_block is not None
                 else "before the user's previous rewind")
        parts = [f"put back: {', '.join(self.restored)}" if self.restored else "",
                 f"removed: {', '.join(self.removed)}" if self.removed else "",
                 f"left as they were (changed outside interp): {', '.join(self.kept)}"
                 if self.kept else ""]
        files = "; ".join(p for p in parts if p) or "no file changed"
        talk = (" The conversation from that block on was dropped as well." if self.conversation
                else "")
        return (f"[interp: the user rewound the working folder {self.root} to how it was "
                f"{where} ({files}).{talk} Variables in the runners were not rewound; read "
                f"files again before relying on them.]")


@dataclass(frozen=True)
class Point:
    """A state in the order states were taken: the start or the end of one block run or
    rewind (`event` numbers them)."""

    state: State
    event: int
    end: bool


@dataclass
class History:
    """The checkpoints of one session file."""

    before: dict[int, Mark] = field(default_factory=dict)  # per block number, the latest
    after: dict[int, Mark] = field(default_factory=dict)
    rewinds: list[RewindMark] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    starts: dict[int, int] = field(default_factory=dict)  # block -> its before state in points
    rewind_starts: list[int] = field(default_factory=list)  # each rewind's saved state in points
    untold: list[RewindMark] = field(default_factory=list)  # rewinds after the last task

    @property
    def root(self) -> str | None:
        """The folder the checkpoints are of (the latest one recorded)."""
        marks = [*self.before.values(), *self.rewinds]
        return marks[-1].root if marks else None

    def spans(self, start: int) -> list[tuple[State, State, bool]]:
        """(from, to, made by interp) for each pair of consecutive states from points[start]
        on; a pair is interp's only when it is the start and end of one block run or rewind."""
        tail = self.points[start:]
        return [(a.state, b.state, a.event == b.event and not a.end and b.end)
                for a, b in zip(tail, tail[1:])]


def read_history(path: Path) -> History:
    """The checkpoints and rewinds recorded in a session file (OSError if unreadable)."""
    history, events, open_runs = History(), 0, {}
    for _, record, problem in records(path):
        if problem or record is None:
            continue
        kind = record.get("type")
        if kind == "reset":
            history.before.clear()
            history.after.clear()
        elif kind == "message" and isinstance(record.get("message"), Mapping) \
                and from_saved(record["message"]).task:
            history.untold = []
        elif kind == "event" and record.get("kind") == "checkpoint":
            mark = Mark.from_dict(record.get("data"))
            if mark is None:
                continue
            if mark.stage == "before":
                events += 1
                open_runs[mark.block] = events
                history.before[mark.block] = mark
                history.after.pop(mark.block, None)
                if mark.state is not None:
                    history.starts[mark.block] = len(history.points)
                else:
                    history.starts.pop(mark.block, None)
            else:
                history.after[mark.block] = mark
            if mark.state is not None:
                event = open_runs.get(mark.block, 0) if mark.stage == "after" else events
                history.points.append(Point(mark.state, event, mark.stage == "after"))
        elif kind == "event" and record.get("kind") == REWIND_EVENT:
            rewind = RewindMark.from_dict(record.get("data"))
            if rewind is None:
                continue
            events += 1
            history.rewinds.append(rewind)
            history.untold.append(rewind)
            history.rewind_starts.append(len(history.points))
            history.points.append(Point(rewind.saved, events, False))
            if rewind.after is not None:
                history.points.append(Point(rewind.after, events, True))
    return history


def untold_notes(path: Path) -> list[str]:
    """What the model was not told yet: the rewinds recorded after the last task."""
    try:
        return [rewind.note() for rewind in read_history(path).untold]
    except OSError:
        return []
