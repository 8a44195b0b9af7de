"""interp's own Ollama client (POST /api/chat, NDJSON) against real servers on 127.0.0.1: the
request in Ollama's shape (checked by tests/ollama_server.py as strictly as Ollama's own types
check it), where requests go, the optional key, the streamed reply (text, whole tool calls,
thinking, usage, every finish), errors in the stream, a reply sent as one JSON document, and a
real `interp` run that never imports litellm. Nothing mocked."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from canned_server import CannedServer
from helpers import hang_guard
from ollama_server import OllamaServer
from png_kit import make_png
from wire_server import Turn

from interp.core.prompt.vision import with_images
from interp.models.wire import ollama as ollama_wire
from interp.models.base import ModelError, Reply, Retrying
from interp.models.stream import is_progress
from interp.models.reach import model_for

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only
    from interp.models.litellm.model import LiteLLMModel

MESSAGES = [{"role": "user", "content": "Say hello."}]
TOOLS = [{"type": "function", "function": {
    "name": "execute", "description": "Run code",
    "parameters": {"type": "object", "properties": {"language": {"type": "string"},
                                                    "code": {"type": "string"}},
                   "required": ["language", "code"]}}}]
ARGS = {"language": "python", "code": "print(6 * 7)"}


@pytest.fixture
def server():
    with OllamaServer() as started:
        yield started


@pytest.fixture(autouse=True)
def no_ollama_environment(monkeypatch):
    for name in ("OLLAMA_API_BASE", "OLLAMA_HOST", "OLLAMA_API_KEY", "INTERP_TRANSPORT"):
        monkeypatch.delenv(name, raising=False)


def model(base: str | None, **kw) -> LiteLLMModel:
    return model_for("ollama/llama3.1:8b", api_base=base, **kw)


def collect(chosen: LiteLLMModel, messages=MESSAGES, tools=None) -> tuple[list, Reply]:
    """(what came before the Reply, the Reply)."""
    with hang_guard():
        items = list(chosen.stream(messages, tools))
    assert isinstance(items[-1], Reply)
    return items[:-1], items[-1]


def failure(chosen: LiteLLMModel) -> ModelError:
    with hang_guard(), pytest.raises(ModelError) as info:
        list(chosen.stream(MESSAGES))
    return info.value


# -- the request ------------------------------------------------------------------------------

def conversation(tmp_path) -> list[dict]:
    """What interp sends after a few turns: tool calls (one with arguments the model wrote
    badly), their results, a figure after a tool result, a text-fallback turn, and the
    shapes of a resumed session (a dangling call answered, a developer message)."""
    figure = tmp_path / "plot.png"
    figure.write_bytes(make_png())
    history = [
        {"role": "system", "content": "You are interp."},
        {"role": "user", "content": "Plot something."},
        {"role": "assistant", "content": "Plotting.", "tool_calls": [
            {"id": "call_a", "type": "function",
             "function": {"name": "execute", "arguments": json.dumps(ARGS)}},
            {"id": "call_b", "type": "function",
             "function": {"name": "execute", "arguments": "{\"language\": \"python\", "}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "42"},
        {"role": "tool", "tool_call_id": "call_b", "content": "Invalid arguments."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_c", "type": "function", "function": {"name": "execute",
                                                              "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "call_c",
         "content": "Not run or not finished: the turn was interrupted."},
        {"role": "assistant", "content": "```python\nprint(1)\n```"},
        {"role": "user", "content": "Output:\n1", "name": "output"},
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "Go on."},
    ]
    return with_images(history, list(range(len(history))), {3: ([str(figure)], 0)})


def test_a_conversation_is_sent_in_ollamas_shape(server, tmp_path):
    server.add("Done.")
    _, reply = collect(model(server.api_base, max_tokens=500), conversation(tmp_path), TOOLS)
    assert reply.text == "Done."  # the test server refuses what Ollama's types refuse
    png = base64.b64encode(make_png()).decode()
    assert server.requests[0].path == "/api/chat"
    assert server.bodies[0] == {
        "model": "llama3.1:8b", "stream": True, "tools": TOOLS, "options": {"num_predict": 500},
        "messages": [
            {"role": "system", "content": "You are interp."},
            {"role": "user", "content": "Plot something."},
            {"role": "assistant", "content": "Plotting.", "tool_calls": [
                {"function": {"name": "execute", "arguments": ARGS}},
                {"function": {"name": "execute", "arguments": {}}}]},
            {"role": "tool", "content": "42", "tool_name": "execute"},
            {"role": "tool", "content": "Invalid arguments.", "tool_name": "execute"},
            {"role": "user", "content": f"The figures saved by the blocks above:\nFigure "
                                        f"{tmp_path / 'plot.png'}:", "images": [png]},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "execute", "arguments": {}}}]},
            {"role": "tool", "content": "Not run or not finished: the turn was interrupted.",
             "tool_name": "execute"},
            {"role": "assistant", "content": "```python\nprint(1)\n```"},
            {"role": "user", "content": "Output:\n1"},
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Go on."}]}


@pytest.mark.parametrize("message", [
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "execute", "arguments": "{}"}}]},
    {"role": "user", "content": "look", "images": ["data:image/png;base64,iVBORw0KGgo="]}],
    ids=["content-list", "string-arguments", "data-url-image"])
def test_openai_shapes_are_refused_as_ollama_refuses_them(server, message):
    """The test server checks the body as Ollama's Go types do (so the test above means it)."""
    import httpx

    answer = httpx.post(server.api_base + "/api/chat", timeout=30, json={
        "model": "llama3.1", "messages": [message], "stream": True})
    assert answer.status_code == 400 and "error" in answer.json()


