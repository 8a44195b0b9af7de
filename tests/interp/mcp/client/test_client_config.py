"""`[mcp_servers.NAME]` tables read with Codex's keys; one line naming what is wrong."""

from __future__ import annotations

import pytest

from interp.mcp.client.config import (STARTUP_TIMEOUT, TOOL_TIMEOUT, McpConfigError,
                                      parse_servers)

pytestmark = pytest.mark.fast  # parses tables only


def test_a_stdio_server_and_an_http_server_as_codex_writes_them():
    files, tracker = parse_servers({
        "files": {"command": "npx", "args": ["-y", "server-filesystem", "."],
                  "env": {"LOG": "warn"}, "enabled_tools": ["read_file"]},
        "tracker": {"url": "https://mcp.example.com/mcp", "bearer_token_env_var": "TOKEN",
                    "http_headers": {"X-Team": "data"}, "tool_timeout_sec": 5,
                    "disabled_tools": ["delete"]}})
    assert (files.command, files.args, dict(files.env)) == ("npx", ("-y", "server-filesystem",
                                                                   "."), {"LOG": "warn"})
    assert (files.startup_timeout, files.tool_timeout) == (STARTUP_TIMEOUT, TOOL_TIMEOUT)
    assert files.offers("read_file") and not files.offers("write_file")
    assert (tracker.url, tracker.bearer_token_env_var, tracker.tool_timeout) == (
        "https://mcp.example.com/mcp", "TOKEN", 5.0)
    assert tracker.offers("create") and not tracker.offers("delete")
    assert files.where == "npx -y server-filesystem ." and tracker.where.startswith("https://")


def test_a_server_turned_off_is_left_out():
    assert parse_servers({"a": {"command": "x", "enabled": False}}) == ()
    assert parse_servers(None) == ()


@pytest.mark.parametrize("table, says", [
    ({"a": {}}, "give either command"),
    ({"a": {"command": "x", "url": "http://h"}}, "give either command"),
    ({"a.b": {"command": "x"}}, "letters, digits, _ and - only"),
    ({"a": {"command": "x", "args": "-v"}}, "args must be a list of strings"),
    ({"a": {"command": "x", "env": {"K": 1}}}, "env must be a table of strings"),
    ({"a": {"url": "ftp://h"}}, "must start with http"),
    ({"a": {"command": "x", "startup_timeout_sec": -1}}, "positive number of seconds"),
    ({"a": {"command": "x", "tool_timeout": 5}}, "unknown key 'tool_timeout'"),
    ({"a": "npx"}, "expected a table"),
])
def test_what_is_wrong_is_one_line_naming_the_server(table, says):
    with pytest.raises(McpConfigError) as caught:
        parse_servers(table, "config.toml")
    assert says in str(caught.value) and str(caught.value).startswith("config.toml: [mcp_servers")
