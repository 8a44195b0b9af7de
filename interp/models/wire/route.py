"""Which model names interp reaches with its own clients, and the module that speaks each.

Read from the provider table (interp.models.providers): a name with a protocol provider's
prefix, a hosted OpenAI-compatible provider's, an Azure deployment interp can reach itself,
or a bare name litellm's model map gives to OpenAI or Anthropic. Everything else goes through
litellm, and so does every model with INTERP_TRANSPORT=litellm.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from interp.models import modelmap
from interp.models.providers import BY_NAME, PROVIDERS, Provider, by_prefix
from interp.models.wire.hosts import azure_speaks

TRANSPORT_VARIABLE = "INTERP_TRANSPORT"  # "litellm": every model through litellm
# Providers whose bare names litellm's map gives them (`gpt-4o`, `claude-x`).
BARE = tuple(p.name for p in PROVIDERS if p.bare_in_map)


def forced_litellm() -> bool:
    """Whether the user asked for litellm on every path (INTERP_TRANSPORT=litellm)."""
    return os.environ.get(TRANSPORT_VARIABLE, "").strip().lower() == "litellm"


def provider_for(name: str, api_base: str | None = None,
                 api_key: str | None = None) -> Provider | None:
    """The provider whose protocol interp speaks itself for this model, or None: litellm."""
    if forced_litellm():
        return None
    if azure_speaks(name, api_base, api_key):
        return BY_NAME["azure"]
    found = by_prefix(name)
    row = found[1] if found and found[1].protocol not in (None, "azure") else None
    if row is None and "/" not in name:  # a bare name: where litellm's map sends it
        owner = (modelmap.entry(name) or {}).get("litellm_provider")
        row = BY_NAME[owner] if owner in BARE else None
    if (row is not None and row.name == "openai"
            and (modelmap.entry(name, "openai") or {}).get("mode", "chat") != "chat"):
        return None  # a model only OpenAI's Responses API serves
    return row


def protocol_for(name: str, api_base: str | None = None, api_key: str | None = None) -> str | None:
    """The protocol interp speaks itself for this model name, or None to go through litellm."""
    row = provider_for(name, api_base, api_key)
    return row.protocol if row else None


def module(protocol: str) -> ModuleType:
    """The module that speaks a protocol (interp.models.wire.<protocol>)."""
    return importlib.import_module(f"interp.models.wire.{protocol}")


def bare(name: str) -> str:
    """The model's own name, without interp's provider prefix (`anthropic/claude-x` -> `claude-x`,
    `groq/llama-3.3-70b` -> `llama-3.3-70b`)."""
    found = by_prefix(name)
    return name[len(found[0]):] if found and found[1].protocol else name