@pytest.mark.fast
def test_parameters_become_ollamas_options_or_its_own_fields():
    params = {"temperature": 0.2, "top_p": 0.9, "top_k": 40, "stop": "END", "seed": 7,
              "num_ctx": 16384, "keep_alive": "10m", "format": "json", "think": False,
              "tool_choice": "auto", "user": "someone", "max_tokens": None}
    body = ollama_wire.body("qwen3:4b", MESSAGES, None, 800, params)
    assert body == {"model": "qwen3:4b", "messages": MESSAGES, "stream": True,
                    "keep_alive": "10m", "format": "json", "think": False,
                    "options": {"num_predict": 800, "temperature": 0.2, "top_p": 0.9,
                                "top_k": 40, "stop": ["END"], "seed": 7, "num_ctx": 16384}}
    assert ollama_wire.body("m", MESSAGES, None, 800, {"max_tokens": 5})["options"] == {
        "num_predict": 5}
    assert "options" not in ollama_wire.body("m", MESSAGES, None, None, {})
    schema = {"type": "object"}
    assert ollama_wire.body("m", MESSAGES, None, None, {"response_format": {
        "type": "json_schema", "json_schema": {"schema": schema}}})["format"] == schema
    assert ollama_wire.body("m", MESSAGES, None, None,
                            {"reasoning_effort": "high"})["think"] is True


# -- where requests go, and the key -----------------------------------------------------------

@pytest.mark.parametrize("suffix", ["", "/", "/api", "/api/", "/api/chat"])
def test_the_server_is_found_however_the_base_is_written(server, suffix):
    server.add("Hi.")
    _, reply = collect(model(server.api_base + suffix))
    assert reply.text == "Hi." and server.requests[0].path == "/api/chat"


@pytest.mark.parametrize("name", ["ollama/qwen2.5-coder:1.5b", "ollama_chat/qwen2.5-coder:1.5b"])
def test_both_names_go_to_api_chat_with_the_tag(server, name):
    server.add("Hi.")
    chosen = model_for(name, api_base=server.api_base)
    assert chosen.direct
    collect(chosen)
    assert server.requests[0].path == "/api/chat"
    assert server.bodies[0]["model"] == "qwen2.5-coder:1.5b"


@pytest.mark.parametrize("variable, value", [
    ("OLLAMA_API_BASE", "{base}"), ("OLLAMA_HOST", "127.0.0.1:{port}"),
    ("OLLAMA_HOST", "http://127.0.0.1:{port}/")])
def test_the_server_is_found_from_the_environment(server, monkeypatch, variable, value):
    monkeypatch.setenv(variable, value.format(base=server.api_base, port=server.port))
    server.add("Hi.")
    _, reply = collect(model(None))
    assert reply.text == "Hi." and server.requests[0].path == "/api/chat"


@pytest.mark.fast
@pytest.mark.parametrize("value, url", [
    ("", None), ("0.0.0.0", "http://0.0.0.0:11434"), ("example.com:8080", "http://example.com:8080"),
    (":9999", "http://127.0.0.1:9999"), ("https://ollama.example.com", "https://ollama.example.com:443"),
    ("http://box", "http://box:80"), ("http://box:1234/proxy", "http://box:1234/proxy"),
    ("[::1]:5000", "http://[::1]:5000"), ("::1", "http://[::1]:11434")])
