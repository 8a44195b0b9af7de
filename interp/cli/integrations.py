"""What config.toml plugs into a session besides the model and the runners: hooks
(`[[hooks.EVENT]]`, interp.hooks) and MCP servers (`[mcp_servers.NAME]`, interp.mcp.client).
Each is imported only when configured; a bad table is one line and exit status 2."""

from __future__ import annotations

import os
from dataclasses import replace

from interp.approval.policy import registry_resolver
from interp.config.settings import Settings, default_config_path
from interp.errors import UsageError
from interp.secrets import runner_env_remove_for


def build_hooks(settings: Settings, registry, state, cwd: str | None = None,
                remove: frozenset[str] | set[str] = frozenset()):
    """The session's hooks (interp.hooks.session.SessionHooks), or None when there are none.
    `state` (an ApprovalState) gives the approval mode they are told; their environment is
    the runners' (without the model's keys) less `remove` too."""
    if not settings.hooks:
        return None
    from interp.hooks.config import HooksError, parse_hooks
    from interp.hooks.payloads import Where
    from interp.hooks.session import SessionHooks

    resolve = registry_resolver(registry)
    try:
        hookset = parse_hooks(settings.hooks, resolve, str(default_config_path()))
    except HooksError as exc:
        raise UsageError(f"interp: {exc}") from None
    if not hookset:
        return None
    cwd = cwd or os.getcwd()
    mode = state.mode if state is not None else "ask"
    return SessionHooks(hookset, resolve, cwd, runner_env_remove_for(settings) | set(remove),
                        where=lambda: Where(None, None, cwd, mode))


def hook_session(hooks, session, state, source: str) -> list:
    """Tie the hooks to `session` (its id and file; after each block; on its answer) and run
    the SessionStart hooks for `source`: their context is told to the model with the next
    task; returns their notices (events) for the person."""
    from interp.hooks.payloads import Where
    from interp.hooks.session import transcript

    cwd = hooks.cwd
    hooks.where = lambda: Where(session.id, transcript(session.log), cwd, state.mode)
    session.after_block = hooks.after_block
    return session_start(hooks, session, source)


def session_start(hooks, session, source: str) -> list:
    """Run the SessionStart hooks for `source`; their context goes to the model with the next
    task; returns their notices."""
    context, notices = hooks.session_start(source)
    for text in context:
        session.tell(text)
    return notices


def with_stop_hooks(config, hooks):
    """The session's config with the Stop hooks as a reply check on the answer."""
    check = hooks.stop_check() if hooks is not None else None
    return replace(config, extra_checks=(*config.extra_checks, check)) if check else config


WAIT_QUIETLY = 1.0  # seconds of waiting for MCP servers before saying so
NO_SDK = ("MCP servers are configured in config.toml, but the MCP Python SDK is not installed "
          "(pip install 'interp[mcp]'); going on without them")


def start_servers(settings: Settings, data: os.PathLike, cwd: str | None = None):
    """Start the `[mcp_servers]` of config.toml in the background (interp.mcp.client.pool),
    or None when there are none; a bad table is a UsageError. Returns (pool, warnings)."""
    if not settings.mcp_servers:
        return None, []
    from interp.mcp.client.config import McpConfigError, parse_servers

    try:
        specs = parse_servers(settings.mcp_servers, str(default_config_path()))
    except McpConfigError as exc:
        raise UsageError(f"interp: {exc}") from None
    if not specs:
        return None, []
    try:
        import mcp  # noqa: F401  (the SDK: an optional dependency)
    except ImportError:
        return None, [NO_SDK]
    from pathlib import Path

    from interp.mcp.client.pool import ServerPool

    pool = ServerPool(specs, Path(data) / "mcp-logs", cwd or os.getcwd())
    pool.start()
    return pool, []


def serve_tools(pool, registry, say=None) -> tuple[list[str], list[str]]:
    """Wait for the servers (each within its start-up time; `say` is told which, when that
    takes more than a second) and give the registry the `mcp` language, whose runner calls
    their tools; returns (notices, warnings): a line a server."""
    from interp.mcp.client.runner import runner_class

    if not pool.wait(WAIT_QUIETLY) and say is not None:
        longest = max(c.spec.startup_timeout for c in pool.connections)
        say(f"starting MCP servers {', '.join(pool.starting())} (at most {longest:g} s)…")
    pool.wait()
    registry.register(runner_class(pool))
    notices, warnings = [], []
    for connection in pool.connections:
        name = connection.spec.name
        if connection.state == "ready":
            tools = ", ".join(tool.name for tool in connection.tools[:8])
            more = f", and {len(connection.tools) - 8} more" if len(connection.tools) > 8 else ""
            notices.append(f"MCP server {name}: {len(connection.tools)} tool"
                           f"{'s' * (len(connection.tools) != 1)}"
                           + (f" ({tools}{more})" if tools else "") + "; /mcp lists them.")
        else:
            warnings.append(f"MCP server {name} {connection.problem or connection.state}; going "
                            "on without it")
    return notices, warnings
