"""Hosted providers that speak OpenAI's chat completions (groq, deepseek, mistral, ...).

interp speaks to them with its own OpenAI client (openai_wire), so their calls cost what an
OpenAI call costs, flat with the conversation, instead of litellm's per-message work. Each host
is sent exactly the body litellm would send it for interp's messages (where litellm drops
`stream_options`, joins a text-only content list or drops an empty assistant message, so does
this module; tests/interp/models/test_hosts.py compares the two through real litellm). A host
that still refuses interp's first request is handed to litellm (LiteLLMModel.stream). The
request itself is built by openai_wire.hosted_request.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

AZURE_KEY_VARIABLES = ("AZURE_OPENAI_API_KEY", "AZURE_API_KEY")
# Azure deployment names litellm sends through its o-series or gpt-5 handling.
_AZURE_REASONING = ("o1", "o3", "o4", "o_series/", "gpt-5", "gpt-6", "gpt5_series")


@dataclass(frozen=True)
class Host:
    """One hosted provider: litellm's name for it, its URL, where its key and URL come from,
    and how its requests differ from OpenAI's."""

    name: str
    base: str
    key_vars: tuple[str, ...]
    base_vars: tuple[str, ...] = ()
    stream_usage: bool = True  # accepts stream_options.include_usage
    # "always": a content list sent as its text joined; "text-only": so, unless some message
    # of the history holds an image or a file
    text_content: str = ""
    drop_empty: bool = False  # empty assistant messages dropped, None values stripped
    v1: bool = False  # the URL always ends in /v1
    extra: tuple[tuple[str, Any], ...] = ()  # fields added to every body
    tools: bool | None = None  # function calling where litellm's map has no word on it
    sends_tools: bool = True  # False: the tool list is left out (the API takes none)

    @property
    def key_var(self) -> str:
        """The variable to tell a user to set (<NAME>_API_KEY where the host reads it)."""
        usual = f"{self.name.upper()}_API_KEY"
        return usual if usual in self.key_vars else self.key_vars[0]

    def key(self) -> str | None:
        """The key from the host's own variables (never OPENAI_API_KEY)."""
        return next((os.environ[v] for v in self.key_vars if os.environ.get(v)), None)

    def url(self, api_base: str | None) -> str:
        """Where requests go: --api-base, else the host's variables, else its own URL."""
        found = api_base or next((os.environ[v] for v in self.base_vars if os.environ.get(v)),
                                 None) or self.base
        found = found.rstrip("/")
        return found + "/v1" if self.v1 and not found.endswith("/v1") else found

    def headers(self) -> dict[str, str]:
        """Headers beyond OpenAI's: OpenRouter's app name (litellm sends its own)."""
        if self.name != "openrouter":
            return {}
        site = os.environ.get("OR_SITE_URL")
        return {"X-Title": os.environ.get("OR_APP_NAME") or "interp",
                **({"HTTP-Referer": site} if site else {})}


def _host(name: str, base: str, key_vars: str, **quirks: Any) -> Host:
    upper = name.upper()
    return Host(name, base, tuple(key_vars.split()),
                tuple(quirks.pop("base_vars", f"{upper}_API_BASE").split()), **quirks)


HOSTS = {host.name: host for host in (
    _host("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    _host("deepseek", "https://api.deepseek.com/beta", "DEEPSEEK_API_KEY", text_content="always"),
    _host("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
    _host("mistral", "https://api.mistral.ai/v1", "MISTRAL_AZURE_API_KEY MISTRAL_API_KEY",
          base_vars="MISTRAL_AZURE_API_BASE", stream_usage=False, text_content="text-only",
          drop_empty=True, v1=True),
    _host("codestral", "https://codestral.mistral.ai/v1", "CODESTRAL_API_KEY",
          stream_usage=False, text_content="text-only", drop_empty=True),
    _host("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", stream_usage=False),
    _host("together_ai", "https://api.together.ai/v1",
          "TOGETHER_API_KEY TOGETHER_AI_API_KEY TOGETHERAI_API_KEY TOGETHER_AI_TOKEN"),
    _host("fireworks_ai", "https://api.fireworks.ai/inference/v1",
          "FIREWORKS_API_KEY FIREWORKS_AI_API_KEY FIREWORKSAI_API_KEY FIREWORKS_AI_TOKEN",
          base_vars="FIREWORKS_API_BASE", tools=True),
    _host("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
          extra=(("usage", {"include": True}),)),
    _host("deepinfra", "https://api.deepinfra.com/v1/openai", "DEEPINFRA_API_KEY",
          stream_usage=False),
    _host("nvidia_nim", "https://integrate.api.nvidia.com/v1", "NVIDIA_NIM_API_KEY",
          stream_usage=False),
    _host("sambanova", "https://api.sambanova.ai/v1", "SAMBANOVA_API_KEY", text_content="always"),
    _host("nebius", "https://api.studio.nebius.ai/v1", "NEBIUS_API_KEY"),
    _host("novita", "https://api.novita.ai/v3/openai", "NOVITA_API_KEY"),
    _host("hyperbolic", "https://api.hyperbolic.xyz/v1", "HYPERBOLIC_API_KEY",
          stream_usage=False),
    _host("moonshot", "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY", text_content="text-only"),
    _host("lambda_ai", "https://api.lambda.ai/v1", "LAMBDA_API_KEY", base_vars="LAMBDA_API_BASE"),
    _host("perplexity", "https://api.perplexity.ai", "PERPLEXITYAI_API_KEY PERPLEXITY_API_KEY",
          stream_usage=False, sends_tools=False),
    _host("featherless_ai", "https://api.featherless.ai/v1",
          "FEATHERLESS_AI_API_KEY FEATHERLESS_API_KEY",
          base_vars="FEATHERLESS_AI_API_BASE FEATHERLESS_API_BASE", stream_usage=False,
          sends_tools=False),
)}


def azure_endpoint(api_base: str | None) -> str | None:
    """An Azure OpenAI resource's endpoint: --api-base, else AZURE_API_BASE."""
    found = api_base or os.environ.get("AZURE_API_BASE")
    return found.rstrip("/") if found else None


def azure_key(api_key: str | None) -> str | None:
    """An Azure OpenAI key: --api-key, else AZURE_OPENAI_API_KEY or AZURE_API_KEY."""
    return api_key or next((os.environ[v] for v in AZURE_KEY_VARIABLES if os.environ.get(v)),
                           None)


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


def host_for(name: str) -> Host | None:
    """The hosted provider a model name starts with (`groq/llama-3.3-70b`), or None."""
    return HOSTS.get(name.split("/", 1)[0]) if "/" in name else None


def messages_for(host: Host, messages: list[dict]) -> list[dict]:
    """The history as `host` takes it (the same list when it takes OpenAI's shape)."""
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
