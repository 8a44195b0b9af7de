"""Local model files: which GGUF to run, the default model, and what a GGUF header says."""

from __future__ import annotations

import os
import re
import stat
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from languages.cache import cache_folder

GGUF_MAGIC = b"GGUF"
# GGUF value types whose size is fixed: type id -> struct format.
_FIXED = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
_MAX_KEYS = 1 << 16  # far more than any real model has; a garbage header stops here
_MAX_TENSORS = 1 << 20
_MAX_STRING = 1 << 26


class ModelFileError(Exception):
    """A local model file is missing or is not a usable GGUF file; the message says which."""


HF_ENDPOINT = "https://huggingface.co"


@dataclass(frozen=True)
class ModelSpec:
    """A model file on the Hugging Face hub: its repository, name, size and sha256."""

    title: str
    repo: str
    filename: str
    size: int
    sha256: str

    def url(self, environ: Mapping[str, str] | None = None) -> str:
        """The download address; `HF_ENDPOINT` (as the hub's own tools read it) sets a mirror."""
        env = os.environ if environ is None else environ
        endpoint = (env.get("HF_ENDPOINT") or HF_ENDPOINT).rstrip("/")
        return f"{endpoint}/{self.repo}/resolve/main/{self.filename}"


# Qwen's own Q4_K_M build of Qwen2.5-Coder-1.5B-Instruct (Apache-2.0).
DEFAULT_MODEL = ModelSpec(
    title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)


def size_text(n: int) -> str:
    """Bytes as MB or GB."""
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


@dataclass(frozen=True)
class GGUFInfo:
    """What interp needs from a GGUF header."""

    architecture: str
    context_length: int | None  # tokens the model was trained for (`<arch>.context_length`)
    name: str | None  # `general.name`, when the file has one


def models_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where downloaded models live: `models` in interp's cache folder."""
    return cache_folder(environ) / "models"


def default_model_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the default model is (or will be, once downloaded)."""
    return models_dir(environ) / DEFAULT_MODEL.filename


def resolve_model(explicit: str | None, environ: Mapping[str, str] | None = None) -> Path | None:
    """The GGUF to run: `explicit` (--local PATH, INTERP_LOCAL_MODEL) if given, else the
    downloaded default, else None. A given path must be a readable GGUF (ModelFileError)."""
    if explicit:
        path = Path(explicit).expanduser()
        read_gguf(path)
        return path.absolute()
    path = default_model_path(environ)
    return path if path.is_file() else None


# Models that, offered the execute tool through their chat template, write the call as JSON
# text instead (measured: Qwen2.5-Coder 0.5B and 1.5B Instruct on `interp eval tasks`, see the
# README's "Tasks benchmark"); they get fenced code blocks, which they write reliably.
_TEXT_CALLERS = re.compile(r"qwen2\.5[ _.-]?coder[ _.-]?(0\.5|1\.5|3)b", re.IGNORECASE)


def writes_calls_as_text(name: str | None) -> bool:
    """Whether a model (its GGUF name, or file name) is one measured to write tool calls as
    text rather than making them."""
    return bool(name) and _TEXT_CALLERS.search(name) is not None


def read_gguf(path: Path) -> GGUFInfo:
    """Read the architecture, trained context length and name from a GGUF file's header.

    Only a regular file is opened (a FIFO would block the open, a device could be endless),
    and every count and size in the header is checked against the file's size before it is
    read, so a damaged or hostile header is one precise ModelFileError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ModelFileError(f"{path}: no such file") from None
    except OSError as exc:
        if os.path.isdir(path):
            raise ModelFileError(f"{path}: is a directory, not a .gguf file") from None
        raise ModelFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ModelFileError(f"{path}: is a directory, not a .gguf file")
        raise ModelFileError(f"{path}: is {_file_kind(info.st_mode)}, not a .gguf file")
    with os.fdopen(fd, "rb") as fh:
        try:
            return _Header(fh, path, info.st_size).read()
        except OSError as exc:
            raise ModelFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise ModelFileError(f"{path}: not a GGUF model file (a metadata key or string is "
                                 f"not UTF-8)") from None


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


