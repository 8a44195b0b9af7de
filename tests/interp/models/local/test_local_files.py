"""Local model files: GGUF headers, where models live, which one runs."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from gguf_samples import _string, gguf, sample
from interp.models.local.files import (DEFAULT_MODEL, ModelFileError, default_model_path,
                                       models_dir, read_gguf, resolve_model, writes_calls_as_text)

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def test_reads_architecture_context_and_name(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(sample(32768))
    info = read_gguf(path)
    assert (info.architecture, info.context_length, info.name) == ("qwen2", 32768, "Tiny Test")


def test_a_header_without_context_length_gives_none(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf([("general.architecture", 8, _string("llama"))]))
    assert read_gguf(path).context_length is None


@pytest.mark.parametrize("content, message", [
    (b"PK\x03\x04 a zip file", "not a GGUF model file"),
    (b"", "not a GGUF model file"),
    (None, "cut off or damaged"),
    (b"GGUF" + struct.pack("<IQQ", 1, 0, 0), r"unsupported GGUF version 1 \(llama.cpp reads "
                                               r"versions 2 and 3\)"),
    (b"GGUF" + struct.pack("<IQQ", 3, 0, 0), "names no model architecture"),
    (b"GGUF" + struct.pack("<IQQ", 3, 0, 1 << 40), "the header claims 1,099,511,627,776 metadata keys"),
    (b"GGUF" + struct.pack("<IQQ", 3, 1 << 50, 1), "the header claims 1,125,899,906,842,624 tensors"),
    (b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1 << 40),
     "key 1 claims 1,099,511,627,776 bytes"),
    (gguf([("general.architecture", 8, _string("qwen2")), ("t", 9, struct.pack("<IQ", 8, 1 << 61))]),
     "the array t claims 2,305,843,009,213,693,952 items, more than the 0 bytes left"),
    (gguf([("general.architecture", 8, _string("qwen2")), ("t", 9, struct.pack("<IQ", 4, 1 << 40))]),
     "the array t claims 1,099,511,627,776 items"),
    (gguf([("general.architecture", 99, b"")]), "general.architecture has the unknown value type 99"),
    (gguf([("general.architecture", 8, b"\x02" + b"\x00" * 7 + b"\xff\xfe")]), "not UTF-8"),
])
def test_bad_files_are_one_clear_error(tmp_path, content, message):
    path = tmp_path / "m.gguf"
    path.write_bytes(sample()[:60] if content is None else content)
    with pytest.raises(ModelFileError, match=message):
        read_gguf(path)


def test_missing_files_and_directories(tmp_path):
    with pytest.raises(ModelFileError, match="no such file"):
        read_gguf(tmp_path / "absent.gguf")
    with pytest.raises(ModelFileError, match="is a directory"):
        read_gguf(tmp_path)
    os.mkfifo(tmp_path / "pipe.gguf")  # an open() to read would wait for a writer
    with pytest.raises(ModelFileError, match=r"is a named pipe \(FIFO\), not a .gguf file"):
        read_gguf(tmp_path / "pipe.gguf")
    with pytest.raises(ModelFileError, match="is a character device, not a .gguf file"):
        read_gguf(Path("/dev/zero"))


def test_models_live_in_the_cache_dir(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    assert models_dir(env) == tmp_path / "interp" / "models"
    assert default_model_path(env) == tmp_path / "interp" / "models" / DEFAULT_MODEL.filename


def test_resolve_prefers_the_given_path_then_the_default(tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert resolve_model(None, env) is None
    default = default_model_path(env)
    default.parent.mkdir(parents=True)
    default.write_bytes(sample())
    assert resolve_model(None, env) == default
    given = tmp_path / "mine.gguf"
    given.write_bytes(sample())
    assert resolve_model(str(given), env) == given
    with pytest.raises(ModelFileError, match="no such file"):
        resolve_model(str(tmp_path / "typo.gguf"), env)


def test_the_default_model_comes_from_the_hub_or_a_mirror():
    assert DEFAULT_MODEL.url({}) == (
        "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/"
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    mirror = DEFAULT_MODEL.url({"HF_ENDPOINT": "http://127.0.0.1:9/"})
    assert mirror.startswith("http://127.0.0.1:9/Qwen/")


def _named(tmp_path, name: str):
    path = tmp_path / "model.gguf"
    path.write_bytes(gguf([("general.architecture", 8, _string("qwen2")),
                           ("qwen2.context_length", 4, struct.pack("<I", 4096)),
                           ("general.name", 8, _string(name))]))
    return path


@pytest.mark.parametrize("name,fenced", [
    ("Qwen2.5 Coder 1.5B Instruct GGUF", True), ("Qwen2.5 Coder 0.5B Instruct AWQ", True),
    ("Qwen2.5 Coder 7B Instruct", False), ("Llama 3.2 1B Instruct", False)])
def test_models_measured_to_write_calls_as_text_get_fenced_blocks(tmp_path, name, fenced):
    """Qwen2.5-Coder 1.5B, offered the tool by its template, wrote every call as JSON text
    (`interp eval tasks`); it is not offered the tool, and says why, without loading."""
    from interp.core.replies.tool_choice import choose_tools
    from interp.models.local.server import LocalConfig, LocalServer
    from interp.models.local.model import LocalModel

    assert writes_calls_as_text(name) is fenced
    if fenced:
        model = LocalModel(LocalServer(LocalConfig(_named(tmp_path, name), threads=1)))
        choice = choose_tools("auto", model)
        assert not choice.send and choice.notice == (
            f"tools: off for {model.name} (it writes tool calls as text, measured with interp's "
            f"task benchmark; --tools on)")
        assert model.server.info is None  # nothing was loaded to decide
