"""LiteLLMModel against real Anthropic, Gemini and Ollama wire protocols (tests/*_server.py),
through real litellm over real HTTP. Timeouts here are hang guards, never assertions."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from anthropic_server import AnthropicServer
from fake_openai import FakeOpenAI, Reply as OpenAIReply
from gemini_server import BAD_KEY, GeminiServer
from helpers import hang_guard
from ollama_server import OllamaServer
from wire_server import Turn

from interp.models.base import ModelError, Reply, Retrying
from interp.models.reach import model_for

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from interp.models.litellm.model import LiteLLMModel

KEY = "sk-test-secret-1234"
MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hello."}]
TOOLS = [{"type": "function", "function": {
    "name": "execute", "description": "Run code",
    "parameters": {"type": "object", "properties": {"language": {"type": "string"},
                                                    "code": {"type": "string"}},
                   "required": ["language", "code"]}}}]
AFTER_TEXT = {"anthropic": 4, "gemini": 1, "ollama": 1}  # stream events up to the first text piece
ARGS = {"language": "python", "code": "print('a line of code long enough to be split')"}


@dataclass(frozen=True)
class Provider:
    name: str
    server: type
    model: str


PROVIDERS = [Provider("anthropic", AnthropicServer, "anthropic/claude-sonnet-4-5"),
             Provider("gemini", GeminiServer, "gemini/gemini-2.5-flash"),
             Provider("ollama", OllamaServer, "ollama/llama3.1")]


@pytest.fixture(params=PROVIDERS, ids=lambda p: p.name)
def wire(request):
    """(provider, a started server of its protocol)."""
    with request.param.server() as server:
        yield request.param, server


def model_of(provider: Provider, server, **kw) -> LiteLLMModel:
    return model_for(provider.model, api_base=server.api_base, api_key=KEY, **kw)


def collect(model, tools=None):
    """(text deltas, retries, the Reply)."""
    deltas, retries, replies = [], [], []
    with hang_guard():
        for item in model.stream(MESSAGES, tools):
            if isinstance(item, Retrying):
                retries.append(item)
            elif isinstance(item, Reply):
                replies.append(item)
            else:
                deltas.append(item)
    assert len(replies) == 1
    return deltas, retries, replies[0]


def failure(model, tools=None) -> tuple[ModelError, list]:
    retries = []
    with hang_guard(), pytest.raises(ModelError) as info:
        for item in model.stream(MESSAGES, tools):
            if isinstance(item, Retrying):
                retries.append(item)
    error = info.value
    assert KEY not in str(error) and "\n" not in str(error)
    return error, retries


# -- replies --------------------------------------------------------------------------------

def test_text_tool_call_and_usage(wire):
    provider, server = wire
    server.add(Turn(text="Running it.", tool_calls=[{"name": "execute", "arguments": ARGS}]))
    deltas, retries, reply = collect(model_of(provider, server), TOOLS)
    assert "".join(deltas) == "Running it." == reply.text and not retries
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [("execute", ARGS)]
    assert reply.tool_calls[0].id and reply.finish_reason == "tool_calls"
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    body = server.bodies[0]
    sent_tools = body.get("tools")
    assert sent_tools, f"{provider.name}: the tool was not sent"


def test_two_tool_calls_keep_their_order(wire):
    provider, server = wire
    calls = [{"name": "execute", "arguments": {"language": "python", "code": str(i) * 30}}
             for i in range(2)]
    server.add(Turn(tool_calls=calls))
    _, _, reply = collect(model_of(provider, server), TOOLS)
    assert [json.loads(c.arguments)["code"] for c in reply.tool_calls] == ["0" * 30, "1" * 30]
    assert len({c.id for c in reply.tool_calls}) == 2


def test_a_cap_on_the_reply_is_sent(wire):
    provider, server = wire
    server.add("ok")
    collect(model_of(provider, server, max_tokens=1234))
    body = server.bodies[0]
    sent = {"anthropic": lambda b: b["max_tokens"],
            "gemini": lambda b: b["generationConfig"]["maxOutputTokens"],
            "ollama": lambda b: b["options"]["num_predict"]}[provider.name](body)
    assert sent == 1234


def test_ollama_runs_through_api_chat_with_tools():
    """The README's `--model ollama/llama3.1` goes to /api/chat, where tool calls work."""
    with OllamaServer() as server:
        server.add(Turn(tool_calls=[{"name": "execute", "arguments": ARGS}]))
        model = model_for("ollama/llama3.1", api_base=server.api_base)
        assert model.tool_support() is True
        _, _, reply = collect(model, TOOLS)
        assert server.requests[0].path == "/api/chat"
        assert server.bodies[0]["model"] == "llama3.1" and server.bodies[0]["tools"]
        assert json.loads(reply.tool_calls[0].arguments) == ARGS


# -- refusals, empty replies, cut-offs ---------------------------------------------------------

@pytest.mark.parametrize("provider,finish", [(PROVIDERS[0], "refusal"), (PROVIDERS[1], "SAFETY")],
                         ids=["anthropic-refusal", "gemini-safety"])
