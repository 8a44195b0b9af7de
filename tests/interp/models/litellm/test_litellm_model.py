"""LiteLLMModel against the real fake OpenAI server and real litellm (nothing mocked)."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, Reply as FakeReply

from interp.models import reach
from interp.models.litellm.loader import preload_in_background

from interp.models.base import ModelError, Reply, Retrying, ToolCall, Usage

from interp.models.litellm.loader import load_litellm

KEY = "sk-test-secret-1234"
MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hello."}]
TOOLS = [{"type": "function", "function": {"name": "execute", "description": "Run code",
          "parameters": {"type": "object", "properties": {"language": {"type": "string"},
                                                          "code": {"type": "string"}}}}}]


@pytest.fixture(autouse=True, params=["direct", "litellm"])
def transport(request, monkeypatch):
    """Every test on both paths: interp's own OpenAI client, and litellm (INTERP_TRANSPORT)."""
    if request.param == "litellm":
        monkeypatch.setenv("INTERP_TRANSPORT", "litellm")
    else:
        monkeypatch.delenv("INTERP_TRANSPORT", raising=False)
    return request.param


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def model_for(server, **kw):
    return reach.model_for("openai/fake-model", api_base=server.api_base, api_key=KEY, **kw)


def collect(model, messages=MESSAGES, tools=None, retries=None):
    deltas, replies = [], []
    for item in model.stream(messages, tools):
        if isinstance(item, Retrying):
            assert retries is not None, f"unexpected retry: {item}"
            retries.append(item)
            continue
        (replies if isinstance(item, Reply) else deltas).append(item)
    assert len(replies) == 1, "exactly one final Reply"
    return deltas, replies[0]


def fail(model, messages=MESSAGES):
    with pytest.raises(ModelError) as info:
        collect(model, messages, retries=[])
    assert KEY not in str(info.value) and KEY not in info.value.detail
    assert "\n" not in str(info.value)
    return info.value


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streams_text_deltas_then_full_reply(server):
    text = "Hello there! This reply arrives in several streamed pieces."
    server.add(FakeReply(text=text, chunk_size=7))
    deltas, reply = collect(model_for(server))
    assert len(deltas) > 3 and all(isinstance(d, str) and d for d in deltas)
    assert "".join(deltas) == text == reply.text
    assert reply.tool_calls == () and reply.finish_reason == "stop"
    assert isinstance(reply.usage, Usage) and reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    assert reply.usage.cost is None  # the fake model has no price
    body = server.requests[0]
    assert body["stream"] is True and body["model"] == "fake-model" and body["messages"] == MESSAGES
    assert body["stream_options"] == {"include_usage": True} and "tools" not in body


def test_streamed_tool_call_is_assembled(server):
    args = {"language": "python", "code": "print('a fairly long line of code to split up')"}
    server.add(FakeReply(text="Running it.", tool_calls=[{"name": "execute", "arguments": args, "id": "call_1"}],
                         chunk_size=5))
    deltas, reply = collect(model_for(server), tools=TOOLS)
    assert "".join(deltas) == "Running it." == reply.text
    assert reply.tool_calls == (ToolCall("call_1", "execute", json.dumps(args)),)
    assert json.loads(reply.tool_calls[0].arguments) == args
    assert reply.finish_reason == "tool_calls"
    assert server.requests[0]["tools"] == TOOLS


def test_two_tool_calls_keep_their_order(server):
    calls = [{"name": "execute", "arguments": {"code": str(i) * 20}} for i in range(2)]
    server.add(FakeReply(tool_calls=calls, chunk_size=4))
    deltas, reply = collect(model_for(server), tools=TOOLS)
    assert deltas == [] and reply.text == ""
    assert [json.loads(c.arguments)["code"] for c in reply.tool_calls] == ["0" * 20, "1" * 20]
    assert all(c.id and c.name == "execute" for c in reply.tool_calls)


