"""Secret hygiene: which values are redacted, and which variables runners never see.

The runners (the model's code) do not get the key variables of the provider interp is
talking to, `INTERP_API_KEY`, or any variable holding the `--api-key` value, unless the
user passes one through with `--pass-env NAME`. Detection reads the provider table
(interp.models.providers; no litellm import): `provider/model` names, plus the usual bare
names (`gpt-4o`, `claude-...`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from interp.models.providers import KEY_SUFFIXES, PROVIDERS, provider_name, secret_variables

REDACTED = "[REDACTED]"
# Every provider's credential variables, by provider.
PROVIDER_VARIABLES = {p.name: p.secret_variables for p in PROVIDERS}
MIN_SECRET_LEN = 6  # shorter values are not redacted (too many false hits)

ALWAYS_REMOVED = ("INTERP_API_KEY",)
GATEWAY_TOKEN_ENV = "INTERP_GATEWAY_TOKEN"  # the default; settings.gateway_token_env names another


def provider_of(model: str | None) -> str | None:
    """The provider a model string names (`anthropic/x` -> anthropic), if known."""
    return provider_name(model)


def provider_variables(provider: str | None) -> tuple[str, ...]:
    """The variables that hold a provider's credentials (the provider table's)."""
    return secret_variables(provider)


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


class _WalkNeeded(Exception):
    """The record holds something only `Redactor.walk` writes as JSON."""


def _unless_mapping(value: Any) -> str:
    if isinstance(value, Mapping):
        raise _WalkNeeded
    return str(value)


class Redactor:
    """Replaces every secret (length >= 6) in a record with REDACTED."""

    def __init__(self, secrets: Iterable[str | None]) -> None:
        found = {s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET_LEN}
        self.secrets = sorted(found, key=len, reverse=True)
        # Secrets that JSON writes as they are (no quote, backslash or control character):
        # one inside any string shows in the serialised line as it is.
        self._verbatim = all(json.dumps(s, ensure_ascii=False) == f'"{s}"' for s in found)

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
        if self._verbatim:  # the common case, without copying the record
            try:
                text = json.dumps(record, ensure_ascii=False, default=_unless_mapping)
            except (_WalkNeeded, TypeError):  # a Mapping or a key that `walk` turns into str
                text = ""
            if text and not any(secret in text for secret in self.secrets):
                return text + "\n"  # no string holds a secret: walking would change nothing
        text = json.dumps(self.walk(record), ensure_ascii=False, default=str)
        # Last resort (e.g. a secret inside a number): may corrupt the line, never leak.
        return self._scrub(text) + "\n"