def test_blocked_reply_is_a_content_filter_finish(provider, finish):
    with provider.server() as server:
        server.add(Turn(text="I" if provider.name == "anthropic" else "", finish=finish))
        _, _, reply = collect(model_of(provider, server))
    assert reply.finish_reason == "content_filter" and not reply.tool_calls


def test_gemini_malformed_function_call_is_an_empty_reply():
    with GeminiServer() as server:
        server.add(Turn(finish="MALFORMED_FUNCTION_CALL"))
        _, _, reply = collect(model_of(PROVIDERS[1], server), TOOLS)
    assert reply.text == "" and reply.tool_calls == () and reply.finish_reason == "stop"


def test_anthropic_cut_off_inside_a_tool_call():
    with AnthropicServer() as server:
        server.add(Turn(text="Here:", tool_calls=[{"name": "execute", "arguments": ARGS}], cut_at=25))
        _, _, reply = collect(model_of(PROVIDERS[0], server), TOOLS)
    assert reply.finish_reason == "length"
    assert reply.tool_calls[0].arguments == json.dumps(ARGS)[:25]


def test_openai_calls_without_index_stay_apart():
    calls = [{"name": "execute", "arguments": {"language": "python", "code": "1"}},
             {"name": "execute", "arguments": {"language": "shell", "code": "ls"}}]
    with FakeOpenAI([OpenAIReply(tool_calls=calls, no_index=True)]) as server:
        model = model_for("openai/fake", api_base=server.api_base, api_key=KEY)
        _, _, reply = collect(model, TOOLS)
    assert [json.loads(c.arguments)["language"] for c in reply.tool_calls] == ["python", "shell"]


# -- deadlines -----------------------------------------------------------------------------

def test_a_server_that_never_answers_is_given_up_and_disconnected(wire):
    provider, server = wire
    server.add(Turn(hang=60))
    error, retries = failure(model_of(provider, server, request_timeout=1))
    assert error.kind == "timeout" and not retries
    assert str(error) == (f"No reply from {provider.model} at {server.api_base} within 1 s; "
                          "gave up (--request-timeout)")
    assert server.wait_abandoned(1, timeout=30), "the request was left open"


def test_keep_alives_are_not_progress(wire):
    provider, server = wire
    server.add(Turn(keepalive=0.2))
    error, _ = failure(model_of(provider, server, request_timeout=1.5))
    assert error.kind == "timeout" and "within 1.5 s" in str(error)
    assert server.wait_abandoned(1, timeout=30), "the request was left open"


def test_openai_keep_alives_are_not_progress():
    with FakeOpenAI([OpenAIReply(keepalive=0.2)]) as server:
        model = model_for("openai/fake", api_base=server.api_base, api_key=KEY,
                          request_timeout=1.5)
        error, _ = failure(model)
        assert error.kind == "timeout" and "within 1.5 s" in str(error)


def test_a_stall_after_the_first_token_hits_the_idle_deadline(wire):
    provider, server = wire
    server.add(Turn(text="words that stop coming", fail_after=AFTER_TEXT[provider.name],
                    midstream="stall", chunk_size=4))
    error, retries = failure(model_of(provider, server, idle_timeout=1))
    assert error.kind == "timeout" and not retries and error.partial == "word"
    assert str(error) == (f"{provider.model} at {server.api_base} stopped sending for 1 s; "
                          "gave up (--idle-timeout) (reply cut off)")
    assert server.wait_abandoned(1, timeout=30), "the request was left open"


def test_ctrl_c_while_waiting_abandons_the_request(wire):
    provider, server = wire
    server.add(Turn(hang=60))
    model = model_of(provider, server, request_timeout=60)
    with pytest.raises(KeyboardInterrupt), interrupt_when(lambda: server.requests):
        for _ in model.stream(MESSAGES):
            pass
    assert server.wait_abandoned(1, timeout=30), "the request was left open"


def test_ctrl_c_while_an_openai_compatible_server_reads_the_prompt_abandons_it():
    """A local server with one slot must not go on with a request nobody waits for."""
    with FakeOpenAI([OpenAIReply(text="late", delay=60)]) as server:
        model = model_for("openai/local", api_base=server.api_base, request_timeout=60)
        with pytest.raises(KeyboardInterrupt), interrupt_when(lambda: server.requests):
            for _ in model.stream(MESSAGES):
                pass
        with hang_guard(30, "the request was left open"):
            while not server.abandoned:
                server._stopped.wait(0.05)


