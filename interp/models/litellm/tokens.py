"""Counting a conversation's tokens with litellm's tokenizer: what both kinds of remote model
use (interp's own clients once litellm has loaded in the background)."""

from __future__ import annotations

import json

from interp.models.litellm.loader import load_litellm


def count_tokens(name: str, messages: list[dict]) -> int:
    """Token count via litellm's tokenizer, falling back to JSON length / 4."""
    try:
        return int(load_litellm().token_counter(model=name, messages=messages))
    except Exception:  # tokenizer trouble must never break the loop
        return len(json.dumps(messages, default=str)) // 4
