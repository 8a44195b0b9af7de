"""The shadow git repository that keeps one folder's checkpoints (never the folder's own .git).

One bare repository per folder under DATA_DIR/checkpoints/, driven with --git-dir and
--work-tree. Git runs with the user's environment minus every GIT_* variable, with a global
config of interp's own (no system config: no filters, hooks or fsmonitor of the user's) and
attributes that turn every conversion off, so a file comes back byte for byte. Each process
that records uses an index file of its own, seeded from the last one saved, so two interps in
one folder never wait on each other's lock. Paths are bytes on disk: they are decoded with
os.fsdecode, so any file name round-trips.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

GIT_SECONDS = 60.0  # the bound of every git call other than a snapshot's `git add`
REF_PREFIX = "refs/interp/"
_CONFIG = """\
[core]
\tautocrlf = false
\tsafecrlf = false
\tsymlinks = true
\tquotepath = false
\tfsmonitor = false
\tuntrackedCache = false
\tlooseCompression = 1
\tpreciousObjects = false
[gc]
\tauto = 0
[safe]
\tdirectory = *
[advice]
\taddEmbeddedRepo = false
\taddIgnoredFile = false
[init]
\tdefaultBranch = checkpoints
"""
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_QUOTED = re.compile(r"""['"](.+?)['"]""")
_VANISHED = re.compile(r"^fatal: unable to stat '(.+)': No such file or directory$", re.M)


class CheckpointError(Exception):
    """A checkpoint cannot be taken or read; the message is one line for the person."""


class TooSlow(CheckpointError):
    """`git add` ran past its time bound; it goes on in the background as a cache warmer."""


