"""Reporting files created, modified or deleted in the working directory by a code block.

The loop takes a `snapshot` before and after each block and passes both to `changes`; `describe`
turns the result into a short line for the user and the model. A snapshot is one `os.scandir`
per directory plus one `DirEntry.stat()` (an lstat on POSIX, free on Windows) per regular file
and symlink (each one's ctime and mode are kept too, so that checkpoints can tell an unchanged
folder without asking git); symlinks are never followed and noisy directories (`.git`,
`node_modules`, virtualenvs, caches) are skipped, as are the folders a caller names (interp's
own data, when it lies inside). The walk is breadth-first and bounded by entries and depth, so a huge root such as a
home directory stays fast; a bounded or partly unreadable walk is marked incomplete, and only
changes that both snapshots could have seen are reported. Nothing here raises on I/O errors.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from interp.core.files.file_formats import written_shape
from languages.cache import cache_folder
from languages.escapes import controls

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
                       ".pytest_cache", ".tox", "site-packages", ".ipynb_checkpoints"})
INCOMPLETE_NOTE = "(the directory scan was bounded, so some changes may be missing)"
_CONTROL = controls(keep="")
SHAPED = 3  # written files whose contents are described (the first ones of each kind named)


@dataclass(frozen=True)
class Snapshot:
    """Regular files under a root: relative POSIX path -> (size, mtime_ns)."""

    root: Path
    files: dict[str, tuple[int, int]]
    complete: bool = True
    listed: frozenset[str] = frozenset({""})  # directories read in full ("" is the root)
    seen_dirs: frozenset[str] = frozenset()  # every directory met, read in full or not
    # files and symlinks -> st_ctime_ns << 16 | st_mode: any change git would see changes it
    stamps: dict[str, int] = field(default_factory=dict, compare=False)

    def same_as(self, other: Snapshot) -> bool:
        """True when both are complete and no file or link differs (content, mode, kind)."""
        return (self.complete and other.complete and self.root == other.root
                and self.stamps == other.stamps)


@dataclass(frozen=True)
class Changes:
    """Files created, modified and deleted between two snapshots (sorted relative paths)."""

    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    complete: bool = True

    def __bool__(self) -> bool:
        """True when any file changed."""
        return bool(self.created or self.modified or self.deleted)

    def without(self, paths, root: str) -> Changes:
        """The changes less the files `paths` (absolute, as a block's figures are): a figure
        the block already shows is reported once."""
        gone = {os.path.realpath(path) for path in paths}
        if not gone:
            return self

        def keep(rel: str) -> bool:
            return os.path.realpath(os.path.join(root, rel)) not in gone

        return replace(self, created=[p for p in self.created if keep(p)],
                       modified=[p for p in self.modified if keep(p)])


def _join(parent: str, name: str) -> str:
    """A relative POSIX path from a parent relative path and an entry name."""
    return f"{parent}/{name}" if parent else name


def _list_dir(path: str, rel: str, budget: int, files: dict[str, tuple[int, int]],
              subdirs: list[str], stamps: dict[str, int]) -> tuple[int, bool]:
    """Record one directory's files and subdirectories; return (entries used, read in full)."""
    used = 0
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                if used >= budget:
                    return used, False
                used += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIP_DIRS:
                            subdirs.append(_join(rel, entry.name))
                    elif entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        path = _join(rel, entry.name)
                        files[path] = (info.st_size, info.st_mtime_ns)
                        stamps[path] = info.st_ctime_ns << 16 | info.st_mode
                    elif entry.is_symlink():
                        info = entry.stat(follow_symlinks=False)
                        stamps[_join(rel, entry.name)] = info.st_ctime_ns << 16 | info.st_mode
                except OSError:  # vanished or unreadable entry: it is simply not there
                    continue
    except OSError:  # permission denied, vanished, not a directory
        return used, False
    return used, True


def snapshot(root: Path, *, max_entries: int = 20000, max_depth: int = 6,
             skip: tuple[str, ...] = ()) -> Snapshot:
    """Files under root, breadth-first, at most max_entries entries and max_depth levels down;
    the folders and files in `skip` (absolute paths, such as interp's own data and output)
    are left out."""
    left_out = folders_inside(root, skip)
    files: dict[str, tuple[int, int]] = {}
    stamps: dict[str, int] = {}
    listed: set[str] = set()
    seen: set[str] = set()
    complete, budget = True, max_entries
    queue: deque[tuple[str, int]] = deque([("", 0)])
    while queue:
        rel, depth = queue.popleft()
        if budget <= 0:
            complete = False
            break
        subdirs: list[str] = []
        path = os.path.join(root, rel) if rel else os.fspath(root)
        used, full = _list_dir(path, rel, budget, files, subdirs, stamps)
        subdirs = [sub for sub in subdirs if sub not in left_out] if left_out else subdirs
        budget -= used
        seen.update(subdirs)
        if full:
            listed.add(rel)
        else:
            complete = False
        if subdirs and depth >= max_depth:
            complete = False
            continue
        queue.extend((sub, depth + 1) for sub in subdirs)
    for rel in left_out:  # files among them (interp's own output, own_streams) too
        files.pop(rel, None)
        stamps.pop(rel, None)
    return Snapshot(Path(root), files, complete, frozenset(listed), frozenset(seen), stamps)


def own_streams() -> tuple[str, ...]:
    """The files interp's own standard output and error are written to, when they are files
    (`interp -e ... > out.json`): what interp writes there is never the code's change."""
    found = []
    for fd in (1, 2):
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                found.append(os.readlink(f"/proc/self/fd/{fd}"))  # Linux; elsewhere none
        except OSError:
            continue
    return tuple(dict.fromkeys(found))


def own_folders(data: Path | None) -> tuple[str, ...]:
    """interp's own folders: its data folder `data` (when known) and its cache folder; what
    lies in them is never the code's change, to report or to checkpoint."""
    return tuple(str(folder) for folder in (data, cache_folder()) if folder is not None)


def folders_inside(root: str | Path, folders: tuple[str, ...]) -> frozenset[str]:
    """The relative POSIX paths of those of `folders` that lie under `root` (not root itself)."""
    real = os.path.realpath(root)
    found = set()
    for folder in folders:
        rel = os.path.relpath(os.path.realpath(folder), real)
        if rel != "." and not rel.startswith(".."):
            found.add(Path(rel).as_posix())
    return frozenset(found)


def _covered(snap: Snapshot, rel: str) -> bool:
    """Whether snap would have recorded the file at rel had it existed."""
    parent = rel.rpartition("/")[0]
    while True:
        if parent in snap.listed:
            return True
        if not parent or parent in snap.seen_dirs:
            return False  # the nearest existing ancestor was not read in full
        parent = parent.rpartition("/")[0]


def changes(before: Snapshot, after: Snapshot) -> Changes:
    """What changed between two snapshots of the same root (contents, size or mode bits);
    unseen areas are left out."""
    old, new = before.files, after.files
    if before.complete and after.complete:
        created = [p for p in new if p not in old]
        deleted = [p for p in old if p not in new]
    else:
        created = [p for p in new if p not in old and _covered(before, p)]
        deleted = [p for p in old if p not in new and _covered(after, p)]
    modified = [p for p in new if p in old
                and (new[p] != old[p] or _mode(before, p) != _mode(after, p))]
    return Changes(sorted(created), sorted(modified), sorted(deleted),
                   before.complete and after.complete)


def _mode(snap: Snapshot, rel: str) -> int:
    """A file's mode bits in a snapshot (a chmod changes them alone), or -1 if not recorded."""
    stamp = snap.stamps.get(rel)
    return -1 if stamp is None else stamp & 0xFFFF


def format_size(size: int) -> str:
    """A byte count as a short string: "512 B", "1.2 KiB", "18 KiB", "3.4 MiB"."""
    value, unit = float(size), "B"
    for bigger in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    if unit == "B":
        return f"{size} B"
    return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"


def safe_path(rel: str) -> str:
    """A path with control characters escaped so it cannot drive the terminal."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", rel)


def _sized(root: Path, rel: str, shaped: bool) -> str:
    """A written file's path with its current size, if it can still be read, and, if `shaped`,
    what it holds (see written_shape)."""
    path = Path(root, rel)
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return safe_path(rel)
    shape = written_shape(path, info.st_size) if shaped and stat.S_ISREG(info.st_mode) else ""
    shape = f", {safe_path(shape)}" if shape else ""
    return f"{safe_path(rel)} ({format_size(info.st_size)}{shape})"


def describe(changes: Changes, root: Path, limit: int = 20) -> str:
    """One short line about the changes, at most `limit` paths named; "" when nothing changed."""
    if not changes:
        return ""
    parts, budget = [], max(limit, 0)
    for label, paths in (("created", changes.created), ("modified", changes.modified),
                         ("deleted", changes.deleted)):
        if not paths:
            continue
        shown = paths[:budget]
        budget -= len(shown)
        names = [_sized(root, p, i < SHAPED) if label != "deleted" else safe_path(p)
                 for i, p in enumerate(shown)]
        rest = len(paths) - len(shown)
        if not names:
            names = [f"{rest} file{'s' if rest != 1 else ''}"]
        elif rest:
            names.append(f"… and {rest} more")
        parts.append(f"{label}: {', '.join(names)}")
    text = "Files " + "; ".join(parts)
    return text if changes.complete else f"{text} {INCOMPLETE_NOTE}"
