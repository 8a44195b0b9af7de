"""`interp mcp --http`: Streamable HTTP on 127.0.0.1, every request checked for the bearer token."""

from __future__ import annotations

import hmac
import json
import os
import secrets
import socket

TOKEN_ENV = "INTERP_MCP_TOKEN"  # the token, when the person chooses it (never config.toml)
PATH = "/mcp"


def server_token(environ=None) -> tuple[str, bool]:
    """The bearer token: $INTERP_MCP_TOKEN's, else a new random one; and whether it is new."""
    chosen = (os.environ if environ is None else environ).get(TOKEN_ENV, "").strip()
    return (chosen, False) if chosen else (secrets.token_urlsafe(32), True)


class BearerAuth:
    """ASGI middleware: an HTTP request without `Authorization: Bearer TOKEN` gets 401 and
    never reaches the MCP app (the lifespan passes through)."""

    def __init__(self, app, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = json.dumps({"error": "unauthorized", "error_description":
                               "interp mcp needs `Authorization: Bearer TOKEN` (the token it "
                               "printed at start, or $INTERP_MCP_TOKEN)"}).encode()
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="interp mcp"')]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope) -> bool:
        given = next((value for key, value in scope.get("headers", ())
                      if key.lower() == b"authorization"), b"")
        return hmac.compare_digest(given, self._expected)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to host:port (port 0: a free one); OSError when it cannot be.

    Its protocol is named (IPPROTO_TCP) so that asyncio turns Nagle's algorithm off on each
    connection: it checks the protocol, which a plain socket() leaves 0, and with Nagle on and
    the client's delayed ACKs every response waited about 40 ms."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(False)
    return sock


async def serve(app, sock: socket.socket, token: str) -> None:
    """Serve the MCP app on the bound socket with uvicorn until it is told to stop (SIGINT,
    SIGTERM): then the sessions end and their runners are stopped."""
    import uvicorn

    config = uvicorn.Config(BearerAuth(app, token), log_level="warning", lifespan="on",
                            access_log=False, timeout_graceful_shutdown=5)
    await uvicorn.Server(config).serve(sockets=[sock])
