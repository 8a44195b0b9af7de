"""The session's MCP servers for real: a server written with the official SDK
(tests/mcp_tool_server.py) over stdio, called through the `mcp` runner: results as output
(bounded), images saved and shown, errors, deadlines, interruption, and servers that fail to
start, answer garbage or die, each one line while the others go on. Timeouts are hang
guards, never assertions."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from languages import Output, Result, RunnerConfig

from interp.mcp.client.config import parse_servers
from interp.mcp.client.pool import ServerPool
from interp.mcp.client.runner import runner_class

SERVER = str(Path(__file__).resolve().parents[3] / "mcp_tool_server.py")


def demo(*args: str, **more) -> dict:
    return {"command": sys.executable, "args": [SERVER, *args], **more}


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    """One server pool for the module: `demo` (ready), `missing` (no such program),
    `garbage` (not JSON-RPC) and `late` (does not start in time)."""
    folder = tmp_path_factory.mktemp("servers")
    specs = parse_servers({"demo": demo(startup_timeout_sec=60),
                           "missing": {"command": str(folder / "no-such-server")},
                           "garbage": {"command": "sh", "args": ["-c", "echo not json; sleep 5"]},
                           "late": demo("--silent-start", "30", startup_timeout_sec=1)})
    servers = ServerPool(specs, folder / "logs", str(folder))
    servers.start()
    servers.wait()
    yield servers
    servers.close()


def run(pool, code: str, timeout: float = 120, folder: str | None = None,
        block: int = 1) -> tuple[str, Result]:
    runner = runner_class(pool)(RunnerConfig(timeout=timeout, cwd=folder, output_dir=folder,
                                             head_chars=300, tail_chars=200))
    items = list(runner.run(code, block=block))
    return "".join(i.text for i in items if isinstance(i, Output)), items[-1]


def test_the_servers_that_could_not_start_say_why_in_one_line(pool):
    states = {c.spec.name: (c.state, c.problem or "") for c in pool.connections}
    assert states["demo"] == ("ready", "")
    assert states["missing"][0] == "failed" and "No such file" in states["missing"][1]
    assert states["garbage"][0] == "failed"
    assert states["late"] == ("failed", "did not start and list its tools within 1 s "
                                        f"(its output: {pool.connection('late').log_path})")
    assert all("\n" not in problem for _, problem in states.values())
    assert [t.name for t in pool.tools()] == ["add", "echo", "picture", "slow", "fail", "crash",
                                              "lines", "write_file", "variable"]


def test_the_model_is_told_the_tools_and_each_is_a_function(pool):
    cls = runner_class(pool)
    assert "demo.add(a*, b*): Add two whole numbers." in cls.model_note
    assert '```mcp\ndemo.add {"a": 1, "b": 1}\n```' in cls.model_note
    functions = {f.name: f for f in cls.functions()}
    assert functions["mcp__demo__add"].parameters["required"] == ["a", "b"]
    assert functions["mcp__demo__add"].code({"a": 1, "b": 2}) == \
        'demo.add {\n  "a": 1,\n  "b": 2\n}'


def test_a_call_and_its_structured_content(pool):
    out, result = run(pool, 'demo.add {"a": 2, "b": 40}')
    assert (out, result.status) == ("42\n", "ok")  # the same number as structured content


def test_a_tool_error_is_the_blocks_error(pool):
    out, result = run(pool, "demo.fail")
    assert result.status == "error" and result.error == "the tool reported an error"
    assert "the disk is on fire" in out


def test_long_results_are_bounded_like_block_output(pool, tmp_path):
    out, result = run(pool, 'demo.lines {"count": 5000}', folder=str(tmp_path))
    assert result.output.truncated and result.output.total_chars > 30000
    assert len(result.output.head) <= 300 and result.output.tail.endswith("line 4999")
    assert "line 2500" in Path(result.output.spool_path).read_text()


def test_an_image_is_saved_and_shown(pool, tmp_path):
    out, result = run(pool, "demo.picture", folder=str(tmp_path), block=7)
    assert out == "a 4x3 picture\n"
    (shown,) = result.displays
    assert shown.kind == "image" and shown.path.endswith("mcp-demo-picture-block7-1.png")
    assert Path(shown.path).read_bytes()[:4] == b"\x89PNG" and shown.data["width"] == 4


@pytest.mark.parametrize("code, says", [
    ("demo.add {oops}", "not valid JSON"), ("nowhere.add", "there is no MCP server 'nowhere'"),
    ("missing.anything", "MCP server missing is not running"),
])
def test_calls_that_cannot_be_made_are_errors_not_exceptions(pool, code, says):
    _, result = run(pool, code)
    assert result.status == "error" and says in result.error


def test_every_call_has_a_deadline(pool):
    _, result = run(pool, 'demo.slow {"seconds": 30}', timeout=1)
    assert result.status == "timeout" and result.timed_out
    assert run(pool, 'demo.echo {"text": "still here"}')[0] == "still here\n"


def test_an_interrupt_cancels_the_call_and_the_server_goes_on(pool):
    runner = runner_class(pool)(RunnerConfig(timeout=120))
    threading.Timer(1.0, runner.interrupt).start()
    started = time.monotonic()
    result = list(runner.run('demo.slow {"seconds": 60}'))[-1]
    assert result.status == "interrupted" and time.monotonic() - started < 60
    assert run(pool, 'demo.echo {"text": "after"}')[0] == "after\n"


def test_the_models_key_is_not_in_a_servers_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-for-servers")
    servers = ServerPool(parse_servers({"demo": demo(startup_timeout_sec=60,
                                                     env={"GIVEN": "yes"})}), None, str(tmp_path))
    servers.start()
    try:
        servers.wait()
        assert run(servers, 'demo.variable {"name": "OPENAI_API_KEY"}')[0] == "(unset)\n"
        assert run(servers, 'demo.variable {"name": "GIVEN"}')[0] == "yes\n"
    finally:
        servers.close()


def test_a_server_that_dies_is_one_line_and_its_calls_fail_after(tmp_path):
    servers = ServerPool(parse_servers({"demo": demo(startup_timeout_sec=60)}), None,
                         str(tmp_path))
    servers.start()
    try:
        servers.wait()
        _, died = run(servers, "demo.crash")
        assert died.status == "error" and "MCP server demo has stopped" in died.error
        _, after = run(servers, 'demo.echo {"text": "x"}')
        assert "MCP server demo is not running" in after.error
        assert servers.connection("demo").state == "failed"
    finally:
        servers.close()
