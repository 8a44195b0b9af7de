"""The floor for bench_mcp.py: the `mcp` SDK's low-level Server with one tool that does nothing,
served the way `interp mcp` serves (stdio: stdio_server + serve_loop; HTTP: the SDK's
Streamable HTTP app under uvicorn), so the SDK's own round trip is measured in the same run.

    python bench/_mcp_floor.py                    # stdio, the SDK's own streams
    python bench/_mcp_floor.py --interp-streams   # stdio read and written on the event loop
    python bench/_mcp_floor.py --http PORT
"""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(
        name="noop", description="Does nothing.", input_schema={"type": "object"})])


async def call_tool(ctx, params) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text="ok")])


SERVER = Server("floor", version="0", on_list_tools=list_tools, on_call_tool=call_tool)


async def stdio(interp_streams: bool) -> None:
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    from interp.mcp.stdio import claimed_stdio

    async def serve(stdin=None, stdout=None) -> None:
        async with stdio_server(stdin, stdout) as (read, write):
            await serve_loop(SERVER, read, write, lifespan_state={},
                             init_options=SERVER.create_initialization_options())

    if not interp_streams:
        await serve()
        return
    with claimed_stdio() as (stdin, stdout):
        await serve(stdin, stdout)


def main() -> None:
    if sys.argv[1:2] == ["--interp-streams"]:
        anyio.run(stdio, True)
    elif sys.argv[1:2] == ["--http"]:
        import uvicorn

        app = SERVER.streamable_http_app(host="127.0.0.1")
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        anyio.run(stdio, False)


if __name__ == "__main__":
    main()
