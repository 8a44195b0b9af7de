"""Tool results as MCP content: the text interp's own model is told, every figure as an image."""

from __future__ import annotations

import base64

import mcp_types as types

from interp.bounded import TooLarge, read_at_most
from interp.core.blocks import BlockRecord
from interp.core.prompt.png import is_png
from interp.core.replies.report import model_text
from interp.core.prompt.vision import MAX_IMAGE_BYTES
from interp.mcp.clients import Ran

META_KEY = "interp/block"  # the block's typed record for the client application (not the model)


def text_result(text: str, error: bool = False) -> types.CallToolResult:
    """A result of one text part; `error` marks a call that did nothing (bad input, refusal)."""
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=error)


def block_result(ran: Ran) -> types.CallToolResult:
    """run_code's result: the bounded output with how the block ended and the files it
    changed (tables as text), then each figure as an image."""
    record = ran.record
    text = model_text(record)
    if ran.notice:
        text += f"\n{ran.notice}"
    for note in ran.notes:  # checkpoints not taken, what hooks said
        text += f"\n{note}"
    content: list = [types.TextContent(text=text)]
    for path in record.figures:
        content.append(_image(path))
    meta = {META_KEY: {"block": record.index, "language": record.language,
                       "status": record.status, "exit_code": record.exit_code,
                       "session": ran.session_id, "full_output": record.spool_path,
                       "figures": record.figures,
                       "files": record.files.to_dict() if record.files else None}}
    return types.CallToolResult(content=content, is_error=_failed(record), _meta=meta)


def _failed(record: BlockRecord) -> bool:
    """Whether the call is reported as an error: the block did not run, or did not end ok."""
    return record.status != "ok"


def _image(path: str) -> types.ImageContent | types.TextContent:
    """A figure as a PNG image part, or a line saying why it is not sent."""
    try:
        data, large = read_at_most(path, MAX_IMAGE_BYTES), False
    except TooLarge:
        data, large = b"", True
    except OSError:
        return types.TextContent(text=f"(figure {path} no longer exists)")
    if large:
        return types.TextContent(text=f"(figure {path} is larger than "
                                      f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB; not sent)")
    if not is_png(data):
        return types.TextContent(text=f"(figure {path} is not a PNG file; not sent)")
    return types.ImageContent(data=base64.b64encode(data).decode("ascii"), mime_type="image/png")
