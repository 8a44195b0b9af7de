"""Showing images inline in the terminal, or as a clickable file link where that is not possible.

Protocols: kitty graphics (kitty, Ghostty), iTerm2 inline images (iTerm2, WezTerm) and sixel.
Sixel needs the PNG decoded, which is left to libsixel's `img2sixel` when it is on PATH (run
with a timeout); without it sixel terminals get the link. Detection reads the environment only
and never queries the terminal, so it cannot hang; inside tmux or screen it answers "none"
because those need passthrough wrapping. `INTERP_IMAGES` overrides detection.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import socket
import subprocess
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from interp.core.prompt.png import png_size

PROTOCOLS = ("kitty", "iterm2", "sixel", "none")
MAX_INLINE_BYTES = 5 * 1024 * 1024  # larger PNGs are shown as a link
MAX_SIXEL_OUTPUT = 16 * 1024 * 1024
SIXEL_TIMEOUT = 10.0  # seconds for img2sixel
CELL_PIXELS = 10  # assumed pixel width of a terminal cell, for sizing only
KITTY_CHUNK = 4096
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # and bidi controls


def detect(environ: Mapping[str, str]) -> str:
    """The inline image protocol the terminal supports: "kitty", "iterm2", "sixel" or "none"."""
    override = environ.get("INTERP_IMAGES", "").strip().lower()
    if override in PROTOCOLS:
        return override
    term = environ.get("TERM", "").lower()
    program = environ.get("TERM_PROGRAM", "")
    if environ.get("TMUX") or environ.get("STY") or term.startswith(("tmux", "screen")):
        return "none"
    if term in ("", "dumb"):
        return "none"
    if term == "xterm-kitty" or environ.get("KITTY_WINDOW_ID"):
        return "kitty"
    if term == "xterm-ghostty" or program.lower() == "ghostty":
        return "kitty"
    if program in ("iTerm.app", "WezTerm") or environ.get("LC_TERMINAL") == "iTerm2":
        return "iterm2"
    if "sixel" in term or term == "mlterm" or term.startswith("foot") or program == "mlterm":
        return "sixel"
    return "none"


def _cells(width_px: int, max_width_cells: int) -> int:
    """Columns to show an image of width_px pixels in, capped at max_width_cells."""
    return max(1, min(max_width_cells, -(-width_px // CELL_PIXELS)))


def kitty_image(png_bytes: bytes, columns: int) -> str:
    """A kitty graphics escape transmitting and showing a PNG, chunked to 4096 base64 bytes."""
    payload = base64.standard_b64encode(png_bytes).decode("ascii")
    chunks = [payload[i:i + KITTY_CHUNK] for i in range(0, len(payload), KITTY_CHUNK)] or [""]
    out = []
    for index, chunk in enumerate(chunks):
        more = 1 if index < len(chunks) - 1 else 0
        # q=2 keeps the terminal from answering on stdin; c= scales keeping the aspect ratio.
        keys = f"f=100,a=T,q=2,c={columns},m={more}" if index == 0 else f"m={more}"
        out.append(f"\x1b_G{keys};{chunk}\x1b\\")
    return "".join(out)


def iterm2_image(png_bytes: bytes, columns: int) -> str:
    """An iTerm2 inline image escape (OSC 1337 File=) for a PNG, `columns` cells wide."""
    payload = base64.standard_b64encode(png_bytes).decode("ascii")
    return (f"\x1b]1337;File=inline=1;size={len(png_bytes)};width={columns};"
            f"preserveAspectRatio=1:{payload}\x07")


def sixel_image(png_bytes: bytes, width_px: int | None = None) -> str | None:
    """The PNG as sixel via img2sixel (bounded by SIXEL_TIMEOUT), or None if that fails."""
    program = shutil.which("img2sixel")
    if program is None:
        return None
    command = [program] + (["-w", str(width_px)] if width_px else [])
    try:
        done = subprocess.run(command, input=png_bytes, capture_output=True,
                              timeout=SIXEL_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout
    if done.returncode != 0 or not out.startswith(b"\x1bP") or len(out) > MAX_SIXEL_OUTPUT:
        return None
    return out.decode("latin-1")


def inline_image(png_bytes: bytes, protocol: str, *, max_width_cells: int = 80) -> str | None:
    """Escape sequences showing a PNG with the protocol, or None to fall back to a link."""
    size = png_size(png_bytes)
    if size is None or len(png_bytes) > MAX_INLINE_BYTES or max_width_cells < 1:
        return None
    columns = _cells(size[0], max_width_cells)
    if protocol == "kitty":
        return kitty_image(png_bytes, columns)
    if protocol == "iterm2":
        return iterm2_image(png_bytes, columns)
    if protocol == "sixel":
        limit = max_width_cells * CELL_PIXELS
        return sixel_image(png_bytes, limit if size[0] > limit else None)
    return None


def file_url(path: Path) -> str:
    """A file:// URL with this host's name and the percent-encoded absolute path."""
    absolute = Path(os.path.abspath(path)).as_posix()
    if not absolute.startswith("/"):  # Windows drive paths: file://host/C:/...
        absolute = "/" + absolute
    host = quote(socket.gethostname(), safe="")
    # Every byte outside the unreserved set (controls, ESC, spaces, non-ASCII) is %-encoded,
    # so the URL cannot end the OSC 8 sequence it is put in; undecodable names keep their bytes.
    return f"file://{host}{quote(absolute, safe='/:', errors='surrogateescape')}"


def file_link(path: Path, text: str | None = None) -> str:
    """An OSC 8 hyperlink to the file, labelled text (default: the path as given)."""
    label = _CONTROL.sub("?", str(path) if text is None else text)
    return f"\x1b]8;;{file_url(path)}\x1b\\{label}\x1b]8;;\x1b\\"


def show(png_bytes: bytes | None, protocol: str, *, path: Path | None = None,
         max_width_cells: int = 80) -> str:
    """The image inline if possible, else a link to path, else "" (for the renderer)."""
    if png_bytes is not None:
        inline = inline_image(png_bytes, protocol, max_width_cells=max_width_cells)
        if inline is not None:
            return inline
    return file_link(path) if path is not None else ""
