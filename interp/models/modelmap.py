"""litellm's model map (prices, limits, tool support) read without importing litellm.

The map is the JSON file litellm ships and reads itself (LITELLM_LOCAL_MODEL_COST_MAP): parsing
it takes ~20 ms, importing litellm takes seconds. Used for the models interp reaches
itself (wire/), so that their first request never waits for litellm.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
from typing import Any

from interp.models.providers import PROVIDERS

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


# interp's name prefix -> (the map's provider, the prefix of its keys).
_KEYS = {prefix: (p.name, p.map_prefix) for p in PROVIDERS if p.map_prefix is not None
         for prefix in p.names}


def entry(name: str, provider: str | None = None) -> dict[str, Any] | None:
    """The map's entry for a model as litellm finds it (`openai/gpt-4o` or `gpt-4o`,
    `anthropic/claude-x`, `gemini/gemini-x`, `ollama/llama3.1:8b`), or None."""
    candidates, wanted = [name], provider
    for prefix, (owner, key_prefix) in _KEYS.items():
        if name.startswith(prefix):
            own = name[len(prefix):]
            candidates += [key_prefix + own, key_prefix + own.split(":", 1)[0]]
            wanted = wanted or owner
    entries = _entries()
    for candidate in dict.fromkeys(candidates):
        found = entries.get(candidate)
        if found is not None and (wanted is None or found.get("litellm_provider") == wanted):
            return found
    return None


def tool_support(name: str) -> bool | None:
    """Whether the map says the model supports function calling; None when it has no entry."""
    found = entry(name)
    return None if found is None else bool(found.get("supports_function_calling"))


def limit(name: str, *keys: str) -> int | None:
    """The first positive integer among the entry's `keys` (e.g. max_input_tokens)."""
    found = entry(name) or {}
    for key in keys:
        value = found.get(key)
        if isinstance(value, int) and value > 0:
            return value
    return None


def cost(name: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for a reply, from the per-token prices; None for models without a price."""
    found = entry(name) or {}
    prices = found.get("input_cost_per_token"), found.get("output_cost_per_token")
    if not all(isinstance(p, (int, float)) for p in prices):
        return None
    return float(prompt_tokens * prices[0] + completion_tokens * prices[1])
