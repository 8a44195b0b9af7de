"""Secret hygiene: which values are redacted, and which variables runners never see.

The runners (the model's code) do not get the key variables of the provider interp is
talking to, `INTERP_API_KEY`, or any variable holding the `--api-key` value, unless the
user passes one through with `--pass-env NAME`. Detection is a static table (no litellm
import): `provider/model` names, plus the usual bare names (`gpt-4o`, `claude-...`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"
MIN_SECRET_LEN = 6  # shorter values are not redacted (too many false hits)

# Variables holding credentials, per litellm provider; any other provider P falls back to
# P_API_KEY and P_API_TOKEN.
PROVIDER_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "text-completion-openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_AD_TOKEN"),
    "azure_ai": ("AZURE_AI_API_KEY", "AZURE_API_KEY"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "bedrock": ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                "AWS_BEARER_TOKEN_BEDROCK"),
    "sagemaker": ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"),
    "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
    "cohere_chat": ("COHERE_API_KEY", "CO_API_KEY"),
    "huggingface": ("HUGGINGFACE_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"),
    "fireworks_ai": ("FIREWORKS_AI_API_KEY", "FIREWORKS_API_KEY"),
    "replicate": ("REPLICATE_API_KEY", "REPLICATE_API_TOKEN"),
    "github": ("GITHUB_API_KEY",),  # not GITHUB_TOKEN: too often needed by the code itself
}
# Bare model names litellm maps to a provider without a prefix.
_BARE = re.compile(r"(?P<openai>gpt-|chatgpt-|o[1-9]\b|ft:gpt|text-davinci|davinci|babbage)"
                   r"|(?P<anthropic>claude)|(?P<gemini>gemini)|(?P<cohere>command)"
                   r"|(?P<mistral>mistral|codestral|open-mistral)")
ALWAYS_REMOVED = ("INTERP_API_KEY",)
GATEWAY_TOKEN_ENV = "INTERP_GATEWAY_TOKEN"  # the default; settings.gateway_token_env names another
KEY_SUFFIXES = ("_API_KEY", "_API_TOKEN")


def provider_of(model: str | None) -> str | None:
    """The litellm provider a model string names (`anthropic/x` -> anthropic), if known."""
    if not model:
        return None
    if "/" in model:
        return model.split("/", 1)[0].strip().lower() or None
    match = _BARE.match(model.strip().lower())
    return match.lastgroup if match else None


def provider_variables(provider: str | None) -> tuple[str, ...]:
    """The variables that hold a provider's credentials."""
    if not provider:
        return ()
    if provider in PROVIDER_VARIABLES:
        return PROVIDER_VARIABLES[provider]
    stem = re.sub(r"[^A-Z0-9]+", "_", provider.upper()).strip("_")
    return tuple(stem + suffix for suffix in KEY_SUFFIXES) if stem else ()


def runner_env_remove(model: str | None, api_key: str | None, pass_env: Iterable[str] = (),
                      environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """Names of the variables to leave out of the runners' environment."""
    environ = os.environ if environ is None else environ
    names = set(provider_variables(provider_of(model))) | set(ALWAYS_REMOVED)
    if api_key:
        names |= {name for name, value in environ.items() if value == api_key}
    return frozenset(names - set(pass_env))


def secret_values(model: str | None, api_key: str | None,
                  environ: Mapping[str, str] | None = None) -> list[str]:
    """Values never written to disk or printed: the key, *_API_KEY/_API_TOKEN variables and
    the provider's credential variables."""
    environ = os.environ if environ is None else environ
    names = set(provider_variables(provider_of(model))) | set(ALWAYS_REMOVED)
    values = [api_key] if api_key else []
    values += [value for name, value in environ.items()
               if value and (name in names or name.endswith(KEY_SUFFIXES))]
    return values


def gateway_token_env(settings) -> str:
    """The variable that holds the Jupyter gateway's token for a Settings."""
    return getattr(settings, "gateway_token_env", None) or GATEWAY_TOKEN_ENV


def secrets_of(settings) -> list[str]:
    """`secret_values` for a Settings, plus the Jupyter gateway's token."""
    token = os.environ.get(gateway_token_env(settings))
    return secret_values(settings.model, settings.api_key) + ([token] if token else [])


def runner_env_remove_for(settings) -> frozenset[str]:
    """`runner_env_remove` for a Settings (its `pass_env`, when it has one); the gateway's
    token is left out too (code holding it could run anything on the gateway, unapproved)."""
    passed = getattr(settings, "pass_env", None) or ()
    token = {gateway_token_env(settings)} - set(passed)
    return runner_env_remove(settings.model, settings.api_key, passed) | token


class Redactor:
    """Replaces every secret (length >= 6) in a record with REDACTED."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        found = {s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LEN}
        self.secrets = sorted(found, key=len, reverse=True)

    def _scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text

    def walk(self, value: Any) -> Any:
        """A copy of a JSON-like value with every secret in its strings replaced."""
        if isinstance(value, str):
            return self._scrub(value)
        if isinstance(value, Mapping):
            return {self.walk(str(k)): self.walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.walk(v) for v in value]
        return value

    def line(self, record: dict[str, Any]) -> str:
        """Serialise `record` as one JSON line with no secret left in it."""
        text = json.dumps(self.walk(record), ensure_ascii=False, default=str)
        # Last resort (e.g. a secret inside a number): may corrupt the line, never leak.
        return self._scrub(text) + "\n"
