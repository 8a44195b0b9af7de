"""litellm's model map (prices, limits, tool support) read without importing litellm.

The map is the JSON file litellm ships and reads itself (LITELLM_LOCAL_MODEL_COST_MAP): parsing
it takes ~20 ms, importing litellm takes seconds. Used for OpenAI-compatible models on the
direct path, so that their first request never waits for litellm.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from typing import Any

MAP_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def _entries() -> dict[str, dict]:
    """The whole map ({} when litellm or its map cannot be found)."""
    try:
        spec = importlib.util.find_spec("litellm")  # finds the package without running it
        folders = list(spec.submodule_search_locations or []) if spec else []
        with open(os.path.join(folders[0], MAP_FILE), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError, IndexError, ImportError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and k != "sample_spec"}


def openai_entry(name: str) -> dict[str, Any] | None:
    """The map's entry for an OpenAI model (`openai/gpt-4o` or `gpt-4o`), as litellm finds it."""
    bare = name[len("openai/"):] if name.startswith("openai/") else name
    entries = _entries()
    for candidate in (name, bare):
        entry = entries.get(candidate)
        if entry is not None and entry.get("litellm_provider") == "openai":
            return entry
    return None


def is_openai_model(name: str) -> bool:
    """Whether litellm would send a name without a provider (`gpt-4o`) to OpenAI."""
    return "/" not in name and openai_entry(name) is not None


def tool_support(name: str) -> bool | None:
    """Whether the map says the model supports function calling; None when it has no entry."""
    entry = openai_entry(name)
    return None if entry is None else bool(entry.get("supports_function_calling"))


def limit(name: str, *keys: str) -> int | None:
    """The first positive integer among the entry's `keys` (e.g. max_input_tokens)."""
    entry = openai_entry(name) or {}
    for key in keys:
        value = entry.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None


def cost(name: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for a reply, from the per-token prices; None for models without a price."""
    entry = openai_entry(name) or {}
    prices = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if not all(isinstance(p, (int, float)) for p in prices):
        return None
    return float(prompt_tokens * prices[0] + completion_tokens * prices[1])