class Vanished(CheckpointError):
    """`git add` stopped at a file that went away while it ran (`path`)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} vanished while the folder was recorded")
        self.path = path


@dataclass(frozen=True)
class Change:
    """One path that differs between two trees (git's raw diff, status A D M T or R)."""

    status: str
    path: str
    old_mode: str
    new_mode: str
    old_sha: str
    new_sha: str
    old_path: str | None = None  # for a rename


@dataclass(frozen=True)
class Added:
    """What a finished `git add` could not take: files it could not read, nested repositories."""

    unreadable: tuple[str, ...] = ()
    nested: tuple[str, ...] = ()


def folder_key(folder: str) -> str:
    """The shadow repository's folder name for a working folder: a hash and a readable tail."""
    real = os.path.realpath(folder)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    tail = _SAFE_NAME.sub("_", os.path.basename(real) or "root")[:32]
    return f"{digest}-{tail}"


def git_path() -> str | None:
    """The git program on PATH, or None."""
    return shutil.which("git")


class Shadow:
    """The shadow repository of `folder` under `base` (DATA_DIR/checkpoints), with the index
    file named `index` (one per process that records; "index" is the shared seed)."""

    def __init__(self, base: Path, folder: str, index: str = "index", git: str = "git") -> None:
        self.base = Path(base)
        self.folder = os.path.realpath(folder)
        self.dir = self.base / folder_key(self.folder)
        self.seed = self.dir / "index"
        self.index = self.seed if index == "index" else self.dir / f"index-{index}"
        self.git = git

    # -- set-up -----------------------------------------------------------------------------
    def exists(self) -> bool:
        """True once the repository was created."""
        return (self.dir / "HEAD").is_file()

    def open(self) -> None:
        """Create the repository (and interp's git config) if needed; CheckpointError if not."""
        try:
            self.base.mkdir(parents=True, exist_ok=True, mode=0o700)
            config = self.base / "gitconfig"
            if not config.is_file() or config.read_text() != _CONFIG:
                _write_atomic(config, _CONFIG.encode())
            if not self.exists():
                self.run("init", "-q", "--bare", "--template=", os.fspath(self.dir), repo=False)
                (self.dir / "info").mkdir(exist_ok=True)
                _write_atomic(self.dir / "info" / "attributes", _ATTRIBUTES.encode())
                _write_atomic(self.dir / "folder", os.fsencode(self.folder) + b"\n")
            if self.index != self.seed and not self.index.exists() and self.seed.exists():
                shutil.copyfile(self.seed, self.index)
        except OSError as exc:
            raise CheckpointError(f"cannot write checkpoints to {self.base}: "
                                  f"{exc.strerror or exc}") from None

    def set_excludes(self, text: str) -> None:
        """What git leaves out besides the folder's .gitignore files (info/exclude)."""
        path = self.dir / "info" / "exclude"
        try:
            if not path.is_file() or path.read_text(errors="surrogateescape") != text:
                _write_atomic(path, text.encode(errors="surrogateescape"))
        except OSError as exc:
            raise CheckpointError(f"cannot write checkpoints to {self.dir}: "
                                  f"{exc.strerror or exc}") from None

    def env(self) -> dict[str, str]:
        """The environment git runs in: the user's without GIT_*, interp's own config."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(GIT_CONFIG_GLOBAL=os.fspath(self.base / "gitconfig"), GIT_CONFIG_NOSYSTEM="1",
                   GIT_INDEX_FILE=os.fspath(self.index), GIT_TERMINAL_PROMPT="0", LC_ALL="C",
                   GIT_OPTIONAL_LOCKS="0")
        return env

    def _argv(self, args: tuple[str, ...], repo: bool = True) -> list[str]:
        where = [f"--git-dir={self.dir}", f"--work-tree={self.folder}"] if repo else []
        return [self.git, *where, *args]

    def run(self, *args: str, input: bytes = b"", timeout: float = GIT_SECONDS,
            repo: bool = True) -> bytes:
        """Run git; its standard output, or CheckpointError with git's first error line."""
        try:
            done = subprocess.run(self._argv(args, repo), input=input, capture_output=True,
                                  env=self.env(), cwd=self.folder if repo else None,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CheckpointError(f"git {args[0]} took over {timeout:g} s") from None
        except OSError as exc:
            raise CheckpointError(f"cannot run git: {exc.strerror or exc}") from None
        if done.returncode != 0:
            raise CheckpointError(f"git {args[0]} failed: {_first_error(done.stderr)}")
        return done.stdout

    # -- recording --------------------------------------------------------------------------
    def start_add(self) -> tuple[subprocess.Popen, object]:
        """Start `git add -A` (the snapshot's slow part); returns the process and the file
        that collects its messages (see `added`)."""
        errors = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(self._argv(("add", "-A", "--ignore-errors")),
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=errors, env=self.env(), cwd=self.folder,
                                    start_new_session=True)
        except OSError as exc:
            errors.close()
            raise CheckpointError(f"cannot run git: {exc.strerror or exc}") from None
        return proc, errors

    @staticmethod
    def added(proc: subprocess.Popen, errors) -> Added:
        """What a finished `git add` left out; CheckpointError when it failed outright."""
        errors.seek(0)
        text = os.fsdecode(errors.read(1 << 20))
        errors.close()
        if proc.returncode not in (0, 1):  # 1: some files could not be read (--ignore-errors)
            if gone := _VANISHED.search(text):
                raise Vanished(gone.group(1))
            raise CheckpointError(f"git add failed: {_first_error(os.fsencode(text))}")
        unreadable, nested = [], []
        for line in text.splitlines():
            if "embedded git repository" in line:
                nested.append(line.rpartition(": ")[2].strip().rstrip("/"))
            elif "does not have a commit checked out" in line and (found := _QUOTED.search(line)):
                nested.append(found.group(1).rstrip("/"))
            elif line.startswith(("error:", "warning:")) and (found := _QUOTED.search(line)):
                unreadable.append(found.group(1))
        return Added(tuple(dict.fromkeys(unreadable)), tuple(dict.fromkeys(nested)))

    def write_tree(self) -> str:
        """The tree of the index as it stands (after `git add`)."""
        return self.run("write-tree").decode().strip()

    def keep(self, refs: dict[str, str]) -> None:
        """Point refs (names under refs/interp/) at objects, so that pruning keeps them."""
        if refs:
            lines = "".join(f"update {REF_PREFIX}{name} {sha}\n" for name, sha in refs.items())
            self.run("update-ref", "--stdin", input=lines.encode())

    def save_index(self) -> None:
        """Make this process's index the seed of the next one (best effort)."""
        if self.index == self.seed:
            return
        try:
            tmp = self.seed.with_name(f"index.{os.getpid()}.tmp")
            shutil.copyfile(self.index, tmp)
            os.replace(tmp, self.seed)
        except OSError:
            pass

    # -- reading ----------------------------------------------------------------------------
    def changes(self, old: str, new: str, renames: bool = False) -> list[Change]:
        """The paths that differ from tree `old` to tree `new`."""
        if old == new:
            return []
        flags = ("-M",) if renames else ("--no-renames",)
        raw = self.run("diff-tree", "-r", "-z", *flags, old, new).split(b"\0")
        out, i = [], 0
        while i + 1 < len(raw) and raw[i].startswith(b":"):
            old_mode, new_mode, old_sha, new_sha, status = raw[i][1:].decode().split(" ")
            if status.startswith(("R", "C")):
                out.append(Change(status[0], os.fsdecode(raw[i + 2]), old_mode, new_mode,
                                  old_sha, new_sha, os.fsdecode(raw[i + 1])))
                i += 3
            else:
                out.append(Change(status[0], os.fsdecode(raw[i + 1]), old_mode, new_mode,
                                  old_sha, new_sha))
                i += 2
        return out

    def patch(self, old: str, new: str) -> bytes:
        """A unified diff from tree `old` to tree `new` (renames found; binary files named),
        as git writes it (the files' own bytes)."""
        if old == new:
            return b""
        return self.run("diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M", old, new)

    def entries(self, tree: str) -> dict[str, tuple[str, str]]:
        """Every file of a tree: path -> (mode, object id)."""
        out = {}
        for item in self.run("ls-tree", "-r", "-z", "--full-tree", tree).split(b"\0"):
            if item:
                head, _, path = item.partition(b"\t")
                mode, _, sha = head.decode().split(" ")
                out[os.fsdecode(path)] = (mode, sha)
        return out

    def blobs(self, shas: list[str]) -> dict[str, bytes]:
        """The contents of objects, read in one `git cat-file --batch`."""
        wanted = list(dict.fromkeys(shas))
        if not wanted:
            return {}
        raw = self.run("cat-file", "--batch", input="".join(s + "\n" for s in wanted).encode())
        out, pos = {}, 0
        for sha in wanted:
            end = raw.index(b"\n", pos)
            header = raw[pos:end].split(b" ")
            if len(header) != 3:
                raise CheckpointError(f"checkpoint object {sha} is missing")
            size = int(header[2])
            out[sha] = raw[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
        return out

    def has(self, sha: str) -> bool:
        """True when the repository holds the object."""
        try:
            self.run("cat-file", "-e", sha)
        except CheckpointError:
            return False
        return True

    # -- pruning ----------------------------------------------------------------------------
    def refs(self) -> list[str]:
        """The names (under refs/interp/) of every ref kept."""
        out = self.run("for-each-ref", "--format=%(refname)", REF_PREFIX).decode()
        return [line[len(REF_PREFIX):] for line in out.splitlines() if line]

    def drop_refs(self, names: list[str]) -> None:
        """Delete refs (names under refs/interp/)."""
        if names:
            lines = "".join(f"delete {REF_PREFIX}{name}\n" for name in names)
            self.run("update-ref", "--stdin", input=lines.encode())

    def start_prune(self) -> subprocess.Popen:
        """Start deleting the objects no ref keeps (those written in the last hour stay: a
        snapshot under way may not have its ref yet)."""
        return subprocess.Popen(self._argv(("prune", "--expire=1.hour.ago")),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=self.env(), cwd=self.folder,
                                start_new_session=True)


def _first_error(stderr: bytes) -> str:
    lines = [line.strip() for line in os.fsdecode(stderr).splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["no message"])[0][:300]


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
