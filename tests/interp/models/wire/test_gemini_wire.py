"""interp's own Gemini client (interp.models.wire.gemini) against the scripted Gemini API
server (tests/gemini_server.py), over real HTTP. The server refuses what the real API refuses
(check_request), so every request here is also checked against the API's rules. Timeouts are
hang guards, never assertions."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from gemini_server import GeminiServer, check_request
from helpers import hang_guard, make_interp_env
from wire_server import Recorded, Turn

from interp.models.stream import CallDelta
from interp.models.wire import gemini as gemini_wire
from interp.models.wire import http as direct
from interp.models.base import ModelError, Reply
from interp.models.reach import model_for

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from interp.models.litellm.model import LiteLLMModel

KEY = "AIza-test-secret-1234"
MODEL = "gemini/gemini-2.5-flash"
ROOT = Path(__file__).resolve().parents[4]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
EXECUTE = {"type": "function", "function": {
    "name": "execute", "description": "Run code",
    "parameters": {"type": "object", "properties": {"language": {"type": "string"},
                                                    "code": {"type": "string"}},
                   "required": ["language", "code"]}}}
SIGNED = "call_1" + gemini_wire.SIGNATURE + "c2lnbmF0dXJlLW9uZQ=="


def call(call_id: str, code: str) -> dict:
    return {"id": call_id, "type": "function", "function": {
        "name": "execute", "arguments": json.dumps({"language": "python", "code": code})}}


def conversation() -> list[dict]:
    """What interp sends after a few rounds: tool calls (one signed), their results, figures
    after the results, a text-only answer, an empty reply, and a resumed session's shapes."""
    return [
        {"role": "system", "content": "You are interp."},
        {"role": "user", "content": "Plot a sine."},
        {"role": "assistant", "content": "Plotting.", "tool_calls": [
            call(SIGNED, "import math"), call("call_2", "print(1)")]},
        {"role": "tool", "tool_call_id": SIGNED, "content": "ok"},
        {"role": "tool", "tool_call_id": "call_2", "content": "1"},
        {"role": "user", "content": [
            {"type": "text", "text": "The figures saved by the blocks above:"},
            {"type": "text", "text": "Figure /tmp/a.png:"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "Your reply was empty."},
        {"role": "assistant", "content": None, "tool_calls": [call("call_3", "print(2)")]},
        {"role": "tool", "tool_call_id": "call_3", "content": [{"type": "text", "text": "2"}]},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Thanks."},
    ]


def collect(model: LiteLLMModel, messages: list[dict], tools=None) -> Reply:
    with hang_guard():
        replies = [item for item in model.stream(messages, tools) if isinstance(item, Reply)]
    assert len(replies) == 1
    return replies[0]


def raw_chunks(server, model: str = "gemini-2.5-flash") -> list:
    """The chunk records of one request, read with gemini_wire itself."""
    request = gemini_wire.request(model, server.api_base, KEY,
                                  [{"role": "user", "content": "hi"}], [EXECUTE], 100, {})
    with httpx.Client(timeout=30) as http, hang_guard():
        response = direct.post(http, request)
        try:
            return list(gemini_wire.chunks(response))
        finally:
            response.close()


# -- the request ------------------------------------------------------------------------

def test_a_realistic_conversation_is_sent_as_the_api_requires():
    with GeminiServer(["fine"]) as server:
        model = model_for(MODEL, api_base=server.api_base, api_key=KEY, max_tokens=500,
                          params={"temperature": 0.2, "top_p": 0.9, "stop": "END"})
        assert model.direct and collect(model, conversation(), [EXECUTE]).text == "fine"
        sent = server.requests[0]
    assert sent.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert sent.query == {"alt": "sse"} and sent.headers["x-goog-api-key"] == KEY
    body = sent.body
    assert body["systemInstruction"] == {"parts": [{"text": "You are interp."}]}
    assert body["generationConfig"] == {"maxOutputTokens": 500, "temperature": 0.2,
                                        "topP": 0.9, "stopSequences": ["END"]}
    assert body["tools"] == [{"functionDeclarations": [{
        "name": "execute", "description": "Run code",
        "parameters": EXECUTE["function"]["parameters"]}]}]
    contents = body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user", "model", "user", "model",
                                             "user"]
    assert contents[0]["parts"] == [{"text": "Plot a sine."}]
    assert contents[1]["parts"] == [
        {"text": "Plotting."},
        {"functionCall": {"name": "execute", "args": {"language": "python", "code": "import math"}},
         "thoughtSignature": "c2lnbmF0dXJlLW9uZQ=="},
        {"functionCall": {"name": "execute", "args": {"language": "python", "code": "print(1)"}}}]
    # both results in one user turn, named after their calls, the figures after them; the
    # empty reply is left out, so the nudge joins the same user turn
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "execute", "response": {"content": "ok"}}},
        {"functionResponse": {"name": "execute", "response": {"content": "1"}}},
        {"text": "The figures saved by the blocks above:"}, {"text": "Figure /tmp/a.png:"},
        {"inlineData": {"mimeType": "image/png", "data": PNG}},
        {"text": "Your reply was empty."}]
    assert contents[3]["parts"] == [{"functionCall": {"name": "execute", "args": {
        "language": "python", "code": "print(2)"}}}]
    assert contents[4]["parts"] == [{"functionResponse": {"name": "execute",
                                                          "response": {"content": "2"}}}]
    assert contents[5:] == [{"role": "model", "parts": [{"text": "Done."}]},
                            {"role": "user", "parts": [{"text": "Thanks."}]}]
    assert "id" not in json.dumps(contents[1]["parts"][1])  # Gemini 2.5 refuses call ids


