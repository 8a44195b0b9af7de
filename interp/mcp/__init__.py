"""`interp mcp`: interp's runners as a Model Context Protocol server.

Only `server.py` and `results.py` import the `mcp` SDK (an optional dependency, `interp[mcp]`),
and `http.py` its web server when it serves; the rest are plain Python, so the parts that
decide things are tested without a server.
"""
