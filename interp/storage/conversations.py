"""Saved conversations: one JSONL file per session, appended as things happen.

Each line is one record: a ``meta`` record first, then ``message``, ``event``,
``undo`` (drop the last n messages) and ``reset`` (drop all messages) records.
Every line is flushed as soon as it is written, so a killed process loses at
most the line being written; there is no fsync, so a power loss may lose the
tail. Loading skips lines that are truncated or corrupt, and messages that a
model would refuse (a content that is not text, a role it does not know),
instead of failing, with a warning that names each line (`load_checked`).

Session ids look like ``20261122-153012-ab12cd`` (UTC time + 6 hex chars), so
they sort by creation time.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets as _secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from interp.core.history import Entry
from interp.secrets import Redactor
from interp.storage.entries import to_saved
from interp.storage.locks import SessionBusy, SessionLock, lock_path
from interp.storage.replay import read_meta, replay, session_title

FORMAT_VERSION = 1
_ID_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_-]*$")


class StoreError(Exception):
    """A session cannot be found, resolved, opened or written."""


class ConversationInUse(StoreError):
    """The session is open in another interp process."""


@dataclass(frozen=True)
class ConversationInfo:
    """Summary of one saved session, as shown by `list()`."""

    id: str
    path: Path
    created: str | None
    updated: datetime
    model: str | None
    title: str  # the first task, shortened
    message_count: int
    cwd: str | None = None  # the directory the conversation was started in


def new_session_id(now: datetime | None = None) -> str:
    """A new time-sortable id: UTC ``YYYYmmdd-HHMMSS`` plus 6 random hex chars."""
    now = now or datetime.now(timezone.utc)
    return f"{now.astimezone(timezone.utc):%Y%m%d-%H%M%S}-{_secrets.token_hex(3)}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")




def _ends_mid_line(path: Path) -> bool:
    """True if the file exists, is non-empty and does not end with a newline."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell() == 0:
                return False
            fh.seek(-1, os.SEEK_END)
            return fh.read(1) != b"\n"
    except FileNotFoundError:
        return False


class ConversationLog:
    """An open session file that records are appended to."""

    def __init__(self, id: str, path: Path, secrets: Iterable[str | None] = ()) -> None:
        self.id = id
        self.path = path
        self._redactor = Redactor(secrets)
        self.failure: str | None = None  # why the file stopped being written, once it did
        self._told = False
        self._lock = _lock(id, path)
        try:
            needs_newline = _ends_mid_line(path)
            # a lone surrogate that got this far is written as its JSON escape, never a crash
            self._fh = open(path, "a", encoding="utf-8", errors="backslashreplace", buffering=1)
            if needs_newline:  # a crash left a partial line: start a fresh one after it
                self._fh.write("\n")
        except OSError as exc:
            self._lock.release()
            raise StoreError(f"cannot open session file {path}: {exc.strerror or exc}") from None

    def _write(self, record: dict[str, Any]) -> None:
        if self.failure is not None:  # the file cannot be written: the conversation goes on
            return
        if self._fh.closed:
            raise StoreError(f"session {self.id} is closed")
        try:
            self._fh.write(self._redactor.line(record))
            self._fh.flush()
        except OSError as exc:
            self.failure = (f"cannot save this conversation to {self.path} any more "
                            f"({exc.strerror or exc}); going on without saving it")
            self._told = False
            with contextlib.suppress(OSError):
                self._fh.close()

    def take_failure(self) -> str | None:
        """The one line saying the file stopped being written, once (then None)."""
        if self.failure is None or self._told:
            return None
        self._told = True
        return self.failure

    @property
    def spool_dir(self) -> Path:
        """The folder that keeps this session's full-output files (next to its JSONL file;
        the runners create it when the first long output is spooled)."""
        return self.path.parent / self.id

    def append_message(self, entry: Entry) -> None:
        """Record one entry of the conversation (its saved form: entries.py)."""
        self._write({"type": "message", "ts": _now(), "message": to_saved(entry)})

    def append_event(self, kind: str, data: dict[str, Any]) -> None:
        """Record a non-message event (e.g. a code run) for later inspection."""
        self._write({"type": "event", "ts": _now(), "kind": kind, "data": data})

    def append_undo(self, count: int) -> None:
        """Record that the last `count` messages were undone."""
        self._write({"type": "undo", "ts": _now(), "count": int(count)})

    def append_reset(self) -> None:
        """Record that the conversation was cleared."""
        self._write({"type": "reset", "ts": _now()})

    def close(self) -> None:
        """Close the file (and let another process open it); safe to call twice."""
        with contextlib.suppress(OSError):  # a failed write was reported by take_failure
            self._fh.close()
        self._lock.release()

    def __enter__(self) -> ConversationLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _lock(id: str, path: Path) -> SessionLock:
    """The conversation's lock, for as long as this process has it open."""
    try:
        return SessionLock(lock_path(path))
    except SessionBusy as exc:
        holder = f"another interp process (pid {exc.pid})" if exc.pid else "another interp process"
        raise ConversationInUse(f"conversation {id} is open in {holder}; finish or quit that "
                                f"one first (one process writes a conversation at a time)") from None
    except OSError as exc:
        raise StoreError(f"cannot lock session file {path}: {exc.strerror or exc}") from None