@contextmanager
def interrupt_when(ready, guard: float = 30.0):
    """Raise KeyboardInterrupt in the main thread (as Ctrl-C does) once ready() is true."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGUSR1, interrupt)
    done = threading.Event()

    def watch():
        end = time.monotonic() + guard
        while not done.is_set() and not ready() and time.monotonic() < end:
            done.wait(0.02)
        if not done.is_set():
            os.kill(os.getpid(), signal.SIGUSR1)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        signal.signal(signal.SIGUSR1, previous)


# -- retries -------------------------------------------------------------------------------

def test_mid_stream_error_retries_and_starts_over(wire):
    provider, server = wire
    server.add(Turn(text="first attempt text that fails", fail_after=AFTER_TEXT[provider.name],
                    chunk_size=4))
    deltas, retries, reply = collect(model_of(provider, server))
    assert reply.text == "first attempt text that fails"
    assert len(retries) == 1 and retries[0].restart and retries[0].reason == "server"
    assert "mid-reply" in retries[0].text
    assert "".join(deltas).endswith(reply.text) and len(server.requests) == 2


def test_dropped_connection_mid_reply_retries(wire):
    provider, server = wire
    server.add(Turn(text="text before the drop", fail_after=AFTER_TEXT[provider.name],
                    midstream="drop", chunk_size=4))
    deltas, retries, reply = collect(model_of(provider, server))
    assert reply.text == "text before the drop" and len(server.requests) == 2
    assert [r.reason for r in retries] == ["connection"] and retries[0].restart
    assert retries[0].text.startswith("connection lost mid-reply, retry 1 of 5")


def test_openai_dropped_connection_mid_reply_retries():
    with FakeOpenAI([OpenAIReply(text="abcdefghijklmnop", chunk_size=4, drop_after=3),
                     "the full reply"]) as server:
        model = model_for("openai/fake", api_base=server.api_base, api_key=KEY)
        _, retries, reply = collect(model)
    assert reply.text == "the full reply" and retries[0].restart


def test_anthropic_overloaded_then_ok():
    with AnthropicServer([Turn(status=529, text="fine")]) as server:
        _, retries, reply = collect(model_of(PROVIDERS[0], server))
    assert reply.text == "fine" and [r.reason for r in retries] == ["server"]


@pytest.mark.parametrize("provider,turn", [
    (PROVIDERS[0], Turn(status=429, retry_after=1.5, text="after the wait")),
    (PROVIDERS[1], Turn(status=429, retry_delay=1.5, text="after the wait")),
], ids=["anthropic-retry-after", "gemini-retryinfo"])
def test_rate_limit_waits_as_long_as_the_server_asks(provider, turn):
    with provider.server([turn]) as server:
        _, retries, reply = collect(model_of(provider, server))
    assert reply.text == "after the wait"
    assert [r.reason for r in retries] == ["rate_limit"] and retries[0].delay >= 1.5
    assert retries[0].text == "rate limited, retry 1 of 5 in 2 s"


def test_a_wait_longer_than_the_budget_is_not_made():
    with GeminiServer([Turn(status=429, retry_delay=120)]) as server:
        error, retries = failure(model_of(PROVIDERS[1], server, max_retry_seconds=30))
    assert error.kind == "rate_limit" and not retries and len(server.requests) == 1
    assert "asks to wait 120 s" in str(error)


def test_gemini_503_says_what_the_server_said():
    with GeminiServer(default=Turn(status=503)) as server:
        error, retries = failure(model_of(PROVIDERS[1], server, max_retry_seconds=1))
    assert error.kind == "server" and retries
    assert "HTTP 503: The model is overloaded. Please try again later." in str(error)
    assert "500" not in str(error)


# -- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("provider,turn,variable", [
    (PROVIDERS[0], Turn(status=401), "ANTHROPIC_API_KEY"),
    (PROVIDERS[1], BAD_KEY, "GEMINI_API_KEY"),
    (PROVIDERS[2], Turn(status=401), "OLLAMA_API_KEY"),
], ids=["anthropic", "gemini", "ollama"])
def test_bad_key_names_the_right_variable(provider, turn, variable):
    with provider.server([turn]) as server:
        error, retries = failure(model_of(provider, server))
    assert error.kind == "auth" and not retries and len(server.requests) == 1
    assert variable in str(error) and "VERTEX" not in str(error)


def test_ollama_missing_model_is_not_found():
    with OllamaServer([Turn(status=404)]) as server:
        error, _ = failure(model_of(PROVIDERS[2], server))
    assert error.kind == "not_found" and "'ollama/llama3.1'" in str(error)


def long_history(turns: int = 200) -> list[dict]:
    """A task worked through in `turns` rounds of an execute call and its output."""
    messages = list(MESSAGES)
    for i in range(turns):
        args = json.dumps({"language": "python", "code": f"print({i} * 2)"})
        messages.append({"role": "assistant", "content": f"Step {i}.", "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": "execute", "arguments": args}}]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "x" * 600})
    return messages + [{"role": "user", "content": "Go on."}]


def test_every_call_gives_its_connection_back(wire):
    """A long conversation, many calls on one model: none waits for a connection (litellm
    stops reading Anthropic's stream at message_stop; the pool had 10 connections)."""
    provider, server = wire
    model, messages = model_of(provider, server, request_timeout=30), long_history()
    with hang_guard(300):
        for _ in range(14):
            replies = [item for item in model.stream(messages) if isinstance(item, Reply)]
            assert len(replies) == 1
    assert len(server.bodies) == 14
