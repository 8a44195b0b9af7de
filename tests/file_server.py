"""A real HTTP file server on 127.0.0.1 for download tests: Range requests, redirects, and
ways to misbehave (ignore ranges, drop the connection mid-body, answer 404).

    with FileServer({"/a/model.gguf": data}) as server:
        server.url("/a/model.gguf")

`server.requests` records (path, Range header) of every request.
"""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class FileServer:
    """Serves `files` (path -> bytes, or a Path to stream from disk)."""

    def __init__(self, files: dict[str, bytes | Path], *, redirects: dict[str, str] | None = None,
                 ignore_range: bool = False, drop_after: int | None = None) -> None:
        self.files = dict(files)
        self.redirects = dict(redirects or {})
        self.ignore_range = ignore_range
        self.drop_after = drop_after  # bytes of a body sent before the connection is dropped
        self.requests: list[tuple[str, str | None]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> FileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    @property
    def base(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base + path

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                server.requests.append((self.path, self.headers.get("Range")))
                if self.path in server.redirects:
                    self.send_response(302)
                    self.send_header("Location", server.redirects[self.path])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                source = server.files.get(self.path)
                if source is None:
                    self.send_error(404, "Not Found")
                    return
                size = source.stat().st_size if isinstance(source, Path) else len(source)
                start = self._range_start(size)
                if start is None:
                    return
                self.send_response(206 if start else 200)
                self.send_header("Content-Length", str(size - start))
                self.send_header("Accept-Ranges", "bytes")
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
                self.end_headers()
                self._body(source, start, size)

            def _range_start(self, size: int) -> int | None:
                header = self.headers.get("Range")
                match = re.fullmatch(r"bytes=(\d+)-", header or "")
                if server.ignore_range or not match:
                    return 0
                start = int(match.group(1))
                if start >= size:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{size}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
                return start

            def _body(self, source, start: int, size: int) -> None:
                limit = size - start if server.drop_after is None else server.drop_after
                sent = 0
                if isinstance(source, Path):
                    with open(source, "rb") as fh:
                        fh.seek(start)
                        while sent < limit and (block := fh.read(min(1 << 20, limit - sent))):
                            self.wfile.write(block)
                            sent += len(block)
                else:
                    self.wfile.write(source[start:start + limit])
                if server.drop_after is not None:
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)

        return Handler
