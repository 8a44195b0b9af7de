"""The real `interp` against scripted servers: tool modes, deadlines, caps and the new exit
statuses, as a user meets them. Runs are scenarios played concurrently; timeouts are hang
guards only."""

from __future__ import annotations

import json
import time

import pytest

from fake_openai import Reply
from gemini_server import GeminiServer
from helpers import Scenarios, model_args, run_interp
from wire_server import Turn

scenario = Scenarios()


def flat(text: str) -> str:
    """Text with the terminal's line wrapping undone."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def outcome(request, tmp_path_factory):
    return scenario.play(request, tmp_path_factory)


@scenario
def blocked(server, env):
    server.script([Reply(text="", finish_reason="content_filter")])
    return {"proc": run_interp(["-y", "-e", "something", *model_args(server)], env)}


def test_blocked(outcome):
    proc = outcome("blocked")["proc"]
    assert proc.returncode == 5, proc.stderr
    assert "content_filter" in proc.stderr and proc.stdout == ""


@scenario
def no_reply(server, env):
    server.script([Reply(text="late", delay=60)])
    proc = run_interp(["-y", "-e", "hi", "--request-timeout", "2", *model_args(server)], env)
    guard = time.monotonic() + 30  # a hang guard (scenarios run in threads: no signals)
    while not server.abandoned and time.monotonic() < guard:
        time.sleep(0.02)
    return {"proc": proc, "api_base": server.api_base}


def test_no_reply(outcome):
    got = outcome("no_reply")
    proc = got["proc"]
    assert proc.returncode == 1
    line = f"No reply from openai/fake-model at {got['api_base']} within 2 s; gave up " \
           f"(--request-timeout)"
    assert line in flat(proc.stderr) and "Traceback" not in proc.stderr
    assert got["server"].abandoned == 1  # the connection was closed, not left open (guarded)


@scenario
def tools_on_from_env(server, env):
    server.script([Reply(tool_calls=[{"name": "execute", "arguments": {
        "language": "python", "code": "print(6 * 7)"}}]), "42"])
    environment = dict(env, env=dict(env["env"], INTERP_TOOLS="on", INTERP_MAX_TOKENS="0"))
    return {"proc": run_interp(["-y", "-e", "6*7", *model_args(server)], environment)}


def test_tools_on_from_env(outcome):
    got = outcome("tools_on_from_env")
    assert got["proc"].returncode == 0, got["proc"].stderr
    first = got["requests"][0]
    assert [t["function"]["name"] for t in first["tools"]] == ["execute"]
    assert "max_tokens" not in first and "tools: off" not in got["proc"].stderr
    assert "42" in got["requests"][1]["messages"][-1]["content"]


@scenario
def auto_says_tools_off(server, env):
    server.script(["fine"])
    return {"proc": run_interp(["-y", "-e", "hi", "--max-tokens", "100", *model_args(server)], env)}


def test_auto_says_tools_off(outcome):
    got = outcome("auto_says_tools_off")
    assert got["proc"].returncode == 0
    said = [line for line in got["proc"].stderr.splitlines() if line.startswith("tools:")]
    assert said == ["tools: off for openai/fake-model (tool support unknown to litellm; --tools "
                    "on)"]  # one short line, not two
    assert got["requests"][0]["max_tokens"] == 100 and "tools" not in got["requests"][0]


@scenario
def no_usage(server, env):
    """A hosted provider sent without stream_options (Mistral): this server then reports no
    usage, as llama.cpp does."""
    server.script([Reply(tool_calls=[{"name": "execute", "arguments": {
        "language": "python", "code": "print(6 * 7)"}}]), "42"])
    environment = dict(env, env=dict(env["env"], MISTRAL_API_KEY="sk-test-123456"))
    return {"proc": run_interp(["-y", "-e", "6*7", "--tools", "on", "--model", "mistral/m",
                                "--api-base", server.api_base], environment)}


def test_no_usage(outcome):
    got = outcome("no_usage")
    proc = got["proc"]
    assert proc.returncode == 0, proc.stderr
    assert "stream_options" not in got["requests"][0]
    assert "Tokens: not reported by the model." in proc.stderr
    assert "Session:" not in proc.stderr  # not "0 tokens sent, 0 received, cost $0.00"


@scenario
def loop(server, env):
    server.default = "```python\nprint('again')\n```"
    return {"proc": run_interp(["-y", "-e", "loop", "--json", *model_args(server)], env)}


def test_loop(outcome):
    proc = outcome("loop")["proc"]
    assert proc.returncode == 6
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[-2] == {"type": "task.finished", "exit_code": 6, "reason": "loop"}


@scenario
def gemini_bad_key(server, env):
    with GeminiServer([Turn(status=400, error="API key not valid. Please pass a valid API key.",
                            error_type="API_KEY_INVALID")]) as gemini:
        return {"proc": run_interp(["-y", "-e", "hi", "--model", "gemini/gemini-2.5-flash",
                                    "--api-base", gemini.api_base, "--api-key", "AIza-bad"], env)}


def test_gemini_bad_key(outcome):
    proc = outcome("gemini_bad_key")["proc"]
    assert proc.returncode == 1
    assert "check GEMINI_API_KEY or --api-key" in flat(proc.stderr) and "VERTEX" not in proc.stderr


@pytest.mark.parametrize("args,message", [
    (["--tools", "sometimes"], "--tools: must be one of auto, on, off, got 'sometimes'"),
    (["--request-timeout", "0"], "--request-timeout: must be a positive number of seconds"),
    (["--max-tokens", "-1"], "--max-tokens: must be 0 (no cap) or a positive number"),
])
def test_bad_settings_are_usage_errors(interp_env, fake_server, args, message):
    proc = run_interp(["-y", "-e", "hi", *args, *model_args(fake_server)], interp_env)
    assert proc.returncode == 2 and message in proc.stderr and fake_server.requests == []
