"""Azure OpenAI chat completions, spoken directly: OpenAI's protocol at a deployment's URL.

`azure/DEPLOYMENT` with a key goes to `{endpoint}/openai/deployments/DEPLOYMENT/chat/completions
?api-version=V` with an `api-key` header and OpenAI's body, as litellm sends it. Which Azure
models come here is decided by hosts.azure_speaks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from interp.models.wire import openai as openai_wire
from interp.models.wire.hosts import azure_endpoint, azure_key
from interp.models.wire.http import WireError, WireRequest

if TYPE_CHECKING:
    import httpx

DEFAULT_VERSION = "2025-02-01-preview"  # litellm's AZURE_DEFAULT_API_VERSION


def request(model: str, api_base: str | None, api_key: str | None, messages: list[dict],
            tools: list[dict] | None, max_tokens: int | None, params: dict[str, Any]) -> WireRequest:
    """The request for a chat completion on deployment `model` (WireError without a key)."""
    found_key, found = azure_key(api_key), azure_endpoint(api_base)
    if not found_key or not found:
        raise WireError("missing api key or endpoint: set AZURE_API_KEY and AZURE_API_BASE "
                        "(or --api-key and --api-base)", kind="auth")
    version = os.environ.get("AZURE_API_VERSION") or DEFAULT_VERSION
    url = (f"{found}/openai/deployments/{quote(model, safe='')}/chat/completions"
           f"?api-version={quote(version, safe='')}")
    return WireRequest(url, {"Accept": "text/event-stream", "api-key": found_key},
                       openai_wire.body(model, messages, tools, max_tokens, params, False))


def chunks(response: httpx.Response) -> Iterator[Any]:
    """The reply's chunks, as OpenAI's."""
    return openai_wire.chunks(response)
