"""What a model name means to litellm: the provider, the name to send, the key variable, and
what litellm knows about the model (tool calling, output limit)."""

from __future__ import annotations

import re
from typing import Any

from interp.models.hosts import host_for
from interp.models.loader import load_litellm

# The variable holding the key, where it is not <PROVIDER>_API_KEY.
_KEY_VARS = {"gemini": "GEMINI_API_KEY", "vertex_ai_beta": "GEMINI_API_KEY",
             "ollama_chat": "OLLAMA_API_KEY", "text-completion-openai": "OPENAI_API_KEY",
             "vertex_ai": "GOOGLE_APPLICATION_CREDENTIALS", "azure": "AZURE_API_KEY",
             "bedrock": "AWS_ACCESS_KEY_ID"}


def wire_name(name: str) -> str:
    """The name given to litellm: `ollama/M` goes to Ollama's /api/chat (tool calls work
    there), not /api/generate, where litellm turns tools into a JSON prompt it never reads back."""
    return "ollama_chat/" + name[len("ollama/"):] if name.startswith("ollama/") else name


def provider_of(name: str, api_base: str | None = None) -> str:
    """litellm's provider for a model name ('' when litellm does not know it)."""
    try:
        return str(load_litellm().get_llm_provider(wire_name(name), api_base=api_base)[1])
    except Exception:  # unknown provider: litellm raises BadRequestError
        return name.split("/", 1)[0] if "/" in name else ""


def key_variable(name: str, provider: str = "") -> str:
    """The environment variable a user sets for this model's key (GEMINI_API_KEY for gemini/)."""
    host = host_for(name)
    if host:
        return host.key_var
    prefix = name.split("/", 1)[0] if "/" in name else ""
    for candidate in (prefix, provider):
        if candidate in _KEY_VARS:
            return _KEY_VARS[candidate]
    return re.sub(r"\W", "_", provider or prefix or "openai").upper() + "_API_KEY"


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
