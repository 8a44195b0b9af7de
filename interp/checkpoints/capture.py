"""Recording a folder's state in its shadow repository: what git leaves out, `git add -A`
within a deadline, the tree, and the permission bits that git does not keep.

Left out besides the folder's .gitignore files: what the folder's own repository excludes
(.git/info/exclude; from an enclosing repository's ignore files only the patterns that apply
at any depth), the folders interp's file reports skip (node_modules, virtualenvs, caches:
`workspace.SKIP_DIRS`), interp's data dir if it lies inside, and files over the size bound.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interp.core.files import workspace
from interp.checkpoints.shadow import Added, CheckpointError, Shadow, TooSlow, Vanished

MAX_FILE_BYTES = 20 << 20  # files over 20 MiB are not checkpointed (README: Checkpoints)
UPDATE_TRIES = 5  # path-by-path updates tried when files keep vanishing under git
_GLOB = re.compile(r"([\\*?\[\]!#])")


@dataclass(frozen=True)
class State:
    """One recorded state of a folder: a tree in its shadow repository, and what it lacks."""

    tree: str
    modes: Mapping[str, int] = field(default_factory=dict)  # permission bits not plain or exe
    skipped: tuple[str, ...] = ()  # files over the size bound: not in the tree
    unreadable: tuple[str, ...] = ()  # files that vanished or could not be read meanwhile
    nested: tuple[str, ...] = ()  # folders that are git repositories of their own
    plain: int = 0o644  # the usual permission bits of the folder's files (umask 077: 0o600)
    exe: int = 0o755  # and of its executable ones

    def bits(self, path: str, git_mode: str) -> int:
        """The permission bits of a file of the tree (git's mode: "100644" or "100755")."""
        default = self.exe if git_mode == "100755" else self.plain
        return self.modes.get(path, default)

    def same_usual(self, other: State) -> bool:
        """True when both have the same usual permission bits."""
        return (self.plain, self.exe) == (other.plain, other.exe)

    def mode_changes(self, other: State, entries: Mapping[str, tuple[str, str]] | None = None
                     ) -> set[str]:
        """Files whose permission bits alone may differ in `other`; when the usual bits differ,
        every file is compared, so `entries` (path -> (git mode, object)) must be given."""
        if entries is not None and not self.same_usual(other):
            return {p for p, (mode, _) in entries.items() if mode in ("100644", "100755")
                    and self.bits(p, mode) != other.bits(p, mode)}
        out = set()
        for path in {*self.modes, *other.modes}:
            exec_bit = (self.modes.get(path) or other.modes.get(path) or 0) & stat.S_IXUSR
            git_mode = "100755" if exec_bit else "100644"
            if self.bits(path, git_mode) != other.bits(path, git_mode):
                out.add(path)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The JSON form kept in the session file."""
        return {"tree": self.tree, "modes": dict(self.modes), "skipped": list(self.skipped),
                "unreadable": list(self.unreadable), "nested": list(self.nested),
                "plain": self.plain, "exe": self.exe}

    @classmethod
    def from_dict(cls, raw: object) -> State | None:
        """The state in a stored record, or None when it is not one."""
        if not isinstance(raw, Mapping) or not _is_sha(raw.get("tree")):
            return None
        modes = raw.get("modes")
        modes = {k: v for k, v in modes.items() if isinstance(k, str) and isinstance(v, int)
                 and not isinstance(v, bool)} if isinstance(modes, Mapping) else {}
        plain, exe = (raw.get(k) for k in ("plain", "exe"))
        return cls(raw["tree"], modes, *(_strings(raw.get(k)) for k in
                                         ("skipped", "unreadable", "nested")),
                   plain=plain if _is_bits(plain) else 0o644,
                   exe=exe if _is_bits(exe) else 0o755)


class Capturer:
    """Takes the states of one folder, one `git add` at a time; a slow one is left to finish
    in the background (it warms git's index for the next) and the state is not taken."""

    def __init__(self, shadow: Shadow, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self.shadow = shadow
        self.max_file_bytes = max_file_bytes
        self._pending: tuple[subprocess.Popen, object] | None = None

    def warm(self, snap: workspace.Snapshot) -> None:
        """Start a `git add` now, ahead of the next state (errors are left for `take`)."""
        if self._pending is None:
            try:
                self.shadow.open()
                self.shadow.set_excludes(exclude_text(self.shadow.folder, self.shadow.base,
                                                      snap.files.items(),
                                                      self.max_file_bytes)[0])
                self._pending = self.shadow.start_add()
            except CheckpointError:
                pass

    def take(self, snap: workspace.Snapshot | None, deadline: float) -> State:
        """The folder's state now (`snap`: a snapshot taken just before, for the size bound
        and the modes); TooSlow past `deadline`, CheckpointError when git fails."""
        self.shadow.open()
        if self._pending is not None:  # an earlier one, left to warm the index: its end only
            try:
                self._finish(deadline, "the previous snapshot of this folder is still running")
            except TooSlow:
                raise
            except CheckpointError:
                pass
        sizes = snap.files.items() if snap is not None else ()
        text, skipped = exclude_text(self.shadow.folder, self.shadow.base, sizes,
                                     self.max_file_bytes)
        self.shadow.set_excludes(text)
        self._pending = self.shadow.start_add()
        try:
            added = self._finish(deadline, "")
        except Vanished as exc:  # git add stops at a file that went away: one by one instead
            added = Added((exc.path,))
            self._update_listed(deadline)
        tree = self.shadow.write_tree()
        self.shadow.save_index()
        plain, exe, modes = modes_of(snap, set(skipped))
        return State(tree, modes, skipped, added.unreadable, added.nested, plain, exe)

    def _update_listed(self, deadline: float) -> None:
        """Bring the index up to date path by path; a path gone meanwhile is dropped, and a
        run that a file vanished under is tried again (a few times)."""
        for _ in range(UPDATE_TRIES):
            seconds = deadline - time.monotonic()
            if seconds <= 0:
                raise TooSlow("")
            try:
                listed = self.shadow.run("ls-files", "-z", "-o", "-m", "-d",
                                         "--exclude-standard", timeout=seconds)
                paths = [p for p in listed.split(b"\0") if p and not p.endswith(b"/")]
                self.shadow.run("update-index", "--add", "--remove", "-z", "--stdin",
                                input=b"".join(p + b"\0" for p in paths),
                                timeout=max(0.1, deadline - time.monotonic()))
                return
            except CheckpointError as exc:
                Path(f"{self.shadow.index}.lock").unlink(missing_ok=True)
                if "No such file or directory" not in str(exc):
                    raise
        raise CheckpointError("files kept vanishing while the folder was recorded")

    def _finish(self, deadline: float, why: str):
        proc, errors = self._pending
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise TooSlow(why) from None
        self._pending = None
        return Shadow.added(proc, errors)

    def close(self) -> None:
        """Stop a `git add` still running (its lock is removed: the index is this one's)."""
        if self._pending is None:
            return
        proc, errors = self._pending
        self._pending = None
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait()
            Path(f"{self.shadow.index}.lock").unlink(missing_ok=True)
        errors.close()


def modes_of(snap: workspace.Snapshot | None, skipped: set[str]
             ) -> tuple[int, int, dict[str, int]]:
    """(the usual permission bits of plain files, of executable ones, and the files whose
    bits are neither): git keeps only whether a file is executable."""
    found: list[tuple[str, int]] = []
    for path, stamp in (snap.stamps.items() if snap is not None else ()):
        mode = stamp & 0xFFFF
        if stat.S_ISREG(mode) and path not in skipped:
            found.append((path, stat.S_IMODE(mode)))
    plain = _usual([b for _, b in found if not b & stat.S_IXUSR], 0o644)
    exe = _usual([b for _, b in found if b & stat.S_IXUSR], 0o755)
    return plain, exe, {p: b for p, b in found if b != (exe if b & stat.S_IXUSR else plain)}


def _usual(bits: list[int], default: int) -> int:
    return Counter(bits).most_common(1)[0][0] if bits else default


def exclude_text(folder: str, base: Path, sizes, max_bytes: int) -> tuple[str, tuple[str, ...]]:
    """The shadow repository's info/exclude for `folder`, and the files over `max_bytes`
    (from `sizes`: (path, (size, mtime)) pairs) that it leaves out."""
    lines = ["# written by interp: what checkpoints leave out"]
    lines += sorted(f"{name}/" for name in workspace.SKIP_DIRS if name != ".git")
    lines += user_excludes(Path(folder))
    lines += [_anchored(rel) + "/" for rel in sorted(own_inside(folder, base))]
    lines += [_anchored(rel) for rel in sorted(workspace.folders_inside(folder,
                                                                        workspace.own_streams()))]
    skipped = tuple(sorted(p for p, (size, _) in sizes if size > max_bytes and "\n" not in p))
    lines += [_anchored(p) for p in skipped]
    return "\n".join(lines) + "\n", skipped


def own_inside(folder: str, base: Path) -> frozenset[str]:
    """interp's own folders inside `folder` (relative): its data folder (the parent of `base`,
    DATA_DIR/checkpoints), the checkpoints and its cache; never recorded or put back."""
    return workspace.folders_inside(folder, (str(base), *workspace.own_folders(base.parent)))


def is_under(rel: str, folders: frozenset[str]) -> bool:
    """Whether the relative path `rel` lies in one of `folders` (relative too)."""
    return any(rel == folder or rel.startswith(folder + "/") for folder in folders)


def user_excludes(folder: Path) -> list[str]:
    """Ignore patterns of the repository the folder is in that git would not find itself:
    its .git/info/exclude (when the folder is the repository's top, all of it; else, as
    for the .gitignore files above the folder, the patterns that apply at any depth)."""
    above: list[Path] = []
    for place in (folder, *folder.parents):
        dot_git = place / ".git"
        if dot_git.exists():
            top = place == folder
            git_dir = _git_dir(dot_git)
            lines = _patterns(git_dir / "info" / "exclude", anywhere_only=not top) if git_dir \
                else []
            if not top:
                lines += _patterns(place / ".gitignore", anywhere_only=True)
            for path in reversed(above):
                lines += _patterns(path, anywhere_only=True)
            return lines
        if place != folder:
            above.append(place / ".gitignore")
    return []


def _git_dir(dot_git: Path) -> Path | None:
    """The repository folder a .git entry stands for (a worktree's file: its common dir)."""
    if dot_git.is_dir():
        return dot_git
    try:
        text = dot_git.read_text(errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    git_dir = (dot_git.parent / text[len("gitdir:"):].strip()).resolve()
    try:
        common = (git_dir / "commondir").read_text().strip()
        return (git_dir / common).resolve()
    except OSError:
        return git_dir


def _patterns(path: Path, anywhere_only: bool) -> list[str]:
    try:
        text = path.read_text(errors="surrogateescape")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        body = line.strip()
        if not body or body.startswith("#"):
            continue
        if anywhere_only and "/" in body.lstrip("!").rstrip("/"):
            continue
        out.append(line)
    return out


def _anchored(rel: str) -> str:
    """An ignore pattern that matches exactly the path `rel` (relative to the top)."""
    text = _GLOB.sub(r"\\\1", rel)
    stripped = text.rstrip(" ")
    return "/" + stripped + "\\ " * (len(text) - len(stripped))


def _is_sha(value: object) -> bool:
    return isinstance(value, str) and len(value) in (40, 64) and \
        all(c in "0123456789abcdef" for c in value)


def _is_bits(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 0o7777


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()