def test_a_result_whose_call_was_dropped_goes_as_text():
    system, contents = gemini_wire.convert([
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "call_gone", "content": "old output"}])
    assert system == [] and contents == [
        {"role": "user", "parts": [{"text": "go"}, {"text": "old output"}]}]


def test_tool_parameters_are_cut_to_the_schema_gemini_accepts():
    tool = {"type": "function", "function": {"name": "edit", "strict": True, "parameters": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "additionalProperties": False, "$defs": {"Mode": {"type": "string", "enum": ["a", "b", ""]}},
        "properties": {
            "mode": {"$ref": "#/$defs/Mode"},
            "count": {"type": ["integer", "null"], "default": 1, "enum": [1, 2]},
            "path": {"anyOf": [{"type": "string", "format": "uri"}, {"type": "null"}],
                     "description": "where"},
            "tags": {"type": "array"},
            "meta": {"type": "object", "properties": {}, "additionalProperties": True},
            "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
        "required": ["mode", "missing"]}}}
    with GeminiServer(["ok"]) as server:
        model = model_for(MODEL, api_base=server.api_base, api_key=KEY)
        collect(model, [{"role": "user", "content": "hi"}], [tool])
        sent = server.bodies[0]["tools"][0]["functionDeclarations"][0]
    assert sent == {"name": "edit", "parameters": {"type": "object", "properties": {
        "mode": {"type": "string", "enum": ["a", "b"]},
        "count": {"type": "integer", "nullable": True, "default": 1},
        "path": {"type": "string", "description": "where", "nullable": True},
        "tags": {"type": "array", "items": {"type": "object"}},
        "meta": {"type": "object"},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "required": ["mode"]}}


def test_the_server_refuses_what_the_api_refuses():
    """The checks the requests above pass are real: a schema key, an unsigned Gemini 3 call,
    an unanswered call and a missing key are refused."""
    def refused(path: str, body: dict, headers=None) -> str | None:
        return check_request(Recorded(path, {}, {"x-goog-api-key": "k"} if headers is None else headers, body))

    user = {"role": "user", "parts": [{"text": "hi"}]}
    fc = {"role": "model", "parts": [{"functionCall": {"name": "execute", "args": {}}}]}
    tools = [{"functionDeclarations": [{"name": "x", "parameters": {
        "type": "object", "additionalProperties": False}}]}]
    assert "additionalProperties" in refused("/v1beta/models/m:x", {"contents": [user],
                                                                     "tools": tools})
    assert "thought_signature" in refused("/v1beta/models/gemini-3-pro:x", {"contents": [user, fc]})
    assert "number of function response" in refused("/v1beta/models/m:x",
                                                    {"contents": [user, fc, user]})
    assert "unregistered callers" in refused("/v1beta/models/m:x", {"contents": [user]}, {})
    assert refused("/v1beta/models/m:x", {"contents": [user, fc]}) is None


def test_where_requests_go(monkeypatch):
    monkeypatch.delenv("GEMINI_API_BASE", raising=False)
    path = "/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert gemini_wire.url("gemini-2.5-flash", None) == gemini_wire.DEFAULT_BASE + "/v1beta" + path
    assert gemini_wire.url("gemini-2.5-flash", "http://h:1/v1beta/") == "http://h:1/v1beta" + path
    assert gemini_wire.url("gemini-2.5-flash", "http://h:1") == "http://h:1/v1beta" + path
    assert gemini_wire.url("gemini-2.5-flash", "https://gw/acct/google") == "https://gw/acct/google" + path
    monkeypatch.setenv("GEMINI_API_BASE", "http://env:2/v1")
    assert gemini_wire.url("gemini-2.5-flash", None) == "http://env:2/v1" + path


# -- thought signatures -------------------------------------------------------------------

def test_a_thought_signature_goes_back_with_its_call():
    """Gemini 3 signs its calls and refuses the next request without the signature: interp
    keeps it in the call's id and puts it back on the functionCall part."""
    calls = [{"name": "execute", "arguments": {"language": "python", "code": "1"},
              "signature": "c2lnLW9uZQ==", "native_id": "fc-1"},
             {"name": "execute", "arguments": {"language": "python", "code": "2"}}]
    with GeminiServer([Turn(tool_calls=calls), "done"]) as server:
        model = model_for("gemini/gemini-3-pro-preview", api_base=server.api_base, api_key=KEY)
        messages = [{"role": "user", "content": "go"}]
        first = collect(model, messages, [EXECUTE])
        ids = [c.id for c in first.tool_calls]
        assert ids[0] == "fc-1" + gemini_wire.SIGNATURE + "c2lnLW9uZQ==" and len(set(ids)) == 2
        messages += [{"role": "assistant", "content": None, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in first.tool_calls]}]
        messages += [{"role": "tool", "tool_call_id": c.id, "content": "out"} for c in first.tool_calls]
        assert collect(model, messages, [EXECUTE]).text == "done"
        model_turn, results = server.bodies[1]["contents"][1:]
    assert model_turn["parts"][0]["thoughtSignature"] == "c2lnLW9uZQ=="
    assert model_turn["parts"][0]["functionCall"]["id"] == "fc-1"
    assert "thoughtSignature" not in model_turn["parts"][1]
    assert [p["functionResponse"]["id"] for p in results["parts"]] == [
        "fc-1", ids[1]]


