#!/usr/bin/env python3
"""A scripted Ollama server (POST /api/chat, NDJSON streaming) for tests.

Streams one JSON object per line as Ollama does: `message.content` pieces, `message.tool_calls`
with object arguments, and a last `done: true` line with `done_reason` and the token counts
(`prompt_eval_count`, `eval_count`); and the faults of a `Turn`: `{"error": ...}` bodies and
lines, a request that is never answered, blank keep-alive lines, a `length` stop (num_predict).
Also answers /api/tags, /api/show and /api/version, and /api/generate the way old clients use it.
A chat request Ollama itself would refuse (its Go types decode the body strictly: content a
string, images base64 strings, tool-call arguments an object, options an object) gets Ollama's
400 answer, so a client that sends OpenAI's shapes fails here as it would there.
"""

from __future__ import annotations

import base64
import binascii
import json
import sys
import time

from wire_server import (Recorded, ScriptedServer, Turn, arguments_text, estimate_tokens, pieces,
                         serve_main)

_ERRORS = {
    400: "invalid request",
    401: "unauthorized",
    404: "model \"{model}\" not found, try pulling it first",
    429: "server busy, please try again.  maximum pending requests exceeded",
    500: "llama runner process has terminated: signal: killed",
    503: "server overloaded, please try again later",
}


class OllamaServer(ScriptedServer):
    """Ollama's /api/chat on 127.0.0.1; give litellm `api_base=server.api_base`."""

    name = "ollama"
    models = ("llama3.1:latest", "qwen2.5-coder:1.5b")
    capabilities: tuple[str, ...] | None = ("completion", "tools")  # None: an Ollama before 0.6

    def route(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/") in ("/api/chat", "/api/generate")

    def other(self, h, method: str, path: str, recorded: Recorded) -> bool:
        path = path.rstrip("/")
        if path == "/api/tags":
            h.json(200, {"models": [{"name": m, "model": m, "size": 1} for m in self.models]})
        elif path == "/api/version":
            h.json(200, {"version": "0.11.4"})
        elif path == "/api/show":
            h.json(200, {"modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
                         "details": {"family": "llama", "parameter_size": "8.0B"},
                         "model_info": {"llama.context_length": 131072},
                         **({"capabilities": list(self.capabilities)}
                            if self.capabilities is not None else {})})
        else:
            return False
        return True

    def answer(self, h, turn: Turn, fail: bool, recorded: Recorded) -> None:
        body = recorded.body if isinstance(recorded.body, dict) else {}
        model = body.get("model") or "llama3.1"
        problem = refusal(body) if recorded.path.rstrip("/") == "/api/chat" else None
        if problem:
            return h.json(400, {"error": problem})
        if fail and turn.hang and not h.hold(turn.hang):
            return
        if fail and (turn.status >= 400 or turn.hang):
            status = turn.status if turn.status >= 400 else 503
            message = turn.error or _ERRORS.get(status, f"HTTP {status}").format(model=model)
            return h.json(status, {"error": message})
        lines = list(_lines(turn, model, body, recorded.path.rstrip("/") == "/api/generate"))
        if body.get("stream") is False:
            return h.json(200, _merge(lines))
        h.begin_stream("application/x-ndjson")
        if fail and turn.keepalive:
            return h.keep_alive(turn.keepalive, b"\n")
        for i, line in enumerate(lines):
            if fail and turn.fail_after is not None and i == turn.fail_after:
                if turn.midstream == "drop":
                    return h.drop()
                if turn.midstream == "stall":
                    return h.keep_alive(0.2, b"\n")
                return h.send(_line({"error": turn.error or "an error was encountered while "
                                     "running the model: unexpected EOF"}))
            if i and not h.pause(turn.chunk_delay):
                return
            h.send(_line(line))


def refusal(body: dict) -> str | None:
    """Why Ollama would refuse this /api/chat body (400), or None."""
    def wrong(field: str, value: object, kind: str) -> str:
        got = {list: "array", dict: "object", str: "string", bool: "bool"}.get(type(value), "number")
        return f"json: cannot unmarshal {got} into Go struct field {field} of type {kind}"

    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model is required"
    for key, kind in (("messages", list), ("tools", list), ("options", dict)):
        if body.get(key) is not None and not isinstance(body[key], kind):
            return wrong(f"ChatRequest.{key}", body[key], kind.__name__)
    for message in body.get("messages") or ():
        if not isinstance(message, dict):
            return wrong("ChatRequest.messages", message, "api.Message")
        for key in ("role", "content", "thinking", "tool_name"):
            if message.get(key) is not None and not isinstance(message[key], str):
                return wrong(f"ChatRequest.messages.{key}", message[key], "string")
        for image in message.get("images") or ():
            try:
                base64.b64decode(image, validate=True)
            except (TypeError, binascii.Error):
                return "illegal base64 data in ChatRequest.messages.images"
        for call in message.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            arguments = function.get("arguments") if isinstance(function, dict) else None
            if arguments is not None and not isinstance(arguments, dict):
                return wrong("ChatRequest.messages.tool_calls.function.arguments", arguments,
                             "api.ToolCallFunctionArguments")
    predict = (body.get("options") or {}).get("num_predict")
    if predict is not None and not isinstance(predict, int):
        return wrong("Options.num_predict", predict, "int")
    return None


def _lines(turn: Turn, model: str, body: dict, generate: bool):
    """The NDJSON objects of one answer."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    produced = ""

    def line(content: str, calls: list | None = None, done: bool = False) -> dict:
        obj: dict = {"model": model, "created_at": stamp}
        if generate:
            obj["response"] = content
        else:
            obj["message"] = {"role": "assistant", "content": content}
            if calls:
                obj["message"]["tool_calls"] = calls
        obj["done"] = done
        return obj

    for piece in pieces(turn.text, turn.chunk_size):
        produced += piece
        yield line(piece)
    calls = []
    for call in turn.tool_calls:
        args = arguments_text(call)
        produced += args
        calls.append({"function": {"name": call["name"], "arguments": json.loads(args)}})
    if calls:
        yield line("", calls)
    prompt = turn.usage[0] if turn.usage else estimate_tokens(json.dumps(body.get("messages")
                                                                         or body.get("prompt")))
    output = turn.usage[1] if turn.usage else estimate_tokens(produced)
    last = line("", done=True)
    last.update({"done_reason": turn.finish or "stop", "total_duration": 1_000_000,
                 "load_duration": 1000, "prompt_eval_count": prompt,
                 "prompt_eval_duration": 1000, "eval_count": output, "eval_duration": 1000})
    yield last


def _merge(lines: list[dict]) -> dict:
    """The non-streamed answer: the last line with the whole content and every call."""
    merged = dict(lines[-1])
    if "message" in merged:
        calls = [c for line in lines for c in (line["message"].get("tool_calls") or ())]
        merged["message"] = {"role": "assistant",
                             "content": "".join(line["message"]["content"] for line in lines)}
        if calls:
            merged["message"]["tool_calls"] = calls
    else:
        merged["response"] = "".join(line["response"] for line in lines)
    return merged


def _line(obj: dict) -> bytes:
    return json.dumps(obj).encode() + b"\n"


if __name__ == "__main__":
    sys.exit(serve_main(OllamaServer))
