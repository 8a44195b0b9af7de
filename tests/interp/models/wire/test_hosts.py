"""Hosted OpenAI-compatible providers (groq, deepseek, mistral, ...) on interp's own client:
each is sent the body real litellm sends it, at litellm's URL with litellm's key variable;
a host that refuses the first request is handed to litellm. Real servers on 127.0.0.1."""

from __future__ import annotations

import json
import os

import pytest

from canned_server import CannedServer
from fake_openai import FakeOpenAI
from fake_openai import Reply as FakeReply
from helpers import hang_guard

from interp.models.wire import hosts
from interp.models.wire import openai as openai_wire
from interp.models.base import HandedOver, ModelError, Reply
from interp.models.reach import model_for
from interp.models.litellm.loader import load_litellm

KEY = "sk-host-secret-1234"
SAMPLES = {  # a model of each host, as a user names it
    "groq": "groq/llama-3.3-70b-versatile", "deepseek": "deepseek/deepseek-chat",
    "xai": "xai/grok-3", "mistral": "mistral/mistral-large-latest",
    "codestral": "codestral/codestral-latest", "cerebras": "cerebras/llama3.1-8b",
    "together_ai": "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "fireworks_ai": "fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct",
    "openrouter": "openrouter/anthropic/claude-3.5-sonnet",
    "deepinfra": "deepinfra/meta-llama/Meta-Llama-3.1-70B-Instruct",
    "nvidia_nim": "nvidia_nim/meta/llama3-70b-instruct",
    "sambanova": "sambanova/Meta-Llama-3.1-8B-Instruct",
    "nebius": "nebius/meta-llama/Meta-Llama-3.1-70B-Instruct",
    "novita": "novita/meta-llama/llama-3.1-8b-instruct",
    "hyperbolic": "hyperbolic/meta-llama/Llama-3.3-70B-Instruct",
    "moonshot": "moonshot/kimi-k2-0711-preview", "lambda_ai": "lambda_ai/llama3.1-8b-instruct",
    "perplexity": "perplexity/sonar",
    "featherless_ai": "featherless_ai/featherless-ai/Qwerky-72B"}
TOOLS = [{"type": "function", "function": {"name": "execute", "description": "Run code",
          "parameters": {"type": "object", "properties": {"language": {"type": "string"},
                                                          "code": {"type": "string"}},
                         "required": ["language", "code"]}}}]
CALL = {"role": "assistant", "content": "Step.", "tool_calls": [
    {"id": "call_1", "type": "function",
     "function": {"name": "execute", "arguments": '{"language": "python", "code": "print(1)"}'}}]}
HISTORY = [{"role": "system", "content": "You are interp."}, {"role": "user", "content": "do it"},
           CALL, {"role": "tool", "tool_call_id": "call_1", "content": "1"},
           {"role": "assistant", "content": "done"},
           {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
           {"role": "assistant", "content": ""}, {"role": "user", "content": "go on"}]
IMAGE = {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url",
                                     "image_url": {"url": "data:image/png;base64,AAAA"}}]}


def test_every_host_has_a_sample():
    assert set(SAMPLES) == set(hosts.HOSTS)


def _sent(server: FakeOpenAI, name: str, messages: list[dict], monkeypatch, litellm: bool):
    monkeypatch.setenv("INTERP_TRANSPORT", "litellm" if litellm else "")
    model = model_for(name, api_base=server.api_base, api_key=KEY, request_timeout=60)
    assert model.direct is not litellm
    with hang_guard():
        reply = list(model.stream([dict(m) for m in messages], TOOLS))[-1]
    assert isinstance(reply, Reply) and reply.tool_calls[0].name == "execute"
    return server.requests[-1], server.headers.get("Authorization")


