"""Small GGUF headers written by hand, for tests that read GGUF metadata (no weights)."""

from __future__ import annotations

import struct


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def gguf(keys: list[tuple[str, int, bytes]], version: int = 3) -> bytes:
    """A GGUF header with the given (key, type, encoded value) pairs and no tensors."""
    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(keys))
    for key, kind, value in keys:
        out += _string(key) + struct.pack("<I", kind) + value
    return out


def sample(context: int = 4096) -> bytes:
    tokens = struct.pack("<IQ", 8, 3) + b"".join(_string(t) for t in ("a", "bb", "<|im_end|>"))
    scores = struct.pack("<IQ", 6, 3) + struct.pack("<3f", 0.1, 0.2, 0.3)
    nested = struct.pack("<IQ", 9, 1) + struct.pack("<IQ", 4, 2) + struct.pack("<2I", 1, 2)
    return gguf([("general.architecture", 8, _string("qwen2")),
                 ("tokenizer.ggml.tokens", 9, tokens),
                 ("tokenizer.ggml.scores", 9, scores),
                 ("odd.nested", 9, nested),
                 ("general.flag", 7, b"\x01"),
                 ("qwen2.block_count", 4, struct.pack("<I", 24)),
                 ("qwen2.context_length", 4, struct.pack("<I", context)),
                 ("general.name", 8, _string("Tiny Test"))])
