"""PNG files for tests: a valid image built with zlib and struct, and the size of one on disk."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

from interp.core.prompt.png import png_size


def make_png(width: int = 4, height: int = 3, noise: bool = False) -> bytes:
    """A valid RGB PNG; noisy pixels make it incompressible."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    row = width * 3
    raw = b"".join(b"\0" + (os.urandom(row) if noise else bytes([y % 256]) * row)
                   for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def file_png_size(path: str | Path) -> tuple[int, int]:
    """(width, height) of a PNG file; fails the test when it is not one."""
    data = Path(path).read_bytes()[:24]
    size = png_size(data)
    assert size is not None, data
    return size
