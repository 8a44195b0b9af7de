"""`interp mcp`: settings and flags to a running MCP server (interp.mcp), every failure one line."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace

from interp.cli.process import unexpected
from interp.config.settings import ConfigError, Settings, data_dir, load_settings
from interp.core import exits
from interp.errors import UsageError

NO_SDK = ("interp mcp needs the MCP Python SDK, which is not installed: "
          "pip install 'interp[mcp]'")


@dataclass(frozen=True)
class McpArgs:
    """The flags of `interp mcp` that are not settings."""

    http: bool = False
    port: int = 8765
    session_timeout: float = 1800.0
    cwd: str | None = None


def _fail(message: str, code: int = exits.USAGE) -> int:
    sys.stderr.write(message.rstrip("\n") + "\n")
    return code


def run_mcp(args: McpArgs, cli: dict) -> int:
    """Serve until the client leaves (stdio) or the server is stopped (HTTP); the exit status."""
    try:
        import mcp.server.lowlevel  # noqa: F401  (the SDK; a second or so to import)
    except ImportError:
        return _fail(NO_SDK)
    if not 0 <= args.port <= 65535:
        return _fail(f"interp mcp: --port must be between 0 and 65535, not {args.port}")
    if not args.session_timeout > 0:
        return _fail("interp mcp: --session-timeout must be a positive number of seconds")
    if args.cwd is not None:
        try:
            os.chdir(os.path.expanduser(args.cwd))
        except OSError as exc:
            return _fail(f"interp mcp: --cwd {args.cwd}: {exc.strerror or exc}")
    try:
        settings = load_settings(cli)
        token = _token() if args.http else None
        config, notices = _server_config(settings, token)
    except ConfigError as exc:
        return _fail(f"interp mcp: {exc}")
    except UsageError as exc:
        return _fail(str(exc))
    for warning in settings.warnings:
        sys.stderr.write(f"interp mcp: warning: {warning}\n")
    from interp.mcp.server import InterpServer

    server = InterpServer(config)
    try:
        if token is not None:
            return _serve_http(server, args, token, notices)
        _say(["serving MCP on standard input and output", *notices])
        import anyio

        anyio.run(server.serve_stdio)
    except KeyboardInterrupt:
        return _fail("interp mcp: interrupted", exits.INTERRUPTED)
    except Exception as exc:  # the last line of defence
        return unexpected("interp mcp", exc, settings.debug)
    finally:
        server.close_now()  # whatever ended the loop (a signal included), no runner outlives it
    return exits.OK


def _token() -> tuple[str, bool]:
    from interp.mcp.http import server_token

    return server_token()


def _serve_http(server, args: McpArgs, chosen: tuple[str, bool], notices: list[str]) -> int:
    import anyio

    from interp.mcp.config import HttpConfig
    from interp.mcp.http import PATH, TOKEN_ENV, listen

    token, new = chosen
    http = HttpConfig(token=token, port=args.port, session_timeout=args.session_timeout)
    try:
        sock = listen(http.host, http.port)
    except OSError as exc:
        return _fail(f"interp mcp: cannot listen on {http.host}:{http.port}: "
                     f"{exc.strerror or exc} (choose another port with --port)")
    port = sock.getsockname()[1]
    told = (f"bearer token: {token} (set {TOKEN_ENV} to choose it)" if new
            else f"bearer token: the value of {TOKEN_ENV}")
    _say([f"serving MCP over Streamable HTTP at http://{http.host}:{port}{PATH}", told,
          *notices])
    anyio.run(server.serve_http, http, sock)
    return exits.OK


def _say(lines: list[str]) -> None:
    for line in lines:
        sys.stderr.write(f"interp mcp: {line}\n")
    sys.stderr.flush()


def _server_config(settings: Settings, token: tuple[str, bool] | None):
    """The server's config from the settings, and the notices to print at start."""
    from languages import default_registry

    from interp.cli.build import build_policy, choose_runners, runner_config, startup_notices
    from interp.cli.integrations import build_hooks
    from interp.mcp.config import ServerConfig
    from interp.mcp.http import TOKEN_ENV
    from interp.secrets import secrets_of
    from interp.storage.conversations import ConversationStore

    registry = default_registry()
    notices = choose_runners(settings, registry)
    policy = build_policy(settings, registry)  # a bad [approval] table fails here, once
    runner = runner_config(settings)  # blocks never see the server's token
    runner = replace(runner, env_remove=runner.env_remove | {TOKEN_ENV})
    hooks = None
    if build_hooks(settings, registry, None) is not None:  # a bad [hooks] table fails here
        def hooks(approval):
            """A client's hooks (its approval mode), without the server's token either."""
            return build_hooks(settings, registry, approval, remove={TOKEN_ENV})
    secrets = [*secrets_of(settings), token[0] if token else None]
    config = ServerConfig(registry=registry, runner=runner, timeout=settings.timeout,
                          policy=lambda: build_policy(settings, registry),
                          auto_approve=settings.auto_approve,
                          store=ConversationStore(data_dir() / "sessions"),
                          secrets=tuple(s for s in secrets if s), debug=settings.debug,
                          checkpoints=settings.checkpoints, hooks=hooks)
    notices += startup_notices(runner) + registry.errors
    mode = "run without asking" if settings.auto_approve or policy.mode == "auto" else \
        "need the user's approval, asked through the client (MCP elicitation)"
    notices.append(f"blocks no approval rule allows {mode}; each may run {settings.timeout:g} s")
    return config, notices
