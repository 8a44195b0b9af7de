"""What the next task's message carries besides the words typed: notes for the model
(`tell`), the files attached to it (`attach`) and the working folder's files the task names."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from interp.core import events as ev
from interp.core.files.attachments import attachment_notice, check_attachable, describe_file
from interp.core.files.mentions import mentioned_files


class NextTask:
    """Notes and file descriptions queued for the next task (`root()`: the working folder)."""

    def __init__(self, root: Callable[[], str]) -> None:
        self.root = root
        self.attachments: list[str] = []  # file descriptions for the next task (see attach)
        self.attached: set[Path] = set()  # the files those describe
        self.notes: list[str] = []  # notes for the model, sent with the next task (see tell)

    def attach(self, path: str | os.PathLike) -> str:
        """Queue a file; returns its description (see Session.attach)."""
        resolved = check_attachable(Path(self.root(), Path(path).expanduser()))
        text = describe_file(resolved)
        self.attachments.append(text)
        self.attached.add(resolved.resolve())
        return text

    def message(self, typed: str, mentions: bool,
                previewed: list[str]) -> Iterator[ev.Event]:
        """The task's message text: the notes first (a small model answers whatever comes
        last), then what was typed, then the attached files, with those the task names when
        `mentions` (each said in a notice and added to `previewed`); returns the text."""
        task = "\n\n".join([*self.notes, typed]) if self.notes else typed
        self.notes = []
        if mentions:
            yield from self._describe_mentions(typed, previewed)  # typed by the person, not notes
        if self.attachments:
            task = f"{task}\n\nAttached files:\n\n" + "\n\n".join(self.attachments)
            self.attachments, self.attached = [], set()
        return task

    def _describe_mentions(self, typed: str, previewed: list[str]) -> Iterator[ev.Event]:
        """Attach the files of the working folder that the task names (not attached yet)."""
        root = self.root()
        for path in mentioned_files(typed, root):
            if path not in self.attached:
                self.attached.add(path)
                self.attachments.append(describe_file(path))
                previewed.append(os.path.relpath(path, root))
                yield ev.Notice(level="info", text=attachment_notice(
                    self.attachments[-1], "Named in the task, so described to the model:"))
