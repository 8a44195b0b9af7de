"""The provider table (interp/models/providers.py) is the one source of provider knowledge:
routing, the key a user is told to set, secret hygiene and the hosts all read it."""

from __future__ import annotations

import pytest

from interp import secrets
from interp.config import models as factory
from interp.models import modelmap, providers
from interp.models.litellm import routes
from interp.models.providers import PROVIDERS, Provider
from interp.models.wire import hosts, route

pytestmark = pytest.mark.fast


def _sample(provider: Provider) -> str:
    return provider.names[0] + "some-model"


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_every_key_variable_is_kept_from_runners_and_redacted(provider):
    known = secrets.provider_variables(secrets.provider_of(_sample(provider)))
    assert set(provider.key_vars) <= set(known)
    assert known == provider.secret_variables
    assert set(known) <= set(secrets.runner_env_remove(_sample(provider), None, environ={}))
    told = providers.key_variable(_sample(provider), provider.litellm_name)
    assert told == provider.key_var
    assert told in known or told == provider.told  # vertex_ai: a credentials file, not a key


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_one_answer_to_which_provider_a_name_is_of(provider):
    name = _sample(provider)
    assert secrets.provider_of(name) == factory.provider_of(name) == provider.name
    assert providers.provider_of(name) is provider


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p.protocol], ids=lambda p: p.name)
def test_routing_reads_the_table(provider, monkeypatch):
    monkeypatch.delenv(route.TRANSPORT_VARIABLE, raising=False)
    for variable in provider.key_vars + provider.base_vars + ("AZURE_AD_TOKEN",):
        monkeypatch.delenv(variable, raising=False)
    name = _sample(provider)
    if provider.name == "azure":  # interp reaches a deployment itself only with a key and URL
        assert route.protocol_for(name) is None
        assert route.protocol_for(name, "https://example.openai.azure.com", "k") == "azure"
    else:
        assert route.protocol_for(name) == provider.protocol
    assert route.bare(name) == "some-model"
    assert routes.wire_name(name).startswith(provider.litellm_name + "/")
    assert (provider.name in hosts.HOSTS) is (provider.host is not None)


def test_prefixes_of_the_model_map_and_bare_names_come_from_the_table():
    assert modelmap._KEYS == {"openai/": ("openai", ""), "anthropic/": ("anthropic", ""),
                              "gemini/": ("gemini", "gemini/"), "ollama/": ("ollama", "ollama/"),
                              "ollama_chat/": ("ollama", "ollama/")}
    assert route.BARE == ("openai", "anthropic")
    assert [secrets.provider_of(n) for n in ("gpt-4o", "claude-x", "gemini-2.5", "command-r",
                                             "codestral-latest", "llama3")] == [
        "openai", "anthropic", "gemini", "cohere", "mistral", None]


def test_names_are_unique():
    names = [p.name for p in PROVIDERS]
    prefixes = [prefix for p in PROVIDERS for prefix in p.names]
    assert len(names) == len(set(names)) and len(prefixes) == len(set(prefixes))
