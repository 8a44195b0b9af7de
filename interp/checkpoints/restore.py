"""Putting a folder back to a recorded state: the plan (what goes back, what changed outside
interp meanwhile) and applying it, file by file.

A file is written to a temporary name beside it and renamed over the old one, with its
recorded permission bits; a symlink is recreated as a link, never followed. Nothing is
written through a symlink or outside the folder: a path whose parent is not a real folder
inside it is left alone and named. Files created since the state are removed (never a
folder with something left in it), and folders that only they needed go with them.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass, replace

from interp.checkpoints.capture import State, is_under, own_inside
from interp.checkpoints.shadow import Shadow

GITLINK = "160000"
SYMLINK = "120000"


@dataclass(frozen=True)
class Plan:
    """What putting the folder back to `target` changes, from the state `now`."""

    root: str
    target: State
    now: State
    write: tuple[tuple[str, str, str], ...] = ()  # (path, git mode, object) to put back
    remove: tuple[str, ...] = ()  # created since: removed
    chmod: tuple[tuple[str, int], ...] = ()  # only the permission bits differ
    outside: tuple[str, ...] = ()  # of those, changed outside interp since the target
    uncovered: tuple[str, ...] = ()  # left out of the target (over the size bound): untouched
    dirs: frozenset[str] = frozenset()  # the target's folders (they are never removed)

    def __bool__(self) -> bool:
        """True when anything would change."""
        return bool(self.write or self.remove or self.chmod)

    @property
    def paths(self) -> list[str]:
        """Every path the plan touches, sorted."""
        return sorted({*(p for p, _, _ in self.write), *self.remove,
                       *(p for p, _ in self.chmod)})

    def keeping(self, keep: set[str]) -> Plan:
        """The plan without the paths in `keep` (left as they are)."""
        return replace(self, write=tuple(w for w in self.write if w[0] not in keep),
                       remove=tuple(p for p in self.remove if p not in keep),
                       chmod=tuple(c for c in self.chmod if c[0] not in keep),
                       outside=tuple(p for p in self.outside if p not in keep))


@dataclass(frozen=True)
class Applied:
    """What a rewind did: files put back (rewritten or recreated, or their mode), files
    removed, and one line per path it could not put back."""

    restored: tuple[str, ...]
    removed: tuple[str, ...]
    problems: tuple[str, ...]


def outside_paths(shadow: Shadow, spans: list[tuple[State, State, bool]]) -> set[str]:
    """Paths that changed in the spans not made by interp (between blocks, after the last)."""
    out: set[str] = set()
    for old, new, ours in spans:
        if not ours:
            for change in shadow.changes(old.tree, new.tree):
                out.add(change.path)
            entries = None if old.same_usual(new) else shadow.entries(new.tree)
            out.update(old.mode_changes(new, entries))
    return out


def make_plan(shadow: Shadow, target: State, now: State, outside: set[str]) -> Plan:
    """The plan that takes the folder from `now` back to `target`."""
    entries = shadow.entries(target.tree)
    kept = {*target.skipped, *target.unreadable}
    own = own_inside(shadow.folder, shadow.base)  # recorded before interp left them out
    write, remove = [], []
    for change in shadow.changes(target.tree, now.tree):
        if GITLINK in (change.old_mode, change.new_mode) or is_under(change.path, own):
            continue  # a nested repository, or interp's own data: not covered
        if change.status == "A":
            if change.path not in kept:
                remove.append(change.path)
        else:
            write.append((change.path, change.old_mode, change.old_sha))
    touched = {p for p, _, _ in write} | set(remove)
    chmod = []
    usual = target.same_usual(now)
    for path in sorted(({*target.modes, *now.modes} if usual else set(entries)) - touched):
        if (path in entries and entries[path][0] not in (GITLINK, SYMLINK)
                and not is_under(path, own)):
            want = target.bits(path, entries[path][0])
            if want != now.bits(path, entries[path][0]):
                chmod.append((path, want))
    dirs = frozenset(p.rsplit("/", i)[0] for p in entries for i in range(1, p.count("/") + 1))
    paths = touched | {p for p, _ in chmod}
    return Plan(shadow.folder, target, now, tuple(sorted(write)), tuple(sorted(remove)),
                tuple(chmod), tuple(sorted(paths & outside)), tuple(target.skipped), dirs)


def apply(shadow: Shadow, plan: Plan) -> Applied:
    """Carry the plan out; a path that cannot be put back is named, the rest still go."""
    root, problems, removed, restored = plan.root, [], [], []
    for rel in sorted(plan.remove, key=lambda p: (-p.count("/"), p)):
        path, problem = _place(root, rel, create=False)
        if problem:
            problems.append(problem)
            continue
        try:
            if path is not None and not stat.S_ISDIR(os.lstat(path).st_mode):
                os.unlink(path)
                removed.append(rel)
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(f"{rel}: not removed ({exc.strerror or exc})")
    _drop_empty_dirs(root, removed, plan.dirs)
    blobs = shadow.blobs([sha for _, _, sha in plan.write])
    for rel, mode, sha in plan.write:
        problem = _put(root, rel, mode, blobs[sha], plan.target.bits(rel, mode))
        if problem:
            problems.append(problem)
        else:
            restored.append(rel)
    for rel, bits in plan.chmod:
        path, problem = _place(root, rel, create=False)
        try:
            if problem or path is None:
                raise OSError(problem or "it is gone")
            os.chmod(path, bits, follow_symlinks=False)
            restored.append(rel)
        except (OSError, NotImplementedError) as exc:
            problems.append(f"{rel}: mode not put back ({getattr(exc, 'strerror', None) or exc})")
    return Applied(tuple(sorted(restored)), tuple(removed), tuple(problems))


def _place(root: str, rel: str, create: bool) -> tuple[str | None, str | None]:
    """(the path of `rel` under root, None) when every parent is a real folder inside root
    (made when `create`); (None, None) when a parent is missing; else (None, why)."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return None, f"{rel}: not a path inside the folder"
    here = root
    for part in parts[:-1]:
        here = os.path.join(here, part)
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            if not create:
                return None, None
            try:
                os.mkdir(here)
            except OSError as exc:
                return None, f"{rel}: folder not made ({exc.strerror or exc})"
            continue
        if not stat.S_ISDIR(mode):
            what = "a symlink" if stat.S_ISLNK(mode) else "not a folder"
            return None, f"{rel}: not put back, {os.path.relpath(here, root)} is {what} now"
    return os.path.join(root, *parts), None


