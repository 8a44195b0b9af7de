"""interp's own OpenAI-compatible client (the direct path) against real servers on 127.0.0.1:
what goes the direct way, that it never imports litellm, error events in the stream, a server
that ignores stream=True, and the context window message. Nothing mocked."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from canned_server import CannedServer
from fake_openai import Reply as FakeReply
from helpers import hang_guard

from interp.models.wire import openai as openai_wire
from interp.models.base import ModelError, Reply, Retrying
from interp.models.wire.route import protocol_for
from interp.models.reach import model_for

KEY = "sk-test-secret-1234"
MESSAGES = [{"role": "user", "content": "Say hello."}]


@pytest.mark.parametrize("name, direct", [
    ("openai/local", True), ("openai/gpt-4o", True), ("gpt-4o-mini", True),
    ("anthropic/claude-sonnet-4-5", False), ("gemini/gemini-2.5-flash", False),
    ("ollama/llama3.1", False), ("o1-pro", False),  # o1-pro: OpenAI's Responses API only
    ("claude-sonnet-4-5", False), ("local", False)])
def test_which_models_take_the_direct_path(name, direct):
    assert (protocol_for(name) == "openai") is direct


def test_interp_transport_litellm_forces_litellm(monkeypatch):
    monkeypatch.setenv("INTERP_TRANSPORT", "litellm")
    assert protocol_for("openai/local") is None
    assert not model_for("openai/local", api_base="http://127.0.0.1:9/v1").direct


def test_the_direct_path_never_imports_litellm(fake_server):
    fake_server.add(FakeReply(text="Hi.", tool_calls=[{"name": "execute", "arguments": {}}]))
    script = textwrap.dedent(f"""
        import sys
        from interp.models.reach import model_for
        model = model_for("openai/local", api_base={fake_server.api_base!r}, api_key="k")
        model.tool_support(), model.context_window(), model.supports_vision()
        reply = [item for item in model.stream([{{"role": "user", "content": "hi"}}])][-1]
        assert reply.text == "Hi." and reply.tool_calls[0].name == "execute", reply
        print("litellm" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_request_body_and_headers(fake_server):
    fake_server.add("Hello.")
    model = model_for("openai/fake-model", api_base=fake_server.api_base, api_key=KEY,
                      max_tokens=100, params={"temperature": 0.2})
    with hang_guard():
        reply = list(model.stream(MESSAGES))[-1]
    assert reply.text == "Hello." and reply.usage.cost is None
    body = fake_server.requests[0]
    assert body == {"model": "fake-model", "messages": MESSAGES, "stream": True,
                    "stream_options": {"include_usage": True}, "max_tokens": 100,
                    "temperature": 0.2}
    assert fake_server.headers.get("Authorization") == f"Bearer {KEY}"


def test_the_openai_api_itself_gets_max_completion_tokens():
    official = openai_wire.body("o3-mini", MESSAGES, None, 500, {}, True)
    other = openai_wire.body("local", MESSAGES, None, 500, {}, False)
    assert official["max_completion_tokens"] == 500 and "max_tokens" not in official
    assert other["max_tokens"] == 500 and "max_completion_tokens" not in other
    assert "max_completion_tokens" not in openai_wire.body("o3-mini", MESSAGES, None, 500,
                                                           {"max_tokens": 9}, True)


def test_cost_comes_from_the_price_list(fake_server):
    fake_server.add("Hello.")
    model = model_for("openai/gpt-4o", api_base=fake_server.api_base, api_key=KEY)
    with hang_guard():
        reply = list(model.stream(MESSAGES))[-1]
    usage = reply.usage
    assert usage.cost == pytest.approx(usage.prompt_tokens * 2.5e-6
                                       + usage.completion_tokens * 1e-5)


def _sse(*events) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def _delta(text):
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def test_an_error_event_in_the_stream_is_retried_as_a_server_error():
    error = {"error": {"code": 500, "message": "slot unavailable", "type": "server_error"}}
    good = _sse(_delta("Hi"), {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    with CannedServer([(200, "text/event-stream", _sse(_delta("Hal"), error)),
                       (200, "text/event-stream", good + b"data: [DONE]\n\n")], "/v1") as server:
        model = model_for("openai/local", api_base=server.api_base)
        with hang_guard():
            items = list(model.stream(MESSAGES))
    retries = [i for i in items if isinstance(i, Retrying)]
    assert len(retries) == 1 and retries[0].reason == "server" and retries[0].restart
    assert items[-1] == Reply("Hi", (), None, "stop")


def test_a_server_that_ignores_stream_true_still_answers():
    whole = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "Whole."},
                          "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 3, "completion_tokens": 2}}
    with CannedServer([(200, "application/json", json.dumps(whole).encode())], "/v1") as server:
        with hang_guard():
            reply = list(model_for("openai/local", api_base=server.api_base).stream(MESSAGES))[-1]
    assert reply.text == "Whole." and reply.usage.prompt_tokens == 3


def test_a_conversation_too_long_for_the_window_says_so():
    body = {"error": {"code": 400, "type": "exceed_context_size_error",
                      "message": "the request exceeds the available context size"}}
    with CannedServer([(400, "application/json", json.dumps(body).encode())], "/v1") as server:
        with hang_guard(), pytest.raises(ModelError) as info:
            list(model_for("openai/local", api_base=server.api_base).stream(MESSAGES))
    assert info.value.kind == "bad_request"
    assert "too long for openai/local's context window" in str(info.value)
