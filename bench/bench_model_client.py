"""Benchmarks the client side of one model call as the conversation grows, per provider path.

    python bench/bench_model_client.py [--runs N] [--quick] [--json PATH]

For each provider protocol (OpenAI-compatible, Anthropic, Gemini, Ollama), through interp's
own client (the default) and forced through litellm with INTERP_TRANSPORT=litellm (what interp
did before), and for four hosted OpenAI-compatible providers (groq, mistral, deepseek, Azure
OpenAI: the same two ways), and each history length (2, 50, 200 turns of tool call + output, and a
~230 KB request), one figure is `model_for(name).stream(messages, tools)` from the call to the
final Reply: the request built and sent, the server's instant streamed reply (text and a tool
call) read and parsed. The floor, measured in the same run and interleaved: a raw `httpx` POST
of the very body the server recorded for that call, to the same server and path, with the
streamed reply read to its end. Both include the server's own time, so ratio = interp / floor
is the client's overhead; target: <= 2x at every length (flat, not growing with history).

Speed targets live here, never as timed test assertions. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench_runners import guarded, report, row  # noqa: E402

TARGET_RATIO = 2.0
KEY = "sk-bench-123456"
TOOLS = [{"type": "function", "function": {
    "name": "execute", "description": "Run code in a persistent runner",
    "parameters": {"type": "object", "properties": {"language": {"type": "string"},
                                                    "code": {"type": "string"}},
                   "required": ["language", "code"]}}}]
CALL = {"name": "execute", "arguments": {"language": "python", "code": "print(sum(range(10)))"}}


@dataclass(frozen=True)
class Path_:
    label: str
    model: str
    server: str  # openai | anthropic | gemini | ollama
    litellm: bool = False  # INTERP_TRANSPORT=litellm
    group: str = ""  # what --paths picks it by (the server kind unless given)


HOW = ("direct (default)", "INTERP_TRANSPORT=litellm")
PATHS = [Path_(f"{'openai-compatible' if server == 'openai' else server}, {how}", model, server,
               how == HOW[1], server)
         for server, model in (("openai", "openai/bench"),
                               ("anthropic", "anthropic/claude-sonnet-4-5"),
                               ("gemini", "gemini/gemini-2.5-flash"),
                               ("ollama", "ollama/llama3.1"))
         for how in HOW]
# Hosted OpenAI-compatible providers (interp.models.wire.hosts), against the same scripted OpenAI
# server, which sends usage unasked as Mistral's does.
PATHS += [Path_(f"{model.split('/')[0]}, {how}", model, "openai", how == HOW[1], "hosted")
          for model in ("groq/llama-3.3-70b-versatile", "mistral/mistral-large-latest",
                        "deepseek/deepseek-chat", "azure/my-deployment")
          for how in HOW]


def history(turns: int, output_chars: int = 600) -> list[dict]:
    """A system prompt, a task, then `turns` rounds of an execute call and its output."""
    messages = [{"role": "system", "content": "You are interp. " * 40},
                {"role": "user", "content": "Work through the list, one step at a time."}]
    for i in range(turns):
        code = f"step_{i} = [x * {i} for x in range(100)]\nprint(len(step_{i}), sum(step_{i}))"
        args = json.dumps({"language": "python", "code": code})
        messages.append({"role": "assistant", "content": f"Step {i}.", "tool_calls": [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": "execute", "arguments": args}}]})
        out = (f"[{i}] " + "0123456789 abcdefghij " * (output_chars // 22))[:output_chars]
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": out})
    messages.append({"role": "user", "content": "Go on."})
    return messages


def start_server(kind: str):
    if kind == "openai":
        from fake_openai import FakeOpenAI, Reply

        return FakeOpenAI(default=Reply(text="Running it.", tool_calls=[CALL]),
                          usage_always=True).start()
    from wire_server import Turn

    module = {"anthropic": "anthropic_server", "gemini": "gemini_server",
              "ollama": "ollama_server"}[kind]
    cls = {"anthropic": "AnthropicServer", "gemini": "GeminiServer", "ollama": "OllamaServer"}[kind]
    server_cls = getattr(__import__(module), cls)
    return server_cls(default=Turn(text="Running it.", tool_calls=[CALL])).start()


def last_request(server, kind: str) -> tuple[str, dict, bytes]:
    """(url, headers, body bytes) of the last request the server received."""
    if kind == "openai":
        body = server.requests[-1]
        return (server.api_base + "/chat/completions",
                {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"},
                json.dumps(body).encode())
    recorded = server.requests[-1]
    query = "&".join(f"{k}={v}" for k, v in recorded.query.items())
    url = server.api_base + recorded.path + (f"?{query}" if query else "")
    keep = {k: v for k, v in recorded.headers.items()
            if k.lower() in ("content-type", "x-api-key", "x-goog-api-key", "authorization",
                             "anthropic-version")}
    return url, keep, json.dumps(recorded.body).encode()


def make_model(path: Path_, server):
    from interp.models.reach import model_for

    saved = os.environ.pop("INTERP_TRANSPORT", None)
    if path.litellm:
        os.environ["INTERP_TRANSPORT"] = "litellm"
    try:
        base = server.api_base  # an Azure resource's endpoint has no path
        base = base.rsplit("/v1", 1)[0] if path.model.startswith("azure/") else base
        return model_for(path.model, api_base=base, api_key=KEY, request_timeout=60)
    finally:
        os.environ.pop("INTERP_TRANSPORT", None)
        if saved is not None:
            os.environ["INTERP_TRANSPORT"] = saved


def one_call(model, messages) -> float:
    from interp.models.base import Reply

    start = time.perf_counter()
    reply = None
    for item in model.stream(messages, TOOLS):
        if isinstance(item, Reply):
            reply = item
    took = time.perf_counter() - start
    if reply is None or not reply.tool_calls:
        raise RuntimeError(f"no tool call in the reply: {reply!r}")
    return took


def raw_call(client, url: str, headers: dict, body: bytes) -> float:
    start = time.perf_counter()
    with client.stream("POST", url, content=body, headers=headers) as response:
        for _ in response.iter_bytes():
            pass
        if response.status_code >= 400:
            raise RuntimeError(f"floor request failed: HTTP {response.status_code}")
    return time.perf_counter() - start


def bench_path(path: Path_, lengths: list[tuple[str, int, int]], runs: int) -> None:
    import httpx

    from interp.models.litellm.loader import load_litellm

    load_litellm()  # the import itself is start-up, measured by bench_startup.py
    server = start_server(path.server)
    try:
        model = make_model(path, server)
        own = model.direct
        fresh = httpx.Limits(max_keepalive_connections=0)  # a new connection per call, as interp
        with httpx.Client(timeout=60, limits=fresh) as client:
            for name, turns, chars in lengths:
                messages = history(turns, chars)
                one_call(model, messages)  # warm-up: connection, first-use imports
                url, headers, body = last_request(server, path.server)
                raw_call(client, url, headers, body)
                mine, floor = [], []
                for _ in range(runs):  # interleaved, so drift hits both alike
                    mine.append(one_call(model, messages))
                    floor.append(raw_call(client, url, headers, body))
                a, b = statistics.median(mine) * 1e3, statistics.median(floor) * 1e3
                row(path.label, f"{name}: one call (median of {runs})", a, b, "ms",
                    f"<= {TARGET_RATIO:g}x floor",
                    a <= TARGET_RATIO * b if own else None,  # litellm: for comparison
                    f"request {len(body) / 1024:.0f} KB; floor: raw httpx POST of that body")
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help="3 runs, fewer lengths")
    parser.add_argument("--paths", help="comma-separated: openai,anthropic,gemini,ollama,hosted")
    parser.add_argument("--json")
    args = parser.parse_args()
    lengths = [("2 turns", 2, 600), ("50 turns", 50, 600), ("200 turns", 200, 600),
               ("230 KB request", 164, 1000)]
    runs = args.runs
    if args.quick:
        lengths, runs = [lengths[0], lengths[2]], 3
    kinds = set(args.paths.split(",")) if args.paths else None
    for path in PATHS:
        if kinds is None or path.group in kinds:
            guarded(path.label, "one call", lambda p=path: bench_path(p, lengths, runs))
    return report(args.json)


if __name__ == "__main__":
    sys.exit(main())
