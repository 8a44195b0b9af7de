"""Hosted providers that speak OpenAI's chat completions (groq, deepseek, mistral, ...).

interp speaks to them with its own OpenAI client (wire/openai.py), so their calls cost what an
OpenAI call costs, flat with the conversation, instead of litellm's per-message work. Each host
is a row of the provider table (interp.models.providers), and is sent exactly the body litellm would send it for interp's messages (where litellm drops
`stream_options`, joins a text-only content list or drops an empty assistant message, so does
this module; tests/interp/models/wire/test_hosts.py compares the two through real litellm). A host
that still refuses interp's first request is handed to litellm (interp.models.handover). The
request itself is built by wire.openai.hosted_request.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from interp.models.providers import BY_NAME, PROVIDERS, Provider

_AZURE = BY_NAME["azure"]
# Azure deployment names litellm sends through its o-series or gpt-5 handling.
_AZURE_REASONING = ("o1", "o3", "o4", "o_series/", "gpt-5", "gpt-6", "gpt5_series")
# The hosted providers of the table, by name (their quirks: Provider.host).
HOSTS = {p.name: p for p in PROVIDERS if p.host is not None}


def azure_endpoint(api_base: str | None) -> str | None:
    """An Azure OpenAI resource's endpoint: --api-base, else AZURE_API_BASE."""
    found = api_base or _AZURE.env_base()
    return found.rstrip("/") if found else None


def azure_key(api_key: str | None) -> str | None:
    """An Azure OpenAI key: --api-key, else AZURE_OPENAI_API_KEY or AZURE_API_KEY."""
    return api_key or _AZURE.key()


def azure_speaks(name: str, api_base: str | None = None, api_key: str | None = None) -> bool:
    """Whether interp speaks to an `azure/DEPLOYMENT` itself (azure_wire). What litellm treats
    specially stays with litellm: Entra ID tokens, an endpoint with a path, and deployments
    whose names litellm reads as reasoning models (other roles and token fields)."""
    if not name.startswith("azure/") or os.environ.get("AZURE_AD_TOKEN"):
        return False
    deployment, found = name[len("azure/"):], azure_endpoint(api_base)
    if not deployment or "/" in deployment or not found or not azure_key(api_key):
        return False
    return (not urlsplit(found).path.strip("/")
            and not any(mark in deployment for mark in _AZURE_REASONING))


def host_for(name: str) -> Provider | None:
    """The hosted provider a model name starts with (`groq/llama-3.3-70b`), or None."""
    return HOSTS.get(name.split("/", 1)[0]) if "/" in name else None


def messages_for(provider: Provider, messages: list[dict]) -> list[dict]:
    """The history as a hosted provider takes it (the same list when it takes OpenAI's shape)."""
    host = provider.host
    if host is None:
        return messages
    if not host.text_content and not host.drop_empty:
        return messages
    if host.text_content == "text-only" and any(_media(m.get("content")) for m in messages):
        return messages  # with an image or a file anywhere, litellm sends the history as it is
    shaped = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list) and host.text_content:
            text = "".join(p.get("text") or "" for p in content if isinstance(p, dict))
            message = {**message, "content": text} if text else message
        if host.drop_empty:
            if _empty_assistant(message):
                continue
            if None in message.values():
                message = {k: v for k, v in message.items() if v is not None}
        shaped.append(message)
    return shaped


def _media(content: Any) -> bool:
    """Whether a message's content holds an image or a file."""
    return isinstance(content, list) and any(
        isinstance(p, dict) and p.get("type") in ("image_url", "file") for p in content)


def _empty_assistant(message: dict) -> bool:
    """An assistant message with nothing in it (Mistral refuses one)."""
    return message.get("role") == "assistant" and not any(
        v is not None and not (k == "content" and v == "") for k, v in message.items()
        if k != "role")
