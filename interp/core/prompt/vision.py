"""Figures for vision models: image parts built from the PNG files when a request is sent."""

from __future__ import annotations

import base64

from interp.bounded import TooLarge, read_at_most
from interp.core.prompt.context import TRIMMED
from interp.core.prompt.png import is_png

MAX_IMAGES = 4  # figures sent to a vision model per request (the newest)
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # larger figures are named, not sent


def image_parts(paths: list[str], left_out: int = 0) -> list[dict]:
    """OpenAI content parts for figures: a label and an image_url (base64 PNG) each, or a note
    saying why the image was omitted (missing, not a PNG, larger than MAX_IMAGE_BYTES)."""
    parts: list[dict] = []
    for path in paths:
        try:
            data, large = read_at_most(path, MAX_IMAGE_BYTES), False
        except TooLarge:
            data, large = b"", True
        except OSError:
            parts.append(_text_part(f"(image omitted: {path} no longer exists)"))
            continue
        if large:
            parts.append(_text_part(f"(image omitted: {path} is larger than "
                                    f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB)"))
        elif not is_png(data):
            parts.append(_text_part(f"(image omitted: {path} is not a PNG file)"))
        else:
            url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
            parts += [_text_part(f"Figure {path}:"),
                      {"type": "image_url", "image_url": {"url": url}}]
    if left_out:
        parts.append(_text_part(f"({left_out} more image{'s' * (left_out > 1)} omitted: at most "
                                f"{MAX_IMAGES} figures are sent as images; their paths are in "
                                f"the output)"))
    return parts


def _text_part(text: str) -> dict:
    return {"type": "text", "text": text}


def with_images(messages: list[dict], indices: list[int | None],
                 chosen: dict[int, tuple[list[str], int]]) -> list[dict]:
    """Messages with figures attached: a user message gets image parts in its content; tool
    results must stay text, so their figures go into a user message after the tool results."""
    out: list[dict] = []
    pending: list[dict] = []
    for message, index in zip(messages, indices):
        if pending and message.get("role") != "tool":
            out.append(_figures_message(pending))
            pending = []
        if index in chosen and message.get("content") != TRIMMED:
            parts = image_parts(*chosen[index])
            if message.get("role") == "tool":
                pending += parts
            else:
                message = dict(message, content=[_text_part(message.get("content") or ""),
                                                 *parts])
        out.append(message)
    if pending:
        out.append(_figures_message(pending))
    return out


def _figures_message(parts: list[dict]) -> dict:
    return {"role": "user", "content": [_text_part("The figures saved by the blocks above:"),
                                        *parts]}