def same_dir(a: str | os.PathLike | None, b: str | os.PathLike | None) -> bool:
    """Whether two paths name the same directory (symlinks resolved)."""
    if not a or not b:
        return False
    return os.path.realpath(a) == os.path.realpath(b)


class ConversationStore:
    """The directory of saved sessions (normally data_dir/sessions)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path_for(self, id: str) -> Path:
        """File path of session `id` (the id is validated, not resolved)."""
        if not _ID_RE.match(id):
            raise StoreError(f"invalid session id {id!r}")
        return self.root / f"{id}.jsonl"

    def _ids(self) -> list[str]:
        try:
            names = [p.name for p in self.root.iterdir()]
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot read session directory {self.root}: {exc.strerror or exc}") from None
        ids = [n[: -len(".jsonl")] for n in names if n.endswith(".jsonl")]
        return sorted(i for i in ids if _ID_RE.match(i))

    def create(self, meta: dict[str, Any],
               secrets: Iterable[str | None] = ()) -> ConversationLog:
        """Start a new session file and write its meta record (model, cwd, extras)."""
        try:
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise StoreError(f"cannot create session directory {self.root}: {exc.strerror or exc}") from None
        for _ in range(10):
            id = new_session_id()
            path = self.path_for(id)
            try:  # exclusive create, owner-only: sessions may hold private data
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
                break
            except FileExistsError:
                continue
            except OSError as exc:
                raise StoreError(f"cannot create session file {path}: {exc.strerror or exc}") from None
        else:
            raise StoreError(f"cannot pick a free session id in {self.root}")
        log = ConversationLog(id, path, secrets)
        record = {"type": "meta", "v": FORMAT_VERSION, "id": id, "created": _now(),
                  "model": meta.get("model"), "cwd": meta.get("cwd", os.getcwd())}
        log._write({**meta, **record})
        return log

    def open(self, id: str, secrets: Iterable[str | None] = ()) -> ConversationLog:
        """Reopen a saved session (id or unique prefix) to append to it."""
        full = self.resolve(id)
        return ConversationLog(full, self.path_for(full), secrets)

    def resolve(self, prefix: str) -> str:
        """Full id for an exact id or unique prefix; StoreError if unknown or ambiguous."""
        prefix = prefix.strip()
        if not prefix:
            raise StoreError("empty session id")
        ids = self._ids()
        if prefix in ids:
            return prefix
        matches = [i for i in ids if i.startswith(prefix)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise StoreError(f"no saved session matches {prefix!r} (see the session list)")
        shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise StoreError(f"session id {prefix!r} is ambiguous: {len(matches)} match ({shown})")

    def _mtime_ns(self, id: str) -> int:
        try:
            return self.path_for(id).stat().st_mtime_ns
        except OSError:
            return -1

    def started_in(self, id: str) -> str | None:
        """The directory session `id` (exact) was started in, if recorded."""
        cwd = read_meta(self.path_for(id)).get("cwd")
        return cwd if isinstance(cwd, str) else None

    def latest_id(self, cwd: str | os.PathLike | None = None) -> str | None:
        """Id of the most recently modified session (ties: newest id), or None; with `cwd`,
        only sessions started in that directory count."""
        ids = self._ids()
        if cwd is not None:
            ids = [i for i in ids if same_dir(self.started_in(i), cwd)]
        if not ids:
            return None
        return max(ids, key=lambda i: (self._mtime_ns(i), i))

    def load(self, id: str) -> list[Entry]:
        """Entries of a session (id or unique prefix), with undo/reset applied."""
        return self.load_checked(id)[0]

    def load_checked(self, id: str) -> tuple[list[Entry], list[str]]:
        """(entries, a warning for each line that was skipped) of a session."""
        path = self.path_for(self.resolve(id))
        try:
            _, messages, warnings = replay(path)
        except OSError as exc:
            raise StoreError(f"cannot read session file {path}: {exc.strerror or exc}") from None
        return messages, warnings

    def info(self, id: str) -> ConversationInfo:
        """Summary of one session (exact id); raises OSError if unreadable."""
        path = self.path_for(id)
        mtime_ns = path.stat().st_mtime_ns
        meta, messages, _ = replay(path)
        model = meta.get("model")
        created = meta.get("created")
        return ConversationInfo(
            id=id,
            path=path,
            created=created if isinstance(created, str) else None,
            updated=datetime.fromtimestamp(mtime_ns / 1e9, timezone.utc),
            model=model if isinstance(model, str) else None,
            title=session_title(messages),
            message_count=len(messages),
            cwd=meta.get("cwd") if isinstance(meta.get("cwd"), str) else None,
        )

    def list(self, cwd: str | os.PathLike | None = None) -> list[ConversationInfo]:
        """All readable sessions (with `cwd`: those started there), most recently modified
        first."""
        infos = []
        for id in self._ids():
            if cwd is not None and not same_dir(self.started_in(id), cwd):
                continue
            try:
                infos.append(self.info(id))
            except OSError:
                continue
        return sorted(infos, key=lambda s: (s.updated, s.id), reverse=True)
