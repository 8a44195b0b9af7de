"""The `[mcp_servers.NAME]` tables of config.toml as typed records, with Codex's keys, so a
Codex user's tables work as they are:

    [mcp_servers.files]                 # stdio: interp starts the command
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
    env = { LOG_LEVEL = "warn" }        # added to a small safe environment (PATH, HOME, ...)

    [mcp_servers.tracker]               # Streamable HTTP
    url = "https://mcp.example.com/mcp"
    bearer_token_env_var = "TRACKER_TOKEN"   # the token is read from this variable
    http_headers = { "X-Team" = "data" }

A table interp cannot use stops it with one line naming the server and the key."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

STARTUP_TIMEOUT = 10.0  # seconds a server may take to start and list its tools (Codex's)
TOOL_TIMEOUT = 60.0  # seconds a tool call may take (Codex's); the block time-out bounds it too
_NAME = re.compile(r"[A-Za-z0-9_-]+")
_STRING_MAPS = ("env", "http_headers", "env_http_headers")
_STRING_LISTS = ("args", "enabled_tools", "disabled_tools")
KEYS = frozenset({"command", "args", "env", "cwd", "url", "http_headers", "env_http_headers",
                  "bearer_token_env_var", "startup_timeout_sec", "tool_timeout_sec", "enabled",
                  *_STRING_LISTS})


class McpConfigError(ValueError):
    """An `[mcp_servers]` table interp cannot use; the message names the server and the key."""


@dataclass(frozen=True)
class ServerSpec:
    """One server: how to reach it, its time bounds, and which of its tools to offer."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    cwd: str | None = None
    url: str | None = None
    http_headers: Mapping[str, str] = field(default_factory=dict, hash=False)
    env_http_headers: Mapping[str, str] = field(default_factory=dict, hash=False)  # header: variable
    bearer_token_env_var: str | None = None
    startup_timeout: float = STARTUP_TIMEOUT
    tool_timeout: float = TOOL_TIMEOUT
    enabled_tools: tuple[str, ...] | None = None  # None: all
    disabled_tools: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """The command line or URL, for /mcp and errors."""
        return self.url or " ".join([self.command or "", *self.args]).strip()

    def offers(self, tool: str) -> bool:
        """Whether a tool of this server is offered to the model."""
        listed = self.enabled_tools is None or tool in self.enabled_tools
        return listed and tool not in self.disabled_tools


def parse_servers(table: Any, source: str = "config.toml") -> tuple[ServerSpec, ...]:
    """The enabled servers of an `[mcp_servers]` table (None: none), in the order written."""
    if table is None:
        return ()
    if not isinstance(table, Mapping):
        raise McpConfigError(f"{source}: [mcp_servers] must hold [mcp_servers.NAME] tables")
    servers = []
    for name, entry in table.items():
        where = f"{source}: [mcp_servers.{name}]"
        if not _NAME.fullmatch(name):
            raise McpConfigError(f"{where}: a server's name is letters, digits, _ and - only")
        if not isinstance(entry, Mapping):
            raise McpConfigError(f"{where}: expected a table with a command or a url")
        if entry.get("enabled", True) is False:
            continue
        servers.append(_server(name, entry, where))
    return tuple(servers)


def _server(name: str, entry: Mapping[str, Any], where: str) -> ServerSpec:
    unknown = sorted(set(entry) - KEYS)
    if unknown:
        raise McpConfigError(f"{where}: unknown key {unknown[0]!r}")
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        raise McpConfigError(f"{where}: give either command (a stdio server) or url (Streamable "
                             "HTTP)")
    for key in ("command", "url", "cwd", "bearer_token_env_var"):
        if entry.get(key) is not None and not (isinstance(entry[key], str) and entry[key]):
            raise McpConfigError(f"{where}: {key} must be a non-empty string")
    if url is not None and not url.startswith(("http://", "https://")):
        raise McpConfigError(f"{where}: url must start with http:// or https://")
    if "enabled" in entry and not isinstance(entry["enabled"], bool):
        raise McpConfigError(f"{where}: enabled must be true or false")
    values = {key: _string_map(entry.get(key), f"{where}: {key}") for key in _STRING_MAPS}
    lists = {key: _string_list(entry.get(key), f"{where}: {key}") for key in _STRING_LISTS}
    return ServerSpec(name, command, lists["args"] or (), values["env"], entry.get("cwd"), url,
                      values["http_headers"], values["env_http_headers"],
                      entry.get("bearer_token_env_var"),
                      _seconds(entry, "startup_timeout_sec", STARTUP_TIMEOUT, where),
                      _seconds(entry, "tool_timeout_sec", TOOL_TIMEOUT, where),
                      lists["enabled_tools"], lists["disabled_tools"] or ())


def _string_map(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in value.items()):
        raise McpConfigError(f"{where} must be a table of strings")
    return dict(value)


def _string_list(value: Any, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise McpConfigError(f"{where} must be a list of strings")
    return tuple(value)


def _seconds(entry: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise McpConfigError(f"{where}: {key} must be a positive number of seconds")
    return float(value)
