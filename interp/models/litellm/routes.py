"""What a model name means to litellm: its provider, the name to send, and what litellm knows
about the model (tool calling, output limit)."""

from __future__ import annotations

from typing import Any

from interp.models.litellm.loader import load_litellm
from interp.models.providers import by_prefix


def wire_name(name: str) -> str:
    """The name given to litellm, under litellm's name for the provider: `ollama/M` goes to
    Ollama's /api/chat (tool calls work there), not /api/generate, where litellm turns tools
    into a JSON prompt it never reads back."""
    found = by_prefix(name)
    if found is None or found[1].litellm_name + "/" == found[0]:
        return name
    return found[1].litellm_name + "/" + name[len(found[0]):]


def litellm_provider(name: str, api_base: str | None = None) -> str:
    """litellm's provider for a model name ('' when litellm does not know it)."""
    try:
        return str(load_litellm().get_llm_provider(wire_name(name), api_base=api_base)[1])
    except Exception:  # unknown provider: litellm raises BadRequestError
        return name.split("/", 1)[0] if "/" in name else ""


def _lookup_names(name: str) -> list[str]:
    """Names under which litellm's model map may know the model (ollama_chat/ entries are
    under ollama/, often without the :tag)."""
    names = [name, wire_name(name)]
    if name.startswith(("ollama/", "ollama_chat/")):
        base = "ollama/" + name.split("/", 1)[1]
        names += [base, base.split(":", 1)[0]]
    return list(dict.fromkeys(names))


def model_info(name: str) -> dict[str, Any] | None:
    """litellm's model-map entry for the model, or None if it has none."""
    litellm = load_litellm()
    for candidate in _lookup_names(name):
        try:
            return dict(litellm.get_model_info(candidate))
        except Exception:  # "This model isn't mapped yet" is a bare Exception
            continue
    return None


def tool_support(name: str) -> bool | None:
    """Whether litellm says the model supports function calling; None when it does not know."""
    litellm = load_litellm()
    for candidate in _lookup_names(name):
        try:
            if litellm.supports_function_calling(model=candidate):
                return True
        except Exception:  # unknown model: litellm raises assorted types
            continue
    return False if model_info(name) is not None else None


def max_output_tokens(name: str) -> int | None:
    """The model's output limit from litellm's model map, if known."""
    info = model_info(name) or {}
    value = info.get("max_output_tokens") or info.get("max_tokens")
    return value if isinstance(value, int) and value > 0 else None