def test_401_is_auth_error_without_retry_or_key(server):
    server.add(FakeReply(status=401))
    error = fail(model_for(server))
    assert error.kind == "auth" and error.attempts == 1
    assert "openai/fake-model" in str(error) and "OPENAI_API_KEY" in str(error) and "--api-key" in str(error)
    assert len(server.requests) == 1


def test_missing_key_is_auth_error_at_once(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    error = fail(reach.model_for("gpt-4o"))  # the openai client refuses before sending anything
    assert error.kind == "auth" and error.attempts == 1 and "OPENAI_API_KEY" in str(error)


def test_keyless_local_server_works(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.add("no key needed")
    assert collect(reach.model_for("openai/fake-model", api_base=server.api_base))[1].text == "no key needed"


def test_key_is_scrubbed_even_if_server_echoes_it(server):
    server.add(FakeReply(status=400, error=f"Bad key format: {KEY}"))
    error = fail(model_for(server))
    assert error.kind == "bad_request" and "***" in error.detail


def test_404_is_not_found(server):
    server.add(FakeReply(status=404))
    error = fail(model_for(server))
    assert error.kind == "not_found" and len(server.requests) == 1
    assert "'openai/fake-model'" in str(error) and server.api_base in str(error) and "--model" in str(error)


def test_400_is_bad_request_without_retry(server):
    server.add(FakeReply(status=400, error="messages: field required"))
    error = fail(model_for(server))
    assert error.kind == "bad_request" and "field required" in str(error) and len(server.requests) == 1


def test_429_twice_then_success(server):
    server.add(FakeReply(status=429, fail_times=2, text="finally"))
    retries = []
    deltas, reply = collect(model_for(server, max_retry_seconds=10), retries=retries)
    assert reply.text == "finally" and "".join(deltas) == "finally"
    assert len(server.requests) == 3
    assert [(r.attempt, r.max_attempts, r.reason, r.restart) for r in retries] == [
        (1, 5, "rate_limit", False), (2, 5, "rate_limit", False)]
    assert retries[0].text.startswith("rate limited, retry 1 of 5")


def test_500_once_then_success(server):
    server.add(FakeReply(status=500, fail_times=1, text="recovered"))
    assert collect(model_for(server, max_retry_seconds=10), retries=[])[1].text == "recovered"
    assert len(server.requests) == 2


def test_503_forever_gives_up_within_budget(server):
    server.default = FakeReply(status=503)
    error = fail(model_for(server, max_retry_seconds=3))
    assert error.kind == "server" and "503" in str(error)
    assert 1 < len(server.requests) <= 8 and error.attempts == len(server.requests)


def test_connection_refused(tmp_path):
    api_base = f"http://127.0.0.1:{closed_port()}/v1"
    error = fail(reach.model_for("openai/fake-model", api_base=api_base, api_key=KEY))
    assert error.kind == "connection" and error.attempts <= 2
    assert str(error) == f"Could not reach {api_base}: is the server running? (--api-base)"


def test_request_timeout_is_a_timeout_error(server):
    server.add(FakeReply(text="late", delay=5))
    error = fail(model_for(server, request_timeout=0.5, max_retry_seconds=0.1))
    assert error.kind == "timeout" and error.attempts == 1
    assert str(error) == (f"No reply from openai/fake-model at {server.api_base} within 0.5 s; "
                          "gave up (--request-timeout)")


def test_mid_stream_stall_keeps_partial_text_and_does_not_retry(server):
    server.add(FakeReply(text="partial answer that never finishes", chunk_size=8, hang=5))
    model, seen = model_for(server, idle_timeout=0.5, max_retry_seconds=10), []
    with pytest.raises(ModelError) as info:
        for item in model.stream(MESSAGES):
            seen.append(item)
    assert seen and info.value.partial == "".join(seen) and info.value.kind == "timeout"
    assert len(server.requests) == 1
    assert "stopped sending for 0.5 s" in str(info.value) and "--idle-timeout" in str(info.value)


def test_closing_the_stream_early_releases_it(server):
    server.add(FakeReply(text="x" * 200, chunk_size=4, chunk_delay=0.05))
    server.add("second")
    stream = model_for(server).stream(MESSAGES)
    assert next(stream) == "x" * 4
    stream.close()
    assert collect(model_for(server))[1].text == "second"


def test_unknown_provider_is_a_clear_error():
    error = fail(reach.model_for("nonsense-provider/xyz"))
    assert error.kind == "not_found"
    assert "nonsense-provider/xyz" in str(error) and "provider/model" in str(error)


def test_capabilities_never_raise(server):
    fake, known = model_for(server), reach.model_for("openai/gpt-4o")
    bogus = reach.model_for("nonsense-provider/xyz")
    assert known.supports_tools() and known.supports_vision() and known.context_window() == 128000
    assert fake.context_window() is None and bogus.context_window() is None
    assert bogus.supports_tools() is False and bogus.supports_vision() is False
    assert isinstance(fake.supports_tools(), bool)
    assert 0 < known.count_tokens(MESSAGES) < 50 and bogus.count_tokens(MESSAGES) > 0


def test_known_model_reply_has_a_cost(server):
    server.add("priced")
    model = reach.model_for("openai/gpt-4o", api_base=server.api_base, api_key=KEY)
    usage = collect(model)[1].usage
    assert usage is not None and usage.cost is not None and usage.cost > 0


def test_load_litellm_sets_env_and_caches():
    module = load_litellm()
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert module is load_litellm() and module.suppress_debug_info is True
    thread = preload_in_background()
    thread.join(5)
    assert thread.daemon and not thread.is_alive()


def test_import_is_lazy_and_quiet(server):
    """A fresh interpreter: importing interp.model loads no litellm; a failing call prints nothing."""
    code = (
        "import sys; import interp.models.litellm.model, interp.models.reach as m\n"
        "assert 'litellm' not in sys.modules\n"
        "from interp.models.base import ModelError\n"
        f"model = m.model_for('openai/fake-model', api_base={server.api_base!r}, api_key='k')\n"
        "try:\n    list(model.stream([{'role': 'user', 'content': 'hi'}]))\n"
        "except ModelError as e:\n    assert e.kind == 'auth', e.kind\n"
    )
    server.add(FakeReply(status=401))
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM")}
    env["PYTHONPATH"] = str(Path(__file__).parents[3])
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""


def test_counting_tokens_never_downloads_a_tokenizer(server, tmp_path):
    """litellm fetches Llama's tokenizer from the Hugging Face hub to count tokens, also for
    the usage of a streamed reply (23 s of retries offline): interp has it use the tokenizer
    it ships instead. The hub here is a real HTTP server on 127.0.0.1 that records requests."""
    import http.server
    import threading

    asked: list[str] = []

    class Hub(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's naming)
            asked.append(self.path)
            self.send_error(404)

        do_HEAD = do_GET  # noqa: N815

        def log_message(self, *args):
            pass

    hub = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    threading.Thread(target=hub.serve_forever, daemon=True).start()
    server.add("Hello there.")
    code = ("from interp.models.litellm.model import LiteLLMModel\n"
            f"model = LiteLLMModel('groq/llama-3.3-70b-versatile', api_key='k', "
            f"api_base={server.api_base!r})\n"
            "print(list(model.stream([{'role': 'user', 'content': 'hi'}]))[-1].text)\n"
            "print(model.count_tokens([{'role': 'user', 'content': 'hello world'}]))\n")
    env = dict(os.environ, HF_ENDPOINT=f"http://127.0.0.1:{hub.server_address[1]}",
               HF_HOME=str(tmp_path / "hf"), INTERP_TRANSPORT="litellm")
    env.pop("HF_HUB_OFFLINE", None)
    try:
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=120)
    finally:
        hub.shutdown()
    assert done.returncode == 0, done.stderr
    reply, count = done.stdout.splitlines()
    assert reply == "Hello there." and int(count) > 0 and asked == []
