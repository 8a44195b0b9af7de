"""The provider table: every fact interp knows about a provider, declared once.

Each row says how a model of the provider is reached (the protocol interp speaks itself, or
none: through litellm), which model names are its (prefixes, bare names), where its key and
URL come from, and litellm's name for it. Routing (wire/route.py), the key a user is told to
set (errors.py), secret hygiene (interp/secrets.py), litellm's model map (modelmap.py) and
the hosted providers' quirks (wire/hosts.py) all read this table. No litellm import.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from typing import Any

KEY_SUFFIXES = ("_API_KEY", "_API_TOKEN")


@dataclass(frozen=True)
class Host:
    """How a hosted provider that speaks OpenAI's chat completions differs from OpenAI."""

    stream_usage: bool = True  # accepts stream_options.include_usage
    # "always": a content list sent as its text joined; "text-only": so, unless some message
    # of the history holds an image or a file
    text_content: str = ""
    drop_empty: bool = False  # empty assistant messages dropped, None values stripped
    v1: bool = False  # the URL always ends in /v1
    extra: tuple[tuple[str, Any], ...] = ()  # fields added to every body
    tools: bool | None = None  # function calling where litellm's map has no word on it
    sends_tools: bool = True  # False: the tool list is left out (the API takes none)


@dataclass(frozen=True)
class Provider:
    """One provider: its name, the protocol interp speaks to it (None: litellm only), its
    model-name prefixes, key and base-URL variables, and litellm's name for it."""

    name: str
    protocol: str | None = None  # "openai", "anthropic", "gemini", "ollama", "azure"
    prefixes: tuple[str, ...] = ()  # (name + "/",) when left empty
    key_vars: tuple[str, ...] = ()  # where its key is read, in that order
    base_vars: tuple[str, ...] = ()  # where its URL is read, in that order
    litellm: str = ""  # litellm's name where it differs from `name`
    # credential variables beyond key_vars; None: <NAME>_API_KEY and <NAME>_API_TOKEN
    secrets: tuple[str, ...] | None = ()
    told: str = ""  # the variable a user is told to set, where it is not a key variable
    bare: str = ""  # a pattern of the bare model names that are its (`gpt-`, `claude`)
    bare_in_map: bool = False  # litellm's model map sends its bare names to it
    map_prefix: str | None = None  # its keys' prefix in litellm's model map (None: not read so)
    host: Host | None = None  # a hosted OpenAI-compatible provider's quirks
    base: str = ""  # its own URL, where neither --api-base nor a variable names another

    @property
    def names(self) -> tuple[str, ...]:
        """The prefixes its model names start with."""
        return self.prefixes or (self.name + "/",)

    @property
    def litellm_name(self) -> str:
        """litellm's name for the provider."""
        return self.litellm or self.name

    @property
    def key_var(self) -> str:
        """The variable to tell a user to set (<NAME>_API_KEY where the provider reads it)."""
        usual = _stem(self.name) + "_API_KEY"
        return self.told or (usual if usual in self.key_vars or not self.key_vars
                             else self.key_vars[0])

    @property
    def secret_variables(self) -> tuple[str, ...]:
        """Every variable holding its credentials (kept from the runners, redacted)."""
        extra = (self.secrets if self.secrets is not None
                 else tuple(_stem(self.name) + suffix for suffix in KEY_SUFFIXES))
        return tuple(dict.fromkeys(extra + self.key_vars))

    def key(self) -> str | None:
        """The key from the provider's own variables."""
        return next((os.environ[v] for v in self.key_vars if os.environ.get(v)), None)

    def env_base(self) -> str | None:
        """The URL its base-URL variables give, if any is set."""
        return next((os.environ[v] for v in self.base_vars if os.environ.get(v)), None)

    def url(self, api_base: str | None) -> str:
        """Where its requests go: --api-base, else its variables, else its own URL."""
        found = api_base or self.env_base() or self.base
        found = found.rstrip("/")
        v1 = self.host is not None and self.host.v1
        return found + "/v1" if v1 and not found.endswith("/v1") else found

    def headers(self) -> dict[str, str]:
        """Headers beyond OpenAI's: OpenRouter's app name (litellm sends its own)."""
        if self.name != "openrouter":
            return {}
        site = os.environ.get("OR_SITE_URL")
        return {"X-Title": os.environ.get("OR_APP_NAME") or "interp",
                **({"HTTP-Referer": site} if site else {})}


