"""An HTTP server on 127.0.0.1 that answers each POST with the next canned (status, content
type, body) of its list, the last one again once the list is used up: for the replies a
provider's scripted server does not write (odd framing, thinking, error events, no end)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class CannedServer(ThreadingHTTPServer):
    """`answers`: (status, content type, body bytes); `bodies`: the JSON bodies received;
    `api_base` ends in `path` (e.g. "/v1")."""

    daemon_threads = True

    def __init__(self, answers, path: str = ""):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answers, self.path, self.bodies = list(answers), path, []

    def __enter__(self):
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{self.path}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server = self.server
        try:
            server.bodies.append(json.loads(raw))
        except ValueError:
            server.bodies.append(raw)
        status, kind, data = server.answers[min(len(server.bodies), len(server.answers)) - 1]
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