def test_calls_from_another_model_get_the_documented_stand_in_on_gemini_3():
    messages = [{"role": "user", "content": "go"},
                {"role": "assistant", "content": "", "tool_calls": [call("call_a", "1")]},
                {"role": "tool", "tool_call_id": "call_a", "content": "1"}]
    with GeminiServer(["ok"]) as server:
        model = model_for("gemini/gemini-3-flash-preview", api_base=server.api_base, api_key=KEY)
        assert collect(model, messages, [EXECUTE]).text == "ok"
        part = server.bodies[0]["contents"][1]["parts"][0]
    assert part["thoughtSignature"] == gemini_wire.SKIP_SIGNATURE
    assert base64.b64decode(gemini_wire.SKIP_SIGNATURE) == b"skip_thought_signature_validator"


# -- the reply ----------------------------------------------------------------------------

class ThinkingServer(GeminiServer):
    """Sends a thought summary part first and counts thinking tokens, as 2.5 models do."""

    def _responses(self, turn, model, body):
        yield {"candidates": [{"index": 0, "content": {"role": "model", "parts": [
            {"text": "**Planning** the answer", "thought": True}]}}],
            "usageMetadata": {"promptTokenCount": 7, "thoughtsTokenCount": 30}}
        for response in super()._responses(turn, model, body):
            if "usageMetadata" in response:
                response["usageMetadata"]["thoughtsTokenCount"] = 30
            yield response


