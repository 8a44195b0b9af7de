"""A real MCP server for interp's MCP client tests, written with the official `mcp` SDK
(MCPServer) and served on standard input and output: tools that add, echo, draw a PNG, sleep,
fail, die, print a lot, write a file and read a variable.

    python tests/mcp_tool_server.py [--garbage] [--silent-start SECONDS]

`--garbage` writes a line that is not JSON-RPC before serving; `--silent-start` waits before
serving (a server that does not start in time)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

# Run as a script, its folder (tests/) comes first on sys.path, where tests/interp/ would
# shadow the interp package that png_kit imports.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import mcp_types as types  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402


def make_png() -> bytes:
    """tests/png_kit.py's picture, loaded by its path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("png_kit", Path(__file__).with_name("png_kit.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_png()


app = MCPServer("demo", instructions="Tools for interp's tests.")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@app.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


@app.tool()
def picture() -> list:
    """A small PNG picture and a caption."""
    import base64

    return [types.TextContent(text="a 4x3 picture"),
            types.ImageContent(data=base64.b64encode(make_png()).decode(), mime_type="image/png")]


@app.tool()
def slow(seconds: float) -> str:
    """Sleep, then say so."""
    time.sleep(seconds)
    return f"slept {seconds} s"


@app.tool()
def fail() -> str:
    """Always fails."""
    raise ToolError("the disk is on fire")


@app.tool()
def crash() -> str:
    """The server process exits at once."""
    os._exit(3)


@app.tool()
def lines(count: int) -> str:
    """`count` numbered lines."""
    return "\n".join(f"line {n}" for n in range(count))


@app.tool()
def write_file(path: str, text: str) -> str:
    """Write a file in the server's folder."""
    Path(path).write_text(text)
    return f"wrote {path}"


@app.tool()
def variable(name: str) -> str:
    """The value of an environment variable, or (unset)."""
    return os.environ.get(name, "(unset)")


if __name__ == "__main__":
    if "--garbage" in sys.argv:
        print("this is not JSON-RPC", flush=True)
    if "--silent-start" in sys.argv:
        time.sleep(float(sys.argv[sys.argv.index("--silent-start") + 1]))
    app.run("stdio")
