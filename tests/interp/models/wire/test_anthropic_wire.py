"""interp's own Anthropic Messages client (the direct path) against real servers on 127.0.0.1:
the request a realistic conversation becomes (checked by tests/anthropic_server.py against the
API's rules), the streamed reply (text, tool calls, usage, every stop reason, thinking, error
events), a non-streamed reply, a missing key, and a real `interp -e` run that never imports
litellm. Nothing mocked."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from anthropic_server import AnthropicServer, problem
from canned_server import CannedServer
from helpers import hang_guard, make_interp_env
from png_kit import make_png
from wire_server import Turn

from interp.models.wire import anthropic as anthropic_wire
from interp.models.wire import http as direct
from interp.models.wire import route
from interp.models.base import ModelError, Reply, Retrying
from interp.models.stream import TextDelta
from interp.models.wire.http import WireError
from interp.models.reach import model_for

KEY = "sk-ant-test-secret-1234"
MODEL = "anthropic/claude-sonnet-4-5"
ROOT = Path(__file__).resolve().parents[4]
TOOLS = [{"type": "function", "function": {
    "name": "execute", "description": "Run code",
    "parameters": {"type": "object", "properties": {"language": {"type": "string"},
                                                    "code": {"type": "string"}},
                   "required": ["language", "code"]}}}]
PNG_URL = "data:image/png;base64," + base64.b64encode(make_png()).decode()


def _call(call_id: str, code: str, arguments: str | None = None) -> dict:
    args = arguments if arguments is not None else json.dumps({"language": "python", "code": code})
    return {"id": call_id, "type": "function", "function": {"name": "execute", "arguments": args}}


# A resumed session's history, as interp's payload builds it: a system prompt, a task, a reply
# with text and two calls (one id from another provider), their results, figures after the
# results, a reply whose arguments were cut off, a result whose call was trimmed away, an
# empty assistant text, a fenced block's output and the next task in a row.
CONVERSATION = [
    {"role": "system", "content": "You are interp."},
    {"role": "user", "content": "Plot the data."},
    {"role": "assistant", "content": "Two steps.", "tool_calls": [
        _call("toolu_01", "import pandas"), _call("call.gemini/7", "plot()")]},
    {"role": "tool", "tool_call_id": "toolu_01", "content": "ok"},
    {"role": "tool", "tool_call_id": "call.gemini/7", "content": ""},
    {"role": "user", "content": [{"type": "text", "text": "The figures saved by the blocks above:"},
                                 {"type": "text", "text": "Figure /tmp/a.png:"},
                                 {"type": "image_url", "image_url": {"url": PNG_URL}}]},
    {"role": "assistant", "content": None, "tool_calls": [_call("toolu_02", "", '{"language": "py')]},
    {"role": "tool", "tool_call_id": "toolu_02", "content": "Not run or not finished: the turn was interrupted."},
    {"role": "tool", "tool_call_id": "toolu_gone", "content": "old output"},
    {"role": "assistant", "content": "  "},
    {"role": "user", "content": "[Block 1, python]\n42", "name": "output"},
    {"role": "user", "content": "Now save it."},
]


def test_names_go_the_direct_way(monkeypatch):
    assert route.protocol_for(MODEL) == "anthropic"
    assert route.protocol_for("claude-sonnet-4-5") == "anthropic"  # a bare name from the map
    assert model_for("claude-sonnet-4-5").direct
    monkeypatch.setenv("INTERP_TRANSPORT", "litellm")
    assert route.protocol_for(MODEL) is None


def test_a_resumed_conversation_becomes_what_the_api_accepts():
    with AnthropicServer(["Saved."]) as server:
        model = model_for(MODEL, api_base=server.api_base, api_key=KEY, max_tokens=1000,
                          params={"temperature": 0.2, "stop": ["END", "\n\n"], "top_k": 5,
                                     "frequency_penalty": 0.5, "seed": 3})
        with hang_guard():
            reply = list(model.stream(CONVERSATION, TOOLS))[-1]
        assert reply.text == "Saved."  # the server answers 400 to a body the API would refuse
        sent, headers = server.bodies[0], server.requests[0].headers
    assert problem(sent) is None
    assert headers["x-api-key"] == KEY and headers["anthropic-version"] == "2023-06-01"
    assert server.requests[0].path == "/v1/messages"
    assert {k: v for k, v in sent.items() if k != "messages"} == {
        "model": "claude-sonnet-4-5", "max_tokens": 1000, "stream": True,
        "system": [{"type": "text", "text": "You are interp."}],
        "tools": [{"name": "execute", "description": "Run code",
                   "input_schema": TOOLS[0]["function"]["parameters"]}],
        "temperature": 0.2, "stop_sequences": ["END"], "top_k": 5}
    user, first, results, second, last_results, last = sent["messages"][:6]
    assert user == {"role": "user", "content": [{"type": "text", "text": "Plot the data."}]}
    assert first["content"] == [
        {"type": "text", "text": "Two steps."},
        {"type": "tool_use", "id": "toolu_01", "name": "execute",
         "input": {"language": "python", "code": "import pandas"}},
        {"type": "tool_use", "id": "call_gemini_7", "name": "execute",
         "input": {"language": "python", "code": "plot()"}}]
    assert results["content"][:2] == [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"},
        {"type": "tool_result", "tool_use_id": "call_gemini_7"}]
    assert results["content"][4] == {"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": PNG_URL.split(",", 1)[1]}}
    assert second["content"] == [{"type": "tool_use", "id": "toolu_02", "name": "execute",
                                  "input": {"arguments": '{"language": "py'}}]
    assert last_results["content"][1]["text"] == "Output of tool call toolu_gone:\nold output"
    assert last["content"] == [{"type": "text", "text": "."}]
    assert sent["messages"][6]["content"] == [{"type": "text", "text": "[Block 1, python]\n42"},
                                              {"type": "text", "text": "Now save it."}]
    assert len(sent["messages"]) == 7


@pytest.mark.parametrize("messages, first", [
    ([{"role": "system", "content": "s"}, {"role": "assistant", "content": "Hi "}],
     {"role": "user", "content": [{"type": "text", "text": "."}]}),
    ([{"role": "user", "content": ""}], {"role": "user", "content": [{"type": "text", "text": "."}]}),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": "https://x.test/a.png"}]}],
     {"role": "user", "content": [{"type": "image", "source": {"type": "url",
                                                               "url": "https://x.test/a.png"}}]}),
])
def test_edge_shapes_the_api_would_refuse_are_fixed(messages, first):
    sent = anthropic_wire.body("claude-x", messages, None, 10, {})
    assert sent["messages"][0] == first and problem(sent) is None


def test_a_call_left_unanswered_gets_a_result():
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": "", "tool_calls": [_call("toolu_9", "x")]},
                {"role": "user", "content": "next"}]
    sent = anthropic_wire.body("claude-x", messages, None, 10, {})
    assert sent["messages"][2]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_9",
                                                 "content": "(no result)"}
    assert problem(sent) is None


def test_max_tokens_is_always_sent():
    known = anthropic_wire.body("claude-sonnet-4-5", [], None, None, {})["max_tokens"]
    assert known == 64000  # the model map's max_output_tokens
    assert anthropic_wire.body("claude-unknown-x", [], None, None, {})["max_tokens"] == 4096
    assert anthropic_wire.body("claude-x", [], None, 50, {"max_completion_tokens": 7})["max_tokens"] == 7


def test_where_requests_go(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_BASE", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    assert anthropic_wire.base_url(None) == "https://api.anthropic.com/v1/messages"
    for base in ("http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/messages"):
        assert anthropic_wire.base_url(base) == "http://h:1/v1/messages"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://proxy:2")
    assert anthropic_wire.base_url(None) == "http://proxy:2/v1/messages"
    monkeypatch.setenv("ANTHROPIC_API_BASE", "http://first:3/v1")
    assert anthropic_wire.base_url(None) == "http://first:3/v1/messages"


def test_a_missing_key_is_an_auth_error_naming_the_variable(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(WireError) as info:
        anthropic_wire.request("claude-x", None, None, [], None, None, {})
    assert info.value.kind == "auth" and "ANTHROPIC_API_KEY" in str(info.value)
    with AnthropicServer(["never"]) as server:
        with hang_guard(), pytest.raises(ModelError) as error:
            list(model_for(MODEL, api_base=server.api_base).stream(CONVERSATION[:2]))
        assert not server.requests
    assert error.value.kind == "auth" and "ANTHROPIC_API_KEY" in str(error.value)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    assert anthropic_wire.request("claude-x", None, None, [], None, None, {}).headers[
        "x-api-key"] == "from-env"


# -- the streamed reply ---------------------------------------------------------------------

def stream(server, tools=TOOLS, **kw) -> list:
    model = model_for(MODEL, api_base=server.api_base, api_key=KEY, **kw)
    with hang_guard():
        return list(model.stream(CONVERSATION[:2], tools))


def test_text_then_tool_calls_kept_apart_with_usage():
    calls = [{"name": "execute", "arguments": {"language": "python", "code": "a" * 40}},
             {"name": "execute", "arguments": {"language": "shell", "code": "ls -la"}}]
    with AnthropicServer([Turn(text="On it.", tool_calls=calls, usage=(120, 35))]) as server:
        items = stream(server)
    reply = items[-1]
    assert "".join(i for i in items if isinstance(i, str)) == "On it." == reply.text
    assert [json.loads(c.arguments) for c in reply.tool_calls] == [c["arguments"] for c in calls]
    assert all(c.id.startswith("toolu_") for c in reply.tool_calls)
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 35)
    assert reply.finish_reason == "tool_calls" and reply.usage.cost is not None


@pytest.mark.parametrize("stop, finish", [
    ("end_turn", "stop"), ("stop_sequence", "stop"), ("tool_use", "tool_calls"),
    ("max_tokens", "length"), ("refusal", "content_filter"), ("pause_turn", "stop")])
def test_every_stop_reason(stop, finish):
    with AnthropicServer([Turn(text="Some text.", finish=stop)]) as server:
        assert stream(server)[-1].finish_reason == finish


def test_cut_off_inside_a_tool_call_is_a_length_finish():
    args = {"language": "python", "code": "print('long enough to be cut')"}
    with AnthropicServer([Turn(tool_calls=[{"name": "execute", "arguments": args}],
                               cut_at=20)]) as server:
        reply = stream(server)[-1]
    assert reply.finish_reason == "length" and reply.tool_calls[0].arguments == json.dumps(args)[:20]


@pytest.mark.parametrize("kind, status", [("overloaded_error", 529), ("api_error", 500),
                                          ("rate_limit_error", 429)])
def test_an_error_event_mid_stream_carries_its_status(kind, status):
    turn = Turn(text="partial text", fail_after=4, error_type=kind, chunk_size=4)
    with AnthropicServer([turn]) as server:
        request = anthropic_wire.request("claude-x", server.api_base, KEY, CONVERSATION[:2],
                                         None, 100, {})
        seen = []
        with httpx.Client() as http, hang_guard(), pytest.raises(WireError) as info:
            response = direct.post(http, request)
            try:
                for item in anthropic_wire.chunks(response):
                    seen += [item.text] if isinstance(item, TextDelta) else []
            finally:
                response.close()
    assert info.value.status_code == status and kind in str(info.value)
    assert seen == ["part"]


def test_an_overloaded_stream_is_retried_from_the_start():
    turn = Turn(text="the whole reply", fail_after=4, chunk_size=4)
    with AnthropicServer([turn]) as server:
        items = stream(server)
    retries = [i for i in items if isinstance(i, Retrying)]
    assert [r.reason for r in retries] == ["server"] and retries[0].restart
    assert items[-1].text == "the whole reply"


# -- events the scripted server does not send: a raw one ------------------------------------

def _events(*events: dict) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _raw_reply(status: int, kind: str, data: bytes, **kw) -> list:
    with CannedServer([(status, kind, data)], "/v1") as server:
        model = model_for(MODEL, api_base=server.api_base, api_key=KEY, **kw)
        with hang_guard():
            return list(model.stream(CONVERSATION[:2]))


def test_thinking_is_not_text_and_cached_tokens_are_prompt():
    start = {"type": "message_start", "message": {"usage": {
        "input_tokens": 10, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5}}}
    data = _events(
        start,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "s"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "ping"},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": "Hi"}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "!"}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7}},
        {"type": "message_stop"}) + b"event: ignored\ndata: {\"type\": \"after-the-end\"}\n\n"
    items = _raw_reply(200, "text/event-stream", data)
    assert items[-1] == Reply("Hi!", (), items[-1].usage, "stop")
    assert (items[-1].usage.prompt_tokens, items[-1].usage.completion_tokens) == (115, 7)


def test_a_reply_that_is_not_streamed_still_arrives():
    message = {"type": "message", "role": "assistant", "stop_reason": "tool_use",
               "content": [{"type": "text", "text": "Whole."},
                           {"type": "tool_use", "id": "toolu_w", "name": "execute",
                            "input": {"language": "python", "code": "1"}}],
               "usage": {"input_tokens": 3, "output_tokens": 2}}
    reply = _raw_reply(200, "application/json", json.dumps(message).encode())[-1]
    assert reply.text == "Whole." and reply.finish_reason == "tool_calls"
    assert reply.tool_calls[0].id == "toolu_w"
    assert json.loads(reply.tool_calls[0].arguments) == {"language": "python", "code": "1"}


def test_an_error_body_says_what_the_server_said():
    body = {"type": "error", "error": {"type": "invalid_request_error",
                                       "message": "prompt is too long: 250000 tokens > 200000 maximum"}}
    with pytest.raises(ModelError) as info:
        _raw_reply(400, "application/json", json.dumps(body).encode())
    assert info.value.kind == "bad_request" and "prompt is too long" in str(info.value)


# -- the real interp ------------------------------------------------------------------------

def test_interp_runs_a_block_over_the_direct_path_without_litellm(tmp_path):
    """`interp -y -e` with an anthropic/ model: the block runs, the reply finishes, and
    interp's own process never imported litellm (it reports sys.modules at exit)."""
    env = make_interp_env(tmp_path)
    env["env"]["PYTHONPATH"] = str(ROOT)  # this checkout's interp, not another install's
    report = tmp_path / "modules.json"
    launcher = textwrap.dedent(f"""
        import atexit, json, sys
        atexit.register(lambda: open({str(report)!r}, "w").write(json.dumps(
            ["litellm" in sys.modules, "interp.models.wire.anthropic" in sys.modules])))
        sys.argv = ["interp", *sys.argv[1:]]
        from interp.cli.main import main
        main()
    """)
    turns = [Turn(tool_calls=[{"name": "execute",
                               "arguments": {"language": "python", "code": "print(6 * 7)"}}]),
             "All done: 42."]
    with AnthropicServer(turns) as server:
        done = subprocess.run([sys.executable, "-c", launcher, "-y", "-e", "compute 6*7",
                               "--model", MODEL, "--api-base", server.api_base, "--api-key", KEY],
                              capture_output=True, text=True, env=env["env"], cwd=env["cwd"],
                              timeout=120)
        bodies = server.bodies
    assert done.returncode == 0, done.stderr
    assert "All done: 42." in done.stdout
    assert len(bodies) == 2 and problem(bodies[1]) is None
    result = bodies[1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "42" in json.dumps(result)
    assert json.loads(report.read_text()) == [False, True]


def test_a_tool_result_with_parts_keeps_its_text_and_image():
    png = base64.b64encode(make_png(2, 2)).decode()
    messages = [{"role": "user", "content": "Plot it."},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "execute", "arguments": '{"language": "python"}'}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": [
                    {"type": "text", "text": "saved plot.png"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}}]}]
    body = anthropic_wire.request("claude-sonnet-4-5", None, KEY, messages, None, 100, {}).body
    assert problem(body) is None
    result = body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "call_1"
    assert result["content"] == [
        {"type": "text", "text": "saved plot.png"},
        {"type": "image", "source": {"type": "base64", "data": png, "media_type": "image/png"}}]
