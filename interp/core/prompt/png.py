"""PNG files: the signature and the image size in the header.

languages/_python_display.py reads the same header inside the user's Python, where interp
cannot be imported, so it keeps its own few lines for it.
"""

from __future__ import annotations

import struct

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def is_png(data: bytes) -> bool:
    """True when data starts with the PNG signature."""
    return data.startswith(SIGNATURE)


def png_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's IHDR chunk, or None when data is not a PNG."""
    if len(data) < 24 or not is_png(data) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return (width, height) if width and height else None
