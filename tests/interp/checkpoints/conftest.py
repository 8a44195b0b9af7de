"""Fixtures for the checkpoint tests: a working folder, a saved conversation to record into,
and a stand-in for the session the recorder reads (its log, id and runner registry)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from languages import Registry, default_registry

from interp.storage.conversations import ConversationLog, ConversationStore


@dataclass
class Host:
    """What Checkpoints reads from a Session: its log, id and registry."""

    log: ConversationLog | None
    registry: Registry = field(default_factory=lambda: default_registry(plugins=False))

    @property
    def id(self) -> str | None:
        return self.log.id if self.log is not None else None


@dataclass
class Place:
    """A working folder, the data dir's checkpoints and sessions folders, and a session."""

    work: Path
    base: Path
    sessions: Path
    host: Host


@pytest.fixture
def place(tmp_path, monkeypatch) -> Place:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no user git config or ignore file
    work = tmp_path / "work"
    work.mkdir()
    store = ConversationStore(tmp_path / "data" / "sessions")
    log = store.create({"model": "m", "cwd": os.fspath(work)})
    yield Place(work, tmp_path / "data" / "checkpoints", store.root, Host(log))
    log.close()