def test_text_calls_thoughts_and_usage():
    calls = [{"name": "execute", "arguments": {"language": "python", "code": str(i)}}
             for i in range(3)]
    with ThinkingServer([Turn(text="Running them.", tool_calls=calls, usage=(11, 5))]) as server:
        model = model_for(MODEL, api_base=server.api_base, api_key=KEY)
        reply = collect(model, [{"role": "user", "content": "go"}], [EXECUTE])
    assert reply.text == "Running them." and reply.finish_reason == "tool_calls"
    assert [json.loads(c.arguments)["code"] for c in reply.tool_calls] == ["0", "1", "2"]
    assert len({c.id for c in reply.tool_calls}) == 3
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 35)


def test_each_call_has_its_own_index():
    calls = [{"name": "execute", "arguments": {"code": str(i)}} for i in range(2)]
    with GeminiServer([Turn(tool_calls=calls)]) as server:
        records = raw_chunks(server)
    pieces = [r for r in records if isinstance(r, CallDelta)]
    assert [p.index for p in pieces] == [0, 1] and pieces[0].id != pieces[1].id


@pytest.mark.parametrize("finish,expected", [
    ("STOP", "stop"), ("MAX_TOKENS", "length"), ("SAFETY", "content_filter"),
    ("RECITATION", "content_filter"), ("BLOCKLIST", "content_filter"),
    ("PROHIBITED_CONTENT", "content_filter"), ("SPII", "content_filter"),
    ("IMAGE_SAFETY", "content_filter"), ("OTHER", "content_filter"),
    ("MALFORMED_FUNCTION_CALL", "stop"), ("prompt:PROHIBITED_CONTENT", "content_filter")])
def test_every_finish_reason(finish, expected):
    text = "" if finish != "STOP" and finish != "MAX_TOKENS" else "some text"
    with GeminiServer([Turn(text=text, finish=finish)]) as server:
        reply = collect(model_for(MODEL, api_base=server.api_base, api_key=KEY),
                        [{"role": "user", "content": "hi"}])
    assert reply.finish_reason == expected and reply.text == text and not reply.tool_calls


def test_a_cut_off_reply_with_a_whole_call_is_length():
    with GeminiServer([Turn(tool_calls=[{"name": "execute", "arguments": {"code": "1"}}],
                            finish="MAX_TOKENS")]) as server:
        reply = collect(model_for(MODEL, api_base=server.api_base, api_key=KEY),
                        [{"role": "user", "content": "hi"}], [EXECUTE])
    assert reply.finish_reason == "length" and json.loads(reply.tool_calls[0].arguments) == {"code": "1"}


@pytest.mark.parametrize("status,kind", [(429, None), (500, None), (503, None),
                                         (400, "auth")])
def test_an_error_in_the_stream_raises_with_its_code(status, kind):
    turn = Turn(text="partial text", status=status, fail_after=1, chunk_size=4,
                error_type="API_KEY_INVALID" if kind else None)
    with GeminiServer([turn]) as server, pytest.raises(direct.WireError) as info:
        raw_chunks(server)
    assert info.value.status_code == status and info.value.kind == kind
    assert f'"code": {status}' in str(info.value)


