"""interp as an MCP client: the servers of config.toml's `[mcp_servers.NAME]` tables (a stdio
command, or a Streamable HTTP URL) start with the session, and their tools reach the model as
blocks of the `mcp` language (interp.mcpcall: `SERVER.TOOL {json arguments}`), offered as
functions beside `execute` to a model that takes tools and written as ```mcp blocks by one
that does not; each call is approved like any block, runs with a deadline, and its result
comes back bounded like a block's output.

`config.py` reads the tables, `connection.py` keeps one server (the `mcp` SDK, imported only
here and only when servers are configured), `pool.py` runs them all on one event loop in a
thread, `results.py` turns a tool's result into a runner's Result, and `runner.py` is the
runner of the `mcp` language that the session's registry gets. (`interp mcp`, interp's own
server, is the rest of interp/mcp.)
"""
