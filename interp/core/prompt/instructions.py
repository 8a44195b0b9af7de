"""Project instructions: AGENTS.md files, read once at start and put in the system prompt.

Found as Codex finds them: the user's own file in interp's config folder first, then one file
per folder from the project root (the nearest folder above with `.git`, else the working
folder alone) down to the working folder, so the closest comes last and takes precedence. In
each folder the first of AGENTS.override.md, AGENTS.md, then CLAUDE.md (only where there is no
AGENTS.md) is used. Empty files are skipped; together they are read up to MAX_BYTES: the file
that crosses the limit is cut at a line, later ones are left out, and the start-up notice says so.
Only that much of each file is read (bounded.py), however large it is or grows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from interp.bounded import read_head
from interp.project import home_shown, project_folders

MAX_BYTES = 32 * 1024
PROBE_BYTES = 4096  # read of a file past the limit, to tell an empty one from one left out
NAMES = ("AGENTS.override.md", "AGENTS.md", "CLAUDE.md")  # the first found in a folder is read

_INTRO = ("Instructions from AGENTS.md files (the user's own first, then the project's from its "
          "root down to the working directory). Follow them; a later file takes precedence "
          "over an earlier one, and what the user asks in the conversation over both.")


@dataclass(frozen=True)
class InstructionFile:
    """One file read: its path, its size and how much of it went into the prompt."""

    path: str
    size: int  # bytes
    used: int  # bytes put in the prompt (less than size when it was cut)
    text: str

    @property
    def cut(self) -> bool:
        """True when only the start of the file went into the prompt."""
        return self.used < self.size


@dataclass(frozen=True)
class Instructions:
    """The instructions of a session: the files read and those left out."""

    files: tuple[InstructionFile, ...] = ()
    left_out: tuple[str, ...] = ()  # files past the size limit
    unreadable: tuple[str, ...] = ()  # "PATH: why"

    @property
    def paths(self) -> list[str]:
        """The paths of the files read, in prompt order."""
        return [f.path for f in self.files]

    def prompt_part(self) -> str:
        """The text appended to the system prompt ("" without files)."""
        if not self.files:
            return ""
        parts = [_INTRO]
        for item in self.files:
            note = (f" (only its first {_size(item.used)} of {_size(item.size)}: the "
                    f"instructions are limited to {_size(MAX_BYTES)})" if item.cut else "")
            parts.append(f"--- {item.path}{note}\n{item.text.strip()}")
        return "\n\n".join(parts)

    def notice(self, home: str | None = None) -> str | None:
        """The start-up line naming the files read (and what was cut or left out), or None."""
        if not (self.files or self.unreadable):
            return None
        show = _shower(home)
        read = [show(f.path) + (f" (cut to {_size(f.used)} of {_size(f.size)})" if f.cut else "")
                for f in self.files]
        parts = [f"Instructions read from {', '.join(read)}." if read else
                 "No instructions were read."]
        if self.left_out:
            parts.append(f"Left out past the {_size(MAX_BYTES)} limit: "
                         f"{', '.join(map(show, self.left_out))}.")
        if self.unreadable:
            parts.append(f"Not readable: {'; '.join(self.unreadable)}.")
        return " ".join(parts)


def with_instructions(prompt: str, instructions: Instructions | None) -> str:
    """The system prompt with the instructions appended as a part of their own."""
    part = instructions.prompt_part() if instructions is not None else ""
    return f"{prompt.rstrip()}\n\n{part}\n" if part else prompt


def candidate_files(cwd: str | os.PathLike, user_dir: str | os.PathLike | None) -> list[Path]:
    """The files to read, in order: the user's, then the project's from its root down."""
    found = [_first_in(Path(user_dir))] if user_dir is not None else []
    found += [_first_in(folder) for folder in project_folders(cwd)]
    return [path for path in found if path is not None]


def load_instructions(cwd: str | os.PathLike, user_dir: str | os.PathLike | None,
                      limit: int = MAX_BYTES) -> Instructions:
    """Read the instruction files for a session started in `cwd` (`user_dir`: interp's
    config folder), at most `limit` bytes in all."""
    files, left_out, unreadable = [], [], []
    left = limit
    for path in candidate_files(cwd, user_dir):
        try:  # only what can be used: a 2 GB file, or a link to a growing log, costs no more
            head = read_head(path, max(left, PROBE_BYTES))
        except OSError as exc:
            unreadable.append(f"{path}: {exc.strerror or exc}")
            continue
        if not head.data.strip():
            continue
        used = _cut(head.data, left, head.whole) if left > 0 else b""
        if not used:
            left_out.append(str(path))
            continue
        left -= len(used)
        files.append(InstructionFile(str(path), max(head.size, len(used)), len(used),
                                     used.decode("utf-8", "replace")))
    return Instructions(tuple(files), tuple(left_out), tuple(unreadable))


def _first_in(folder: Path) -> Path | None:
    for name in NAMES:
        path = folder / name
        if path.is_file():
            return path
    return None


def _cut(data: bytes, limit: int, whole: bool) -> bytes:
    """At most `limit` bytes of `data` (the file's first bytes; `whole`: all of it), ending at
    a line break when the file is longer."""
    if whole and len(data) <= limit:
        return data
    head = data[:limit]
    end = head.rfind(b"\n")
    return head[:end + 1] if end > 0 else b""  # whole lines only


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    value = n / 1024
    for unit in ("KB", "MB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def _shower(home: str | None):
    """Paths with the home folder shown as ~."""
    return lambda path: home_shown(path, home)
