"""A saved conversation told to the editor that loads it (`session/load`): each task as the
user's message, the model's prose as its message, each block as a tool call with its code, its
output (as it was recorded: bounded, head and tail) and how it ended."""

from __future__ import annotations

from acp import start_tool_call, text_block, tool_content, update_agent_message_text, \
    update_user_message_text

from interp.acp.updates import call_title
from interp.core.blocks import BlockRecord
from interp.core.replies.fences import fence
from interp.core.history import Entry
from interp.storage.export import conversation_items


def replayed(messages: list[Entry]) -> list:
    """The updates that show a conversation as it went."""
    updates = []
    for kind, item in conversation_items(messages):
        if kind == "task":
            updates.append(update_user_message_text(item))
        elif kind == "prose":
            updates.append(update_agent_message_text(item))
        else:
            updates.append(_block(item))
    return updates


def _block(record: BlockRecord):
    parts = [fence(record.code, record.language)]
    if output := record.output_text().rstrip("\n"):
        parts.append(fence(output))
    if not record.ran:
        parts.append(f"Not run: {record.reason}" if record.reason else "Not run.")
    elif record.summary:
        parts.append(f"Result: {record.summary}")
    return start_tool_call(f"block-{record.index}",
                           call_title(record.index, record.language, record.code),
                           kind="execute", status="completed" if record.status == "ok" else "failed",
                           content=[tool_content(text_block(part)) for part in parts],
                           raw_input={"language": record.language, "code": record.code})