def _put(root: str, rel: str, mode: str, data: bytes, bits: int) -> str | None:
    """Write one file or symlink; returns a problem, or None."""
    path, problem = _place(root, rel, create=True)
    if problem or path is None:
        return problem or f"{rel}: not put back"
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.rmdir(path)  # a folder in its place: only an empty one goes
    except FileNotFoundError:
        pass
    except OSError as exc:
        return f"{rel}: not put back, a folder is in its place ({exc.strerror or exc})"
    tmp = os.path.join(os.path.dirname(path), f".interp-rewind-{secrets.token_hex(4)}")
    try:
        if mode == SYMLINK:
            os.symlink(os.fsdecode(data), tmp)
        else:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fchmod(fd, bits)
            finally:
                os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return f"{rel}: not put back ({exc.strerror or exc})"
    return None


def _drop_empty_dirs(root: str, removed: list[str], keep: frozenset[str]) -> None:
    """Remove the folders that held only removed files and are not in the target."""
    dirs = {p.rsplit("/", i)[0] for p in removed for i in range(1, p.count("/") + 1)}
    for rel in sorted(dirs - keep, key=lambda p: -p.count("/")):
        try:
            os.rmdir(os.path.join(root, rel))
        except OSError:
            continue  # not empty (an ignored file, a new one): it stays
