"""The real `interp mcp --http` driven by the `mcp` SDK's own client over Streamable HTTP: the
bearer token, two clients that never share runners, sessions that end with their runners
(closed, or abandoned by a client that died), elicitation and progress over HTTP."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import httpx2
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from mcp_kit import converse, alive, http_client, http_server, kill_all, text, wait_gone



def test_every_request_needs_the_token(interp_env):
    with http_server(interp_env, "-y") as server:
        assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/mcp")
        assert "(set INTERP_MCP_TOKEN to choose it)" in server.said[1]
        bare = httpx2.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        wrong = httpx2.post(server.url, json={}, headers={"Authorization": "Bearer nope"})
        assert bare.status_code == wrong.status_code == 401
        assert "Authorization: Bearer TOKEN" in bare.json()["error_description"]
        cross_site = httpx2.post(server.url, json={}, headers={
            "Authorization": f"Bearer {server.token}", "Origin": "http://evil.example"})
        assert cross_site.status_code == 403  # a web page cannot drive it, token or not

        async def refused():
            with pytest.raises(Exception):
                async with http_client(server, token="not-the-token") as client:
                    await client.list_tools()

        converse(refused)


def test_a_chosen_token_is_used_and_not_printed(interp_env):
    with http_server(interp_env, "-y", token="a-token-of-my-own") as server:
        assert "the value of INTERP_MCP_TOKEN" in server.said[1]
        assert not any("a-token-of-my-own" in line for line in server.said)

        async def body():
            async with http_client(server) as client:
                return await client.call_tool("run_code", {
                    "language": "shell", "code": "echo $((3*3)) ${INTERP_MCP_TOKEN:-unset}"})

        assert "```\n9 unset\n```" in text(converse(body))  # blocks never see the token


def test_two_clients_never_share_state_and_a_closed_session_stops_its_runners(interp_env):
    with http_server(interp_env, "-y") as server:
        async def body():
            async with http_client(server) as first:
                async with http_client(server) as second:
                    one = await first.call_tool("run_code", {"language": "python",
                                                             "code": "import os\nx = 1\nos.getpid()"})
                    two = await second.call_tool("run_code", {"language": "python",
                                                              "code": "import os\nos.getpid()"})
                    missing = await second.call_tool("run_code", {"language": "python",
                                                                  "code": "x"})
                    pids = [int(text(r).split("```")[1]) for r in (one, two)]
                    assert pids[0] != pids[1] and all(alive(pid) for pid in pids)
                    kept = await first.call_tool("run_code", {"language": "python", "code": "x"})
                left = wait_gone([pids[1]])  # the second session was closed (DELETE)
                still = alive(pids[0])
            return pids, missing, kept, left, still

        pids, missing, kept, left, still = converse(body)
        try:
            assert "NameError: name 'x' is not defined" in text(missing)
            assert "```\n1\n```" in text(kept)
            assert left == [] and still
            assert wait_gone(pids) == []
        finally:
            kill_all(pids)


_DYING_CLIENT = textwrap.dedent("""
    import sys, anyio, httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        headers = {"Authorization": "Bearer " + sys.argv[2]}
        async with httpx2.AsyncClient(headers=headers) as http:
            async with Client(streamable_http_client(sys.argv[1], http_client=http)) as client:
                result = await client.call_tool("run_code", {"language": "shell",
                                                             "code": "sleep 600 & echo $$ $!"})
                print(result.content[0].text.split("```")[1].strip(), flush=True)

                async def progress(value, total, message):
                    print("running", flush=True)

                await client.call_tool("run_code", {"language": "shell",
                                                    "code": "echo go; sleep 600"},
                                       progress_callback=progress)

    anyio.run(main)
""")


def test_a_client_that_dies_mid_block_has_its_runners_stopped_when_its_session_expires(
        interp_env):
    pids: list[int] = []
    with http_server(interp_env, "-y", "--timeout", "3", "--session-timeout", "2") as server:
        client = subprocess.Popen([sys.executable, "-c", _DYING_CLIENT, server.url, server.token],
                                  stdout=subprocess.PIPE, text=True)
        try:
            pids.extend(int(pid) for pid in client.stdout.readline().split())
            assert client.stdout.readline().strip() == "running"
            client.send_signal(signal.SIGKILL)
            client.wait()
            assert len(pids) == 2 and all(alive(pid) for pid in pids)
            assert wait_gone(pids) == []  # the block times out, then the session expires
            assert server.process.poll() is None
        finally:
            client.kill()
            client.stdout.close()
            kill_all(pids)


def test_elicitation_and_progress_over_http(interp_env):
    asked: list[str] = []
    seen: list[str] = []

    async def elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"answer": "run"})

    async def progress(value, total, message):
        seen.append(message or "")

    with http_server(interp_env) as server:
        async def body():
            async with http_client(server, elicitation_callback=elicit) as client:
                return await client.call_tool(
                    "run_code", {"language": "python",
                                 "code": "import time\nfor i in range(3):\n"
                                         "    print('line', i, flush=True)\n    time.sleep(0.5)"},
                    progress_callback=progress)

        result = converse(body)
    assert "line 2" in text(result) and not result.is_error
    assert len(asked) == 1 and "```python\nimport time" in asked[0]
    assert "line 0" in "".join(seen)


def test_a_request_of_the_sessionless_revision_is_told_to_use_the_handshake(interp_env):
    with http_server(interp_env, "-y") as server:
        async def body():
            async with http_client(server, mode="2026-07-28") as client:
                with pytest.raises(MCPError) as caught:
                    await client.call_tool("run_code", {"language": "python", "code": "1"})
                return caught.value

        error = converse(body)
    assert "protocol 2026-07-28 has no sessions" in str(error)


def test_an_oversized_request_is_refused_and_the_server_goes_on(interp_env):
    with http_server(interp_env, "-y") as server:
        async def body():
            async with http_client(server) as client:
                long = await client.call_tool("run_code", {"language": "python",
                                                           "code": "#" * (5 << 20)})
                with pytest.raises(MCPError):  # past 16 MiB: HTTP 413 before it is read
                    await client.call_tool("run_code", {"language": "python",
                                                        "code": "#" * (20 << 20)})
                after = await client.call_tool("run_code", {"language": "python", "code": "2+2"})
                return long, after

        long, after = converse(body)
    assert long.is_error and text(long) == ("run_code: the code is 5,242,880 characters long; "
                                            "the limit is 1,000,000")
    assert "```\n4\n```" in text(after)
