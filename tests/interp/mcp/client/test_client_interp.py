"""interp's own `interp mcp` as a server of interp's MCP client: over stdio (the client starts
it) and over Streamable HTTP with a bearer token read from a named variable. Timeouts are
hang guards."""

from __future__ import annotations

import pytest

from helpers import interp_cmd
from mcp_kit import http_server

from languages import Output, RunnerConfig

from interp.mcp.client.config import parse_servers
from interp.mcp.client.pool import ServerPool
from interp.mcp.client.runner import runner_class


def call(pool: ServerPool, code: str) -> tuple[str, object]:
    items = list(runner_class(pool)(RunnerConfig(timeout=120)).run(code))
    return "".join(i.text for i in items if isinstance(i, Output)), items[-1]


@pytest.fixture
def started(interp_env, monkeypatch):
    pools = []

    def start(table: dict) -> ServerPool:
        for name, value in interp_env["env"].items():
            monkeypatch.setenv(name, value)
        pool = ServerPool(parse_servers(table), interp_env["data"] / "logs",
                          str(interp_env["cwd"]))
        pool.start()
        pool.wait()
        pools.append(pool)
        return pool

    yield start
    for pool in pools:
        pool.close()


def test_interp_mcp_over_stdio_keeps_its_state_between_calls(started, interp_env):
    cmd = interp_cmd()
    pool = started({"interp": {"command": cmd[0], "args": [*cmd[1:], "mcp", "-y"],
                               "env": {k: v for k, v in interp_env["env"].items()
                                       if k.startswith("XDG_")},
                               "startup_timeout_sec": 120}})
    assert pool.connection("interp").state == "ready", pool.connection("interp").problem
    assert {t.name for t in pool.tools()} >= {"run_code", "list_languages"}
    out, result = call(pool, 'interp.run_code {"language": "python", "code": "x = 6 * 7"}')
    assert result.status == "ok", out
    out, result = call(pool, 'interp.run_code {"language": "python", "code": "print(x)"}')
    assert "42" in out and result.status == "ok"
    out, result = call(pool, 'interp.run_code {"language": "python", "code": "1/0"}')
    assert result.status == "error" and "ZeroDivisionError" in out


def test_interp_mcp_over_http_with_a_bearer_token_from_a_variable(started, interp_env,
                                                                   monkeypatch):
    with http_server(interp_env, "-y", token="tok-0123456789abcdef") as server:
        monkeypatch.setenv("INTERP_TEST_TOKEN", server.token)
        pool = started({"interp": {"url": server.url, "bearer_token_env_var": "INTERP_TEST_TOKEN",
                                   "startup_timeout_sec": 60}})
        assert pool.connection("interp").state == "ready", pool.connection("interp").problem
        out, result = call(pool, 'interp.run_code {"language": "shell", "code": "echo $((6*7))"}')
        assert "42" in out and result.status == "ok"
        monkeypatch.setenv("INTERP_TEST_TOKEN", "wrong-token-000000")
        refused = started({"other": {"url": server.url, "bearer_token_env_var": "INTERP_TEST_TOKEN",
                                     "startup_timeout_sec": 30}})
        assert refused.connection("other").state == "failed"
        assert "401" in refused.connection("other").problem or \
            "Unauthorized" in refused.connection("other").problem


def test_a_token_variable_that_is_not_set_is_one_line(started, monkeypatch):
    monkeypatch.delenv("INTERP_NO_SUCH_TOKEN", raising=False)
    pool = started({"remote": {"url": "http://127.0.0.1:9/mcp",
                               "bearer_token_env_var": "INTERP_NO_SUCH_TOKEN"}})
    assert pool.connection("remote").problem == ("could not start: INTERP_NO_SUCH_TOKEN is not "
                                                 "set (it holds the bearer token)")
