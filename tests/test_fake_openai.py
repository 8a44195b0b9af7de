"""The fake OpenAI server, driven through real litellm over real HTTP on 127.0.0.1."""

import http.client
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # before importing litellm: no network here

import litellm  # noqa: E402
import pytest  # noqa: E402

try:
    from tests.fake_openai import EMPTY_TEXT, FakeOpenAI, Reply  # noqa: E402
except ImportError:
    from fake_openai import EMPTY_TEXT, FakeOpenAI, Reply  # noqa: E402

TIMEOUT = 20  # seconds; every client call is bounded
MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hello"}]


@pytest.fixture
def server():
    with FakeOpenAI() as srv:
        yield srv


def complete(server, **kwargs):
    """One litellm.completion call against the fake server."""
    kwargs.setdefault("messages", MESSAGES)
    return litellm.completion(
        model="openai/fake", api_base=server.api_base, api_key="sk-test", timeout=TIMEOUT, **kwargs
    )


def test_non_streamed_text_and_recorded_request(server):
    server.add("Hello there, human.")
    response = complete(server, stream=False)
    assert response.choices[0].message.content == "Hello there, human."
    assert response.choices[0].finish_reason == "stop"
    assert response.usage.prompt_tokens > 0 and response.usage.completion_tokens > 0
    assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens
    assert len(server.requests) == 1
    assert server.requests[0]["messages"] == MESSAGES
    assert server.requests[0]["model"] == "fake"
    assert server.headers.get("Authorization") == "Bearer sk-test"


def test_streamed_text_is_reassembled(server):
    text = "Streaming works: this reply arrives in many small pieces."
    server.add(Reply(text=text, chunk_size=5))
    chunks = list(complete(server, stream=True))
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(pieces) > 5
    assert "".join(pieces) == text
    assert server.requests[0]["stream"] is True
    rebuilt = litellm.stream_chunk_builder(chunks, messages=MESSAGES)
    assert rebuilt.choices[0].message.content == text


def test_streamed_usage_when_requested(server):
    server.add("counted")
    chunks = list(complete(server, stream=True, stream_options={"include_usage": True}))
    usages = [c.usage for c in chunks if getattr(c, "usage", None)]
    assert usages and usages[-1].completion_tokens > 0


def test_streamed_tool_call_is_reassembled(server):
    args = {"language": "python", "code": "print('hi')\nprint(1 + 1)"}
    server.add(Reply(tool_calls=[{"name": "execute", "arguments": args}], chunk_size=6))
    chunks = list(complete(server, stream=True, tools=[_execute_tool()]))
    fragments = [
        tc.function.arguments
        for c in chunks
        if c.choices and c.choices[0].delta.tool_calls
        for tc in c.choices[0].delta.tool_calls
    ]
    assert len([f for f in fragments if f]) > 3
    rebuilt = litellm.stream_chunk_builder(chunks, messages=MESSAGES)
    call = rebuilt.choices[0].message.tool_calls[0]
    assert call.function.name == "execute"
    assert json.loads(call.function.arguments) == args
    assert call.id
    assert rebuilt.choices[0].finish_reason == "tool_calls"


def test_non_streamed_tool_call(server):
    server.add(Reply(tool_calls=[{"name": "execute", "arguments": {"code": "ls"}, "id": "call_1"}]))
    message = complete(server, tools=[_execute_tool()]).choices[0].message
    assert message.tool_calls[0].id == "call_1"
    assert json.loads(message.tool_calls[0].function.arguments) == {"code": "ls"}


def test_401_raises_authentication_error(server):
    server.add(Reply(status=401))
    with pytest.raises(litellm.AuthenticationError):
        complete(server)
    assert server.pending() == 0


@pytest.mark.parametrize(
    ("status", "error"),
    [(404, litellm.NotFoundError), (500, litellm.InternalServerError), (503, litellm.ServiceUnavailableError)],
)
def test_error_statuses_map_to_litellm_errors(server, status, error):
    server.add(Reply(status=status, error=f"scripted {status}"))
    with pytest.raises(error, match=f"scripted {status}"):
        complete(server, max_retries=0)


