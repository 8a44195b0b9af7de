"""The HTTP listener and its token: a connection never waits on Nagle's algorithm, a chosen
token comes from the environment only."""

from __future__ import annotations

import asyncio
import socket

import pytest

from interp.mcp.http import TOKEN_ENV, listen, server_token


def test_connections_to_the_listener_send_at_once():
    """asyncio turns Nagle off only on sockets whose protocol is TCP; with it on, each
    response waited for the client's delayed ACK (about 40 ms a call)."""
    async def main() -> int:
        sock = listen("127.0.0.1", 0)
        seen: asyncio.Future = asyncio.get_running_loop().create_future()

        def accepted(reader, writer):
            conn = writer.get_extra_info("socket")
            seen.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(accepted, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection(*sock.getsockname())
            nodelay = await asyncio.wait_for(seen, 30)
            writer.close()
        return nodelay

    assert asyncio.run(main()) != 0


def test_a_port_in_use_raises():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            listen("127.0.0.1", taken.getsockname()[1])


@pytest.mark.fast
def test_the_token_is_chosen_in_the_environment_or_made_fresh():
    assert server_token({TOKEN_ENV: " mine-123 "}) == ("mine-123", False)
    made, new = server_token({})
    again, _ = server_token({})
    assert new and len(made) >= 40 and made != again