class JsonServer(GeminiServer):
    """Answers the streaming method with one JSON document: an object, or the array that
    streamGenerateContent sends without alt=sse."""

    def __init__(self, *args, array: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.array = array

    def answer(self, h, turn, fail, recorded):
        responses = list(self._responses(turn, "m", recorded.body))
        h.json(200, responses if self.array else responses[-1])


@pytest.mark.parametrize("array", [False, True], ids=["object", "array"])
def test_a_reply_in_one_json_document(array):
    turn = Turn(text="whole", tool_calls=[{"name": "execute", "arguments": {"code": "1"}}])
    with JsonServer([turn], array=array) as server:
        reply = collect(model_for(MODEL, api_base=server.api_base, api_key=KEY),
                        [{"role": "user", "content": "hi"}], [EXECUTE])
    assert reply.finish_reason == "tool_calls" and reply.tool_calls[0].name == "execute"
    assert reply.text == ("whole" if array else "")  # the object is the last response only


# -- keys ---------------------------------------------------------------------------------

def test_a_missing_key_names_gemini_api_key(monkeypatch):
    for name in gemini_wire.GEMINI.key_vars:
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(direct.WireError) as info:
        gemini_wire.request("gemini-2.5-flash", None, None, [], None, None, {})
    assert info.value.kind == "auth" and "GEMINI_API_KEY" in str(info.value)
    with GeminiServer() as server, hang_guard(), pytest.raises(ModelError) as error:
        list(model_for(MODEL, api_base=server.api_base).stream([{"role": "user", "content": "x"}]))
        assert not server.requests
    assert error.value.kind == "auth" and "check GEMINI_API_KEY or --api-key" in str(error.value)
    assert "VERTEX" not in str(error.value)


def test_the_key_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "from-gemini")
    assert gemini_wire.request("m", None, None, [], None, None, {}).headers["x-goog-api-key"] == "from-gemini"
    monkeypatch.setenv("GOOGLE_API_KEY", "from-google")  # litellm and Google's SDK prefer it
    assert gemini_wire.request("m", None, None, [], None, None, {}).headers["x-goog-api-key"] == "from-google"
    assert gemini_wire.request("m", None, "given", [], None, None, {}).headers["x-goog-api-key"] == "given"


# -- end to end ---------------------------------------------------------------------------

def test_interp_runs_a_task_on_gemini_without_importing_litellm(tmp_path):
    """The real `interp -y -e` against the server: a block runs, the task finishes, and
    `-X importtime` shows that litellm was never imported."""
    env = make_interp_env(tmp_path)
    code = {"language": "python", "code": "print(6 * 7)"}
    with GeminiServer([Turn(text="Computing.", tool_calls=[{"name": "execute", "arguments": code}]),
                       "The answer is 42."]) as server:
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "interp", "-y", "-e", "What is 6*7?",
             "--model", MODEL, "--api-base", server.api_base, "--api-key", KEY],
            capture_output=True, text=True, cwd=env["cwd"], timeout=120,
            env=dict(env["env"], PYTHONPATH=str(ROOT)))
        requests = server.requests
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "42" in proc.stdout and "The answer is 42." in proc.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")]
    assert "interp.models.wire.http" in imported  # (importlib.import_module is not logged)
    assert not [name for name in imported if name.split(".")[0] == "litellm"]
    # interp's own client sent it: litellm would post to /models/... with snake_case fields
    assert [r.path for r in requests] == ["/v1beta/models/gemini-2.5-flash:streamGenerateContent"] * 2
    assert "maxOutputTokens" in requests[0].body["generationConfig"]
    bodies = [r.body for r in requests]
    result = bodies[1]["contents"][-1]["parts"][0]["functionResponse"]
    assert result["name"] == "execute" and "42" in result["response"]["content"]
