"""Text that can always be stored, sent and shown: no lone surrogates anywhere.

A lone surrogate comes from bytes that are not UTF-8 (a task given as `$'\\xff'`, a file name,
read with `surrogateescape`) or from a `\\ud800` escape in a model's JSON. Python can hold it
but not encode it, so it is replaced by U+FFFD wherever text enters the session: the task,
the model's reply, events and the messages that are saved.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from languages.process.output_capture import clean_surrogates

from interp.models.base import Reply


def clean(value: Any) -> Any:
    """value with every string in it (dict keys, lists and tuples included) encodable."""
    if isinstance(value, str):
        return clean_surrogates(value)
    if isinstance(value, dict):
        return {clean(k): clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, tuple):
        return tuple(clean(v) for v in value)
    return value


def clean_reply(reply: Reply) -> Reply:
    """A model reply whose text and tool-call arguments are encodable."""
    calls = tuple(replace(c, id=clean(c.id), name=clean(c.name), arguments=clean(c.arguments))
                  for c in reply.tool_calls)
    return replace(reply, text=clean(reply.text), tool_calls=calls)