def _stem(name: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", name.upper()).strip("_")


def _host(name: str, base: str, key_vars: str, **quirks: Any) -> Provider:
    """A hosted OpenAI-compatible provider's row."""
    base_vars = tuple(quirks.pop("base_vars", f"{name.upper()}_API_BASE").split())
    secrets, bare = quirks.pop("secrets", None), quirks.pop("bare", "")
    return Provider(name, "openai", key_vars=tuple(key_vars.split()), base_vars=base_vars,
                    secrets=secrets, bare=bare, host=Host(**quirks), base=base)


PROVIDERS: tuple[Provider, ...] = (
    # the protocols interp speaks itself
    Provider("openai", "openai", key_vars=("OPENAI_API_KEY",),
             base_vars=("OPENAI_BASE_URL", "OPENAI_API_BASE"),
             bare=r"gpt-|chatgpt-|o[1-9]\b|ft:gpt|text-davinci|davinci|babbage",
             bare_in_map=True, map_prefix="", base="https://api.openai.com/v1"),
    Provider("anthropic", "anthropic", key_vars=("ANTHROPIC_API_KEY",),
             base_vars=("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"),
             secrets=("ANTHROPIC_AUTH_TOKEN",), bare="claude", bare_in_map=True, map_prefix="",
             base="https://api.anthropic.com"),
    Provider("gemini", "gemini", key_vars=("GOOGLE_API_KEY", "GEMINI_API_KEY"),
             base_vars=("GEMINI_API_BASE",), told="GEMINI_API_KEY", bare="gemini",
             map_prefix="gemini/", base="https://generativelanguage.googleapis.com"),
    Provider("ollama", "ollama", prefixes=("ollama/", "ollama_chat/"), key_vars=("OLLAMA_API_KEY",),
             base_vars=("OLLAMA_API_BASE",), litellm="ollama_chat", map_prefix="ollama/",
             base="http://localhost:11434"),
    Provider("azure", "azure", key_vars=("AZURE_OPENAI_API_KEY", "AZURE_API_KEY"),
             base_vars=("AZURE_API_BASE",), secrets=("AZURE_AD_TOKEN",)),
    # hosted providers that speak OpenAI's chat completions
    _host("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    _host("deepseek", "https://api.deepseek.com/beta", "DEEPSEEK_API_KEY", text_content="always"),
    _host("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
    _host("mistral", "https://api.mistral.ai/v1", "MISTRAL_AZURE_API_KEY MISTRAL_API_KEY",
          base_vars="MISTRAL_AZURE_API_BASE", stream_usage=False, text_content="text-only",
          drop_empty=True, v1=True, bare="mistral|codestral|open-mistral"),
    _host("codestral", "https://codestral.mistral.ai/v1", "CODESTRAL_API_KEY",
          stream_usage=False, text_content="text-only", drop_empty=True),
    _host("cerebras", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY", stream_usage=False),
    _host("together_ai", "https://api.together.ai/v1",
          "TOGETHER_API_KEY TOGETHER_AI_API_KEY TOGETHERAI_API_KEY TOGETHER_AI_TOKEN",
          secrets=("TOGETHERAI_API_KEY",)),
    _host("fireworks_ai", "https://api.fireworks.ai/inference/v1",
          "FIREWORKS_API_KEY FIREWORKS_AI_API_KEY FIREWORKSAI_API_KEY FIREWORKS_AI_TOKEN",
          base_vars="FIREWORKS_API_BASE", tools=True, secrets=("FIREWORKS_AI_API_KEY",)),
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
    # reached through litellm only; listed for their key variables
    Provider("text-completion-openai", key_vars=("OPENAI_API_KEY",)),
    Provider("azure_ai", key_vars=("AZURE_AI_API_KEY",), secrets=("AZURE_API_KEY",)),
    Provider("vertex_ai", told="GOOGLE_APPLICATION_CREDENTIALS", secrets=None),  # a file path
    Provider("vertex_ai_beta", key_vars=("GEMINI_API_KEY",), secrets=None),
    Provider("bedrock", key_vars=("AWS_ACCESS_KEY_ID",),
             secrets=("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK")),
    Provider("sagemaker", key_vars=("AWS_ACCESS_KEY_ID",),
             secrets=("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")),
    Provider("cohere", key_vars=("COHERE_API_KEY", "CO_API_KEY"), bare="command"),
    Provider("cohere_chat", key_vars=("COHERE_API_KEY", "CO_API_KEY")),
    Provider("huggingface", key_vars=("HUGGINGFACE_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")),
    Provider("replicate", key_vars=("REPLICATE_API_KEY", "REPLICATE_API_TOKEN")),
    Provider("github", key_vars=("GITHUB_API_KEY",)),  # not GITHUB_TOKEN: the code needs it
)
BY_NAME = {p.name: p for p in PROVIDERS}
# Bare model names litellm maps to a provider without a prefix.
_BARE = re.compile("|".join(f"(?P<{p.name}>{p.bare})" for p in PROVIDERS if p.bare))


@functools.cache
def _prefixes() -> tuple[tuple[str, Provider], ...]:
    """(prefix, provider) for every prefix, the longest first."""
    pairs = [(prefix, p) for p in PROVIDERS for prefix in p.names]
    return tuple(sorted(pairs, key=lambda pair: -len(pair[0])))


def by_prefix(name: str) -> tuple[str, Provider] | None:
    """The (prefix, provider) a model name starts with (`groq/llama-3.3-70b`), or None."""
    return next(((prefix, p) for prefix, p in _prefixes() if name.startswith(prefix)), None)


def provider_of(name: str | None) -> Provider | None:
    """The provider a model name is of, by its prefix (case aside) or a bare name; or None."""
    if not name:
        return None
    name = name.strip()
    found = by_prefix(name) or by_prefix(name.lower())
    if found:
        return found[1]
    if "/" in name:
        return None
    match = _BARE.match(name.lower())
    return BY_NAME.get(match.lastgroup) if match else None


def provider_name(name: str | None) -> str | None:
    """The name of the provider a model name is of: a table's row, else its lower-case
    prefix (`foo/x` -> foo), else None."""
    found = provider_of(name)
    if found:
        return found.name
    if name and "/" in name:
        return name.split("/", 1)[0].strip().lower() or None
    return None


def by_litellm(name: str) -> Provider | None:
    """The row whose litellm name (or own name) is `name`."""
    return next((p for p in PROVIDERS if name in (p.litellm_name, p.name)), None)


def secret_variables(provider: str | None) -> tuple[str, ...]:
    """The variables holding a provider's credentials (any other provider P: P_API_KEY and
    P_API_TOKEN)."""
    if not provider:
        return ()
    found = BY_NAME.get(provider)
    if found:
        return found.secret_variables
    stem = _stem(provider)
    return tuple(stem + suffix for suffix in KEY_SUFFIXES) if stem else ()


def key_variable(name: str, provider: str = "") -> str:
    """The environment variable a user sets for this model's key (GEMINI_API_KEY for gemini/)."""
    prefix = name.split("/", 1)[0] if "/" in name else ""
    found = by_prefix(name)
    row = found[1] if found else (by_litellm(provider) if provider else None)
    if row is not None:
        return row.key_var
    return _stem(provider or prefix or "openai") + "_API_KEY"
