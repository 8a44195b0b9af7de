"""A tool's result as a block's: its text parts, embedded text resources, links and structured
content as output, bounded and spooled as a block's output is (head and tail, the full text in
a file); each image saved to the figures folder and shown (a PNG reaches a vision model as a
figure does); the call's error flag, time-out or interruption as the block's status."""

from __future__ import annotations

import base64
import binascii
import json
import os
import time
from pathlib import Path
from typing import Any

from languages import Display, Result
from languages.process.output_capture import OutputCapture, clean_surrogates
from languages.records import CapturedOutput

from interp.core.prompt.png import png_size

MAX_IMAGE_BYTES = 20 * 1024 * 1024  # an image larger than this is named, not saved
_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def output_text(result: Any) -> str:
    """What a result says in text: its text parts and text resources, a line for each link
    and binary part (images are saved separately), and its structured content unless a text
    part already says the same."""
    parts: list[str] = []
    for item in result.content or ():
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(item.text)
        elif kind == "resource":
            resource = item.resource
            text = getattr(resource, "text", None)
            parts.append(text if isinstance(text, str) else
                         f"[binary resource {resource.uri} ({resource.mime_type or 'unknown type'})]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {item.name} {item.uri}]")
        elif kind == "audio":
            parts.append(f"[audio ({item.mime_type}), not shown]")
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(_same_json(part, structured) for part in parts):
        parts.append("Structured content:\n" + json.dumps(structured, indent=2,
                                                          ensure_ascii=False))
    return clean_surrogates("\n".join(parts))


def images(result: Any, folder: str, stem: str) -> tuple[Display, ...]:
    """Each image of a result saved in `folder` (`stem-N.EXT`) and shown as a display."""
    shown = []
    for number, item in enumerate((i for i in result.content or () if getattr(i, "type", "")
                                   == "image"), 1):
        shown.append(_image(item, folder, f"{stem}-{number}"))
    return tuple(shown)


def _image(item: Any, folder: str, name: str) -> Display:
    mime = (item.mime_type or "image/png").lower()
    try:
        data = base64.b64decode(item.data, validate=True)
    except (binascii.Error, ValueError):
        return Display("image", f"[an image ({mime}) that is not valid base64; not saved]")
    if len(data) > MAX_IMAGE_BYTES:
        return Display("image", f"[an image ({mime}) larger than "
                                f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB; not saved]")
    path = Path(folder, f"{name}.{_EXTENSIONS.get(mime, 'img')}").resolve()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        return Display("image", f"[an image ({mime}) that could not be saved: "
                                f"{exc.strerror or exc}]")
    size = png_size(data)
    meta = {"format": mime.split("/")[-1], "mime": mime, "width": size[0] if size else None,
            "height": size[1] if size else None, "figure": None, "plot": None}
    return Display("image", f"[image saved: {path}]", os.fspath(path), meta)


def finished(text: str, capture: OutputCapture, started: float, *, error: str | None = None,
             timed_out: bool = False, interrupted: bool = False,
             displays: tuple[Display, ...] = ()) -> Result:
    """The Result of a call whose output is `text` (fed to `capture` here)."""
    capture.feed(text)
    status = ("timeout" if timed_out else "interrupted" if interrupted
              else "error" if error else "ok")
    return Result(status=status, output=capture.finish(), error=error, timed_out=timed_out,
                  interrupted=interrupted, duration=time.monotonic() - started,
                  displays=displays)


def not_run(error: str) -> Result:
    """The Result of a call that never reached a server."""
    return Result(status="error", output=CapturedOutput("", "", 0, 0, 0, None), error=error)


def _same_json(text: str, value: Any) -> bool:
    """Whether a text part says what the structured content does: the same JSON, or the
    content's one value (servers wrap a plain result as {"result": ...} and also send it as
    text)."""
    try:
        said = json.loads(text)
    except ValueError:
        said = text
    return said == value or (isinstance(value, dict) and len(value) == 1
                             and said == next(iter(value.values())))