class _Header:
    """A GGUF header read from `fh`, every size checked against the file's `size` first."""

    def __init__(self, fh, path: Path, size: int) -> None:
        self.fh, self.path, self.size = fh, path, size

    def damaged(self, what: str) -> ModelFileError:
        return ModelFileError(f"{self.path}: not a GGUF model file (its header is cut off or "
                              f"damaged: {what})")

    def exact(self, n: int, what: str) -> bytes:
        at = self.fh.tell()
        if n > self.size - at:
            raise self.damaged(f"{what} at byte {at} needs {n:,} bytes, past the end of the "
                               f"file ({self.size:,} bytes)")
        data = self.fh.read(n)
        if len(data) != n:
            raise self.damaged(f"the file ended at byte {at + len(data):,} while it was read")
        return data

    def read(self) -> GGUFInfo:
        if self.fh.read(4) != GGUF_MAGIC:
            raise ModelFileError(f"{self.path}: not a GGUF model file (llama.cpp runs .gguf files)")
        version, tensors, count = struct.unpack("<IQQ", self.exact(20, "the header"))
        if version not in (2, 3):
            raise ModelFileError(f"{self.path}: unsupported GGUF version {version} (llama.cpp "
                                 "reads versions 2 and 3)")
        if count > _MAX_KEYS:
            raise self.damaged(f"the header claims {count:,} metadata keys (a model has a few "
                               f"dozen; at most {_MAX_KEYS:,} are read)")
        if tensors > _MAX_TENSORS:
            raise self.damaged(f"the header claims {tensors:,} tensors (at most {_MAX_TENSORS:,})")
        found: dict[str, object] = {}
        for number in range(count):
            key = self.string(f"key {number + 1}")
            kind = struct.unpack("<I", self.exact(4, f"the type of {key}"))[0]
            wanted = key in ("general.architecture", "general.name") or key.endswith(".context_length")
            value = self.value(kind, key, keep=wanted)
            if wanted:
                found[key] = value
            arch = found.get("general.architecture")
            if isinstance(arch, str) and f"{arch}.context_length" in found and "general.name" in found:
                break
        arch = found.get("general.architecture")
        if not isinstance(arch, str):
            raise ModelFileError(f"{self.path}: the GGUF header names no model architecture")
        context = found.get(f"{arch}.context_length")
        name = found.get("general.name")
        return GGUFInfo(arch, context if isinstance(context, int) and context > 0 else None,
                        name if isinstance(name, str) else None)

    def string(self, what: str) -> str:
        size = struct.unpack("<Q", self.exact(8, f"the length of {what}"))[0]
        if size > _MAX_STRING:
            raise self.damaged(f"{what} claims {size:,} bytes (at most {_MAX_STRING:,})")
        return self.exact(size, what).decode("utf-8")

    def value(self, kind: int, key: str, *, keep: bool) -> object:
        """Read (or skip, unless `keep`) one value of GGUF type `kind`."""
        if kind in _FIXED:
            fmt = "<" + _FIXED[kind]
            return struct.unpack(fmt, self.exact(struct.calcsize(fmt), f"the value of {key}"))[0]
        if kind == _STRING:
            return self.string(f"the value of {key}")
        if kind != _ARRAY:
            raise self.damaged(f"{key} has the unknown value type {kind}")
        item, count = struct.unpack("<IQ", self.exact(12, f"the array {key}"))
        if item not in _FIXED and item not in (_STRING, _ARRAY):
            raise self.damaged(f"the array {key} has the unknown item type {item}")
        least = struct.calcsize("<" + _FIXED[item]) if item in _FIXED else 8
        left = self.size - self.fh.tell()
        if count > left // least:
            raise self.damaged(f"the array {key} claims {count:,} items, more than the "
                               f"{left:,} bytes left in the file can hold")
        if item in _FIXED:
            self.fh.seek(least * count, os.SEEK_CUR)
        else:
            for _ in range(count):
                self.value(item, key, keep=False)
        return None
