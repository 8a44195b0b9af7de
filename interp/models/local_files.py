"""Local model files: which GGUF to run, the default model, and what a GGUF header says."""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

GGUF_MAGIC = b"GGUF"
# GGUF value types whose size is fixed: type id -> struct format.
_FIXED = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
_MAX_KEYS = 1 << 16  # far more than any real model has; a garbage header stops here
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


@dataclass(frozen=True)
class GGUFInfo:
    """What interp needs from a GGUF header."""

    architecture: str
    context_length: int | None  # tokens the model was trained for (`<arch>.context_length`)
    name: str | None  # `general.name`, when the file has one


def models_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where downloaded models live: `$XDG_CACHE_HOME/interp/models` (platformdirs' cache)."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CACHE_HOME", "")
    base = Path(xdg) / "interp" if xdg and os.path.isabs(xdg) else platformdirs.user_cache_path("interp")
    return base / "models"


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
    """Read the architecture, trained context length and name from a GGUF file's header."""
    try:
        with open(path, "rb") as fh:
            return _read_header(fh, path)
    except FileNotFoundError:
        raise ModelFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path}: is a directory, not a .gguf file") from None
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (struct.error, UnicodeDecodeError, EOFError):
        raise ModelFileError(f"{path}: not a GGUF model file (its header is cut off or "
                             f"damaged)") from None


def _read_header(fh, path: Path) -> GGUFInfo:
    if fh.read(4) != GGUF_MAGIC:
        raise ModelFileError(f"{path}: not a GGUF model file (llama.cpp runs .gguf files)")
    version, _tensors, count = struct.unpack("<IQQ", _exact(fh, 20))
    if version < 2 or count > _MAX_KEYS:
        raise ModelFileError(f"{path}: unsupported GGUF version {version}")
    found: dict[str, object] = {}
    for _ in range(count):
        key = _string(fh)
        kind = struct.unpack("<I", _exact(fh, 4))[0]
        wanted = key in ("general.architecture", "general.name") or key.endswith(".context_length")
        value = _value(fh, kind, keep=wanted)
        if wanted:
            found[key] = value
        arch = found.get("general.architecture")
        if isinstance(arch, str) and f"{arch}.context_length" in found and "general.name" in found:
            break
    arch = found.get("general.architecture")
    if not isinstance(arch, str):
        raise ModelFileError(f"{path}: the GGUF header names no model architecture")
    context = found.get(f"{arch}.context_length")
    name = found.get("general.name")
    return GGUFInfo(arch, context if isinstance(context, int) and context > 0 else None,
                    name if isinstance(name, str) else None)


def _exact(fh, n: int) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise EOFError
    return data


def _string(fh) -> str:
    size = struct.unpack("<Q", _exact(fh, 8))[0]
    if size > _MAX_STRING:
        raise EOFError
    return _exact(fh, size).decode("utf-8")


def _value(fh, kind: int, *, keep: bool) -> object:
    """Read (or skip, unless `keep`) one value of GGUF type `kind`."""
    if kind in _FIXED:
        fmt = "<" + _FIXED[kind]
        return struct.unpack(fmt, _exact(fh, struct.calcsize(fmt)))[0]
    if kind == _STRING:
        return _string(fh)
    if kind != _ARRAY:
        raise EOFError
    item, count = struct.unpack("<IQ", _exact(fh, 12))
    if item in _FIXED:
        fh.seek(struct.calcsize("<" + _FIXED[item]) * count, os.SEEK_CUR)
    else:
        for _ in range(count):
            _value(fh, item, keep=False)
    return None