@pytest.mark.parametrize("host", sorted(SAMPLES))
@pytest.mark.parametrize("image", [False, True], ids=["text", "image"])
def test_each_host_is_sent_what_litellm_sends_it(host, image, monkeypatch):
    """The body interp's own client sends equals the one real litellm sends for the same
    history (content lists, an empty assistant message, an image, tools, max_tokens)."""
    messages = HISTORY + [IMAGE] if image else HISTORY
    reply = FakeReply(text="ok", tool_calls=[{"name": "execute", "arguments": {"code": "1"}}])
    with FakeOpenAI(default=reply) as server:
        ours = _sent(server, SAMPLES[host], messages, monkeypatch, litellm=False)
        theirs = _sent(server, SAMPLES[host], messages, monkeypatch, litellm=True)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1] == f"Bearer {KEY}"


@pytest.mark.parametrize("host", sorted(SAMPLES))
def test_each_host_has_litellms_url_and_key_variables(host, monkeypatch):
    """Where requests go and which key they carry, with and without the host's variables."""
    for name in [v for h in hosts.HOSTS.values() for v in h.key_vars + h.base_vars]:
        monkeypatch.delenv(name, raising=False)
    found = hosts.HOSTS[host]
    if host == "openrouter":  # litellm finds its URL and key later, in completion()
        return
    get_provider = load_litellm().get_llm_provider
    _, _, key, base = get_provider(SAMPLES[host])
    assert (found.url(None), found.key()) == (base.rstrip("/"), key)
    for variable in found.key_vars:
        monkeypatch.setenv(variable, f"key-from-{variable}")
        assert found.key() == get_provider(SAMPLES[host])[2] == f"key-from-{variable}"
        monkeypatch.delenv(variable)
    for variable in found.base_vars:
        monkeypatch.setenv(variable, "https://proxy.example/v1")
        assert found.url(None) == get_provider(SAMPLES[host])[3].rstrip("/")
        monkeypatch.delenv(variable)


def test_openrouter_has_litellms_url_and_key_variables(fake_server, monkeypatch):
    """litellm reads OpenRouter's variables only when it sends: send through it and compare."""
    for variable in ("OPENROUTER_API_KEY", "OPENROUTER_API_BASE"):
        monkeypatch.delenv(variable, raising=False)
    assert hosts.HOSTS["openrouter"].url(None) == "https://openrouter.ai/api/v1"
    monkeypatch.setenv("OPENROUTER_API_BASE", fake_server.api_base)
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    fake_server.script([FakeReply(text="one"), FakeReply(text="two")])
    for how in ("litellm", ""):
        monkeypatch.setenv("INTERP_TRANSPORT", how)
        with hang_guard():
            list(model_for(SAMPLES["openrouter"]).stream(HISTORY))
        assert fake_server.headers["Authorization"] == f"Bearer {KEY}"
    assert len(fake_server.requests) == 2