def test_ollama_host_is_read_as_ollama_reads_it(value, url):
    assert ollama_wire.host_url(value) == url


@pytest.mark.fast
def test_the_default_server_is_the_local_ollama():
    sent = ollama_wire.request("llama3.1", None, None, MESSAGES, None, None, {})
    assert sent.url == "http://localhost:11434/api/chat" and "Authorization" not in sent.headers


def test_the_key_is_optional_and_sent_as_a_bearer_token(server, monkeypatch):
    server.script(["one", "two", "three"])
    collect(model(server.api_base))
    collect(model(server.api_base, api_key="given-key"))
    monkeypatch.setenv("OLLAMA_API_KEY", "env-key")
    collect(model(server.api_base))
    sent = [r.headers.get("Authorization") for r in server.requests]
    assert sent == [None, "Bearer given-key", "Bearer env-key"]


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_names_ollama_api_key(server, status):
    server.add(Turn(status=status))
    error = failure(model(server.api_base, api_key="wrong-key"))
    assert error.kind == "auth" and "OLLAMA_API_KEY" in str(error)
    assert "wrong-key" not in str(error) and len(server.requests) == 1


def test_a_model_not_pulled_is_not_found(server):
    server.add(Turn(status=404))
    error = failure(model(server.api_base))
    assert error.kind == "not_found" and "'ollama/llama3.1:8b'" in str(error)
    assert "not found, try pulling it first" in error.detail


# -- the reply --------------------------------------------------------------------------------

def test_text_tool_calls_and_usage(server):
    calls = [{"name": "execute", "arguments": ARGS},
             {"name": "execute", "arguments": {"language": "shell", "code": "ls"}}]
    server.add(Turn(text="Running both.", tool_calls=calls, usage=(120, 30)))
    deltas, reply = collect(model(server.api_base), tools=TOOLS)
    assert "".join(deltas) == "Running both." == reply.text
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        (c["name"], c["arguments"]) for c in calls]
    ids = [c.id for c in reply.tool_calls]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)
    assert reply.finish_reason == "tool_calls"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (120, 30)


@pytest.mark.parametrize("done_reason, finish", [
    ("stop", "stop"), ("length", "length"), ("load", "stop"), ("unload", "stop")])
def test_every_finish_reason(server, done_reason, finish):
    server.add(Turn(text="Some words.", finish=done_reason))
    _, reply = collect(model(server.api_base))
    assert reply.finish_reason == finish and reply.text == "Some words."


def test_an_error_line_mid_stream_is_a_server_error_that_says_what_ollama_said(server):
    server.add(Turn(text="cut short here", fail_after=1, fail_times=9, chunk_size=4))
    error = failure(model(server.api_base, max_retries=1))
    assert error.kind == "server" and error.attempts == 2 and error.partial == "cut "
    assert "unexpected EOF" in str(error) and str(error).endswith("(reply cut off)")


def _ndjson(*lines) -> tuple[int, str, bytes]:
    return 200, "application/x-ndjson", b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _line(content="", done=False, **message):
    return {"model": "llama3.1", "message": {"role": "assistant", "content": content, **message},
            "done": done}


DONE = dict(_line(done=True), done_reason="stop", prompt_eval_count=9, eval_count=4)


def test_thinking_is_progress_but_not_part_of_the_text():
    answer = _ndjson(_line(thinking="Let me see"), _line(thinking=" ..."), _line("Four."), DONE)
    with CannedServer([answer]) as raw:
        deltas, reply = collect(model(raw.api_base))
    assert deltas == ["Four."] and reply.text == "Four." and reply.finish_reason == "stop"
    assert any(map(is_progress, ollama_wire._Reply().line(_line(thinking="x"))))  # no idle deadline


def test_call_ids_from_the_server_are_kept():
    call = {"id": "call_xyz", "function": {"name": "execute", "arguments": ARGS}}
    with CannedServer([_ndjson(_line(tool_calls=[call]), DONE)]) as raw:
        _, reply = collect(model(raw.api_base), tools=TOOLS)
    assert reply.tool_calls[0].id == "call_xyz" and reply.finish_reason == "tool_calls"


