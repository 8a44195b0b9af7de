"""A small MCP server written with the `mcp` SDK (MCPServer), for bench_integrations.py: one
tool, `echo`, that says its text back. Served on standard input and output."""

from mcp.server.mcpserver import MCPServer

app = MCPServer("bench")


@app.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


if __name__ == "__main__":
    app.run("stdio")
