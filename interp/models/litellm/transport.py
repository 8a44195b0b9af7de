"""The HTTP clients litellm is given for a model's calls (interp.models.client's tracked
one), so that every connection of a call is known from the moment it opens.

litellm takes a `client` for the providers it reaches through its own HTTP handler (Anthropic,
Gemini, Ollama) and an `openai.OpenAI` for OpenAI and OpenAI-compatible servers. Other
providers keep litellm's own clients and are bounded by the timeout litellm is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

HANDLER_PROVIDERS = frozenset({"anthropic", "gemini", "ollama", "ollama_chat"})


def client_for(provider: str, http: httpx.Client, api_base: str | None,
               api_key: str | None) -> Any:
    """The `client` to give litellm.completion for this provider, or None for litellm's own."""
    if provider in HANDLER_PROVIDERS:
        from litellm.llms.custom_httpx.http_handler import HTTPHandler

        return HTTPHandler(client=http)
    if provider == "openai":
        import openai

        from interp.models.providers import BY_NAME

        return openai.OpenAI(api_key=api_key, base_url=BY_NAME["openai"].url(api_base),
                             http_client=http, max_retries=0)
    return None