def test_a_host_model_takes_interps_own_client(fake_server, monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", KEY)
    fake_server.add(FakeReply(text="Hi."))
    model = model_for("groq/llama-3.3-70b-versatile", api_base=fake_server.api_base)
    with hang_guard():
        reply = list(model.stream([{"role": "user", "content": "hi"}]))[-1]
    assert model.direct and model.provider == "groq"
    assert reply.text == "Hi." and reply.usage.cost > 0  # priced from litellm's map
    assert fake_server.requests[0]["model"] == "llama-3.3-70b-versatile"
    assert fake_server.headers["Authorization"] == f"Bearer {KEY}"


def test_a_host_never_gets_the_openai_key(fake_server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-stay-home")
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    model = model_for("groq/llama-3.3-70b-versatile", api_base=fake_server.api_base)
    with pytest.raises(ModelError) as caught, hang_guard():
        list(model.stream([{"role": "user", "content": "hi"}]))
    assert caught.value.kind == "auth" and "GROQ_API_KEY" in str(caught.value)
    assert fake_server.requests == []


def test_a_host_that_refuses_the_first_request_is_handed_to_litellm(fake_server, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", KEY)
    fake_server.add(FakeReply(status=400, error="Extra inputs are not permitted", text="Hi."))
    model = model_for("mistral/mistral-large-latest", api_base=fake_server.api_base)
    with hang_guard():
        items = list(model.stream([{"role": "user", "content": "hi"}]))
    notices = [i.text for i in items if isinstance(i, HandedOver)]
    assert len(notices) == 1 and "mistral refused interp's own request (400" in notices[0]
    assert "Extra inputs are not permitted" in notices[0] and notices[0].endswith("litellm")
    assert items[-1].text == "Hi." and not model.direct and len(fake_server.requests) == 2


def test_a_refusal_after_an_answer_is_the_users_error(fake_server, monkeypatch):
    """Once the host has taken interp's request, a 400 is about this request (too long, a bad
    parameter): shown, not sent again through litellm."""
    monkeypatch.setenv("GROQ_API_KEY", KEY)
    fake_server.script([FakeReply(text="Hi."), FakeReply(status=400, error="context too long")])
    model = model_for("groq/llama-3.3-70b-versatile", api_base=fake_server.api_base)
    with hang_guard():
        list(model.stream([{"role": "user", "content": "hi"}]))
        with pytest.raises(ModelError) as caught:
            list(model.stream([{"role": "user", "content": "hi"}]))
    assert caught.value.kind == "bad_request" and "context too long" in str(caught.value.detail)
    assert model.direct and len(fake_server.requests) == 2


def _sse(*events) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"


def test_hosts_own_shapes_of_a_streamed_reply_are_read(monkeypatch):
    """Mistral's content blocks (with thinking), Groq's `reasoning` and `x_groq` usage."""
    monkeypatch.setenv("MISTRAL_API_KEY", KEY)
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]}
    stream = _sse(
        {"choices": [{"index": 0, "delta": {"reasoning": "let me see"}}]},
        {"choices": [{"index": 0, "delta": {"content": [thinking, {"type": "text", "text": "4"}]}}]},
        {"choices": [{"index": 0, "delta": {"content": "2"}, "finish_reason": "stop"}],
         "x_groq": {"usage": {"prompt_tokens": 7, "completion_tokens": 2}}})
    with CannedServer([(200, "text/event-stream", stream)], "/v1") as server:
        with hang_guard():
            reply = list(model_for("mistral/mistral-large-latest",
                                   api_base=server.api_base).stream(HISTORY))[-1]
    assert reply.text == "42" and reply.finish_reason == "stop"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (7, 2)


def test_openrouter_names_interp_as_the_app():
    body = openai_wire.hosted_request(hosts.HOSTS["openrouter"], "x/y", None, KEY, HISTORY,
                                      None, None, {})
    assert body.headers["X-Title"] == os.environ.get("OR_APP_NAME", "interp")
    assert body.body["usage"] == {"include": True}
    assert body.url == "https://openrouter.ai/api/v1/chat/completions"


def test_tool_support_of_host_models_agrees_with_litellm():
    """`--tools auto` decides alike on either path (fireworks: on unless the map says off)."""
    from interp.models import modelmap
    from interp.models.litellm import routes

    names = [key if key.startswith(entry["litellm_provider"] + "/")
             else f"{entry['litellm_provider']}/{key}"
             for key, entry in modelmap._entries().items()
             if entry.get("litellm_provider") in hosts.HOSTS and entry.get("mode", "chat") == "chat"]
    differ = [n for n in names if model_for(n).tool_support() != routes.tool_support(n)]
    assert len(names) > 500 and len(differ) <= len(names) // 50, differ


# -- Azure OpenAI ----------------------------------------------------------------------------
def _azure_sent(server: FakeOpenAI, name: str, messages: list[dict], monkeypatch, litellm: bool):
    monkeypatch.setenv("INTERP_TRANSPORT", "litellm" if litellm else "")
    endpoint = server.api_base.rsplit("/v1", 1)[0]  # a resource's endpoint has no path
    model = model_for(name, api_base=endpoint, api_key=KEY, request_timeout=60)
    assert model.direct is not litellm
    with hang_guard():
        reply = list(model.stream([dict(m) for m in messages], TOOLS))[-1]
    assert reply.tool_calls[0].name == "execute"
    return server.path, server.headers.get("api-key"), server.requests[-1]


@pytest.mark.parametrize("deployment", ["my-deploy", "gpt-4o", "gpt-4.1-mini"])
@pytest.mark.parametrize("image", [False, True], ids=["text", "image"])
def test_azure_deployments_are_sent_what_litellm_sends_them(deployment, image, monkeypatch):
    """Same URL (deployment path, api-version), same api-key header, same body."""
    monkeypatch.delenv("AZURE_API_VERSION", raising=False)
    messages = HISTORY + [IMAGE] if image else HISTORY
    reply = FakeReply(text="ok", tool_calls=[{"name": "execute", "arguments": {"code": "1"}}])
    with FakeOpenAI(default=reply) as server:
        ours = _azure_sent(server, f"azure/{deployment}", messages, monkeypatch, litellm=False)
        theirs = _azure_sent(server, f"azure/{deployment}", messages, monkeypatch, litellm=True)
        monkeypatch.setenv("AZURE_API_VERSION", "2024-10-21")
        dated = _azure_sent(server, f"azure/{deployment}", messages, monkeypatch, litellm=False)
    assert ours[2] == theirs[2]
    assert ours[:2] == theirs[:2] == (
        f"/openai/deployments/{deployment}/chat/completions?api-version="
        f"{load_litellm().AZURE_DEFAULT_API_VERSION}", KEY)
    assert dated[0].endswith("?api-version=2024-10-21")


def test_which_azure_models_interp_speaks_to_itself(monkeypatch):
    """A key and a bare endpoint; never an Entra ID token, an endpoint with a path or a
    deployment litellm treats as a reasoning model (o1/o3/o4, gpt-5)."""
    for name in ("AZURE_AD_TOKEN", "AZURE_API_BASE", "AZURE_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    endpoint = "https://example.openai.azure.com"
    assert hosts.azure_speaks("azure/gpt-4o", endpoint, KEY)
    assert not hosts.azure_speaks("azure/gpt-4o", endpoint)  # no key
    assert not hosts.azure_speaks("azure/gpt-4o", None, KEY)  # no endpoint
    assert not hosts.azure_speaks("azure/gpt-4o", endpoint + "/openai/v1", KEY)
    for reasoning in ("o3-mini", "o1", "gpt-5-mini", "my-o4-deploy"):
        assert not hosts.azure_speaks(f"azure/{reasoning}", endpoint, KEY)
    monkeypatch.setenv("AZURE_API_BASE", endpoint)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    assert hosts.azure_speaks("azure/gpt-4o")
    monkeypatch.setenv("AZURE_AD_TOKEN", "entra-token")
    assert not hosts.azure_speaks("azure/gpt-4o")
    assert not model_for("azure/gpt-4o").direct


def test_an_azure_deployment_that_refuses_the_first_request_is_handed_to_litellm(fake_server):
    fake_server.add(FakeReply(status=400, error="Unrecognized request argument", text="Hi."))
    endpoint = fake_server.api_base.rsplit("/v1", 1)[0]
    model = model_for("azure/my-deploy", api_base=endpoint, api_key=KEY)
    assert model.direct
    with hang_guard():
        items = list(model.stream([{"role": "user", "content": "hi"}]))
    notices = [i.text for i in items if isinstance(i, HandedOver)]
    assert len(notices) == 1 and notices[0].startswith("azure refused interp's own request (400")
    assert items[-1].text == "Hi." and not model.direct and len(fake_server.requests) == 2
