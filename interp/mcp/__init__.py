"""`interp mcp`: interp's runners as a Model Context Protocol server.

Only `server.py`, `results.py` and `http.py` import the `mcp` SDK (an optional dependency,
`interp[mcp]`); the rest are plain Python, so the parts that decide things are tested without it.
"""