def test_429_then_success_with_manual_retry(server):
    server.add(Reply(status=429, fail_times=1, text="finally"))
    with pytest.raises(litellm.RateLimitError):
        complete(server, max_retries=0)
    assert complete(server, max_retries=0).choices[0].message.content == "finally"
    assert len(server.requests) == 2


def test_429_then_success_with_client_retries(server):
    # litellm's own num_retries needs tenacity (not installed); the OpenAI SDK's max_retries honours retry-after-ms.
    server.add(Reply(status=429, fail_times=2, text="after two failures"))
    response = complete(server, max_retries=2)
    assert response.choices[0].message.content == "after two failures"
    assert len(server.requests) == 3


def test_dynamic_reply_sees_the_request(server):
    server.add(lambda body: f"you said: {body['messages'][-1]['content']}")
    server.add(lambda body: {"text": "streamed echo", "chunk_size": 3} if body.get("stream") else "plain")
    assert complete(server).choices[0].message.content == "you said: say hello"
    chunks = list(complete(server, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "streamed echo"


def test_dynamic_reply_failure_becomes_500(server):
    server.add(lambda body: 1 / 0)
    with pytest.raises(litellm.InternalServerError, match="ZeroDivisionError"):
        complete(server, max_retries=0)


def test_empty_queue_answers_with_clear_text(server):
    assert complete(server).choices[0].message.content == EMPTY_TEXT
    chunks = list(complete(server, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == EMPTY_TEXT


def test_delays_still_deliver_the_whole_reply(server):
    server.script([Reply(text="slow but sure", delay=0.2, chunk_delay=0.02, chunk_size=2), "next"])
    chunks = list(complete(server, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "slow but sure"
    assert complete(server).choices[0].message.content == "next"


def test_stop_releases_a_hanging_stream():
    srv = FakeOpenAI([Reply(text="first words then silence", hang=60, chunk_size=6)]).start()
    seen, done = [], threading.Event()

    def consume():
        try:
            for chunk in complete(srv, stream=True):
                seen.append(chunk.choices[0].delta.content or "" if chunk.choices else "")
        except Exception as exc:  # the connection closing mid-stream may surface as an error
            seen.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=consume, daemon=True)
    worker.start()
    _wait_until(lambda: "first " in seen)
    assert not done.is_set()
    srv.stop()
    assert done.wait(TIMEOUT)
    assert "silence" not in "".join(s for s in seen if isinstance(s, str))


def test_models_unknown_path_and_keep_alive(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT)
    conn.request("GET", "/v1/models")
    response = conn.getresponse()
    assert response.status == 200 and json.loads(response.read())["data"][0]["id"] == "fake"
    conn.request("GET", "/v1/nope")  # same connection: keep-alive with Content-Length
    response = conn.getresponse()
    assert response.status == 404 and "error" in json.loads(response.read())
    body = json.dumps({"model": "fake", "messages": MESSAGES})
    conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
    response = conn.getresponse()
    assert json.loads(response.read())["choices"][0]["message"]["content"] == EMPTY_TEXT
    conn.close()


def test_cli_serves_a_script_file(tmp_path):
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(["from the file", {"text": "second", "chunk_size": 2}]))
    cmd = [sys.executable, str(Path(__file__).with_name("fake_openai.py")), "--script", str(script)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        api_base = line.split("api_base=")[1].split()[0]
        kwargs = dict(model="openai/fake", api_base=api_base, api_key="sk-test", messages=MESSAGES, timeout=TIMEOUT)
        assert litellm.completion(**kwargs).choices[0].message.content == "from the file"
        chunks = list(litellm.completion(stream=True, **kwargs))
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "second"
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT)


def _execute_tool():
    params = {"type": "object", "properties": {"language": {"type": "string"}, "code": {"type": "string"}}}
    return {"type": "function", "function": {"name": "execute", "description": "run code", "parameters": params}}


def _wait_until(predicate, limit=TIMEOUT):
    """Poll predicate until true; fail after `limit` seconds."""
    event = threading.Event()
    for _ in range(int(limit / 0.02)):
        if predicate():
            return
        event.wait(0.02)
    pytest.fail("condition not reached")