def test_a_reply_sent_as_one_json_document():
    whole = dict(DONE, message={"role": "assistant", "content": "All at once.", "tool_calls": [
        {"function": {"name": "execute", "arguments": ARGS}}]})
    answer = (200, "application/json; charset=utf-8", json.dumps(whole, indent=2).encode())
    with CannedServer([answer]) as raw:
        _, reply = collect(model(raw.api_base), tools=TOOLS)
    assert reply.text == "All at once." and json.loads(reply.tool_calls[0].arguments) == ARGS
    assert reply.finish_reason == "tool_calls" and reply.usage.prompt_tokens == 9


def test_a_stream_labelled_as_one_json_document():
    _, _, lines = _ndjson(_line("Still "), _line("streamed."), DONE)
    with CannedServer([(200, "application/json", lines)]) as raw:
        _, reply = collect(model(raw.api_base))
    assert reply.text == "Still streamed." and reply.usage.completion_tokens == 4


def test_a_stream_that_ends_before_done_is_tried_again():
    with CannedServer([_ndjson(_line("Half")), _ndjson(_line("Whole."), DONE)]) as raw:
        items, reply = collect(model(raw.api_base))
    retries = [i for i in items if isinstance(i, Retrying)]
    assert reply.text == "Whole." and len(retries) == 1 and retries[0].restart
    assert len(raw.bodies) == 2


# -- a real run -------------------------------------------------------------------------------

SITECUSTOMIZE = """
import atexit, os, sys

def _modules():  # what this process imported, in a file named by its pid
    folder = os.environ.get("WIRE_TEST_MODULES_DIR")
    if folder:
        with open(os.path.join(folder, str(os.getpid())), "w") as out:
            out.write("\\n".join(sorted(sys.modules)))

atexit.register(_modules)
"""


def test_interp_runs_a_block_against_ollama_without_importing_litellm(server, interp_env,
                                                                      tmp_path):
    """The real `interp -y -e` on the Ollama server: a block runs, the task finishes, and the
    process never imported litellm (each process lists its modules at exit)."""
    server.script([Turn(text="Computing.", tool_calls=[{"name": "execute", "arguments": ARGS}]),
                   "The answer is 42."])
    hook, seen = tmp_path / "hook", tmp_path / "modules"
    hook.mkdir(), seen.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE)
    root = str(Path(ollama_wire.__file__).resolve().parents[3])  # this checkout's interp
    env = dict(interp_env["env"], PYTHONPATH=f"{root}:{hook}", WIRE_TEST_MODULES_DIR=str(seen))
    process = subprocess.Popen(
        [sys.executable, "-m", "interp", "-y", "-e", "What is 6 * 7?", "--model",
         "ollama/llama3.1", "--api-base", server.api_base], stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=interp_env["cwd"])
    try:
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 0, err[-3000:]
    assert "The answer is 42." in out and "42" in err
    modules = (seen / str(process.pid)).read_text().split()
    assert "interp.models.wire.ollama" in modules
    assert not [name for name in modules if name.split(".")[0] == "litellm"]
    result = server.bodies[1]["messages"][-1]
    assert result["role"] == "tool" and result["tool_name"] == "execute"
    assert "42" in result["content"]


# -- what the server says the model can do ---------------------------------------------------

@pytest.mark.parametrize("listed,tools,vision", [
    (("completion", "tools"), True, False),
    (("completion", "vision"), False, True),
    (None, None, False),  # an Ollama before 0.6 lists no capabilities
])
def test_a_model_the_map_lacks_is_asked_about_on_the_server(listed, tools, vision):
    with OllamaServer() as server:
        server.capabilities = listed
        model = model_for("ollama/qwen3:8b", api_base=server.api_base)
        assert model.tool_support() is tools and model.supports_vision() is vision


def test_the_tools_notice_says_the_server_said_so():
    from interp.core.replies.tool_choice import choose_tools

    with OllamaServer() as server:
        server.capabilities = ("completion",)
        choice = choose_tools("auto", model_for("ollama/qwen3:8b", api_base=server.api_base))
    assert not choice.send
    assert choice.notice == ("tools: off for ollama/qwen3:8b (no tool support, says the Ollama "
                             "server; --tools on)")


def test_no_server_means_no_word_on_capabilities():
    model = model_for("ollama/qwen3:8b", api_base="http://127.0.0.1:9")
    assert model.tool_support() is None and model.supports_vision() is False
