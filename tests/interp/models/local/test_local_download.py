"""Downloading a model: against a real HTTP server on 127.0.0.1, up to the network call."""

from __future__ import annotations

import hashlib
import socket

import pytest

from file_server import FileServer
from interp.models.local.download import DownloadError, download, part_path

DATA = bytes(range(256)) * 4096 + b"tail"  # 1 MiB and a bit: more than one read chunk
SHA = hashlib.sha256(DATA).hexdigest()
PATH = "/Qwen/repo/resolve/main/model.gguf"


def test_right_hash_lands_the_file_with_progress(tmp_path):
    seen = []
    with FileServer({PATH: DATA}) as server:
        dest = download(server.url(PATH), tmp_path / "m.gguf", sha256=SHA, size=len(DATA),
                        progress=lambda done, total: seen.append((done, total)))
    assert dest.read_bytes() == DATA
    assert not part_path(dest).exists()
    assert seen[-1] == (len(DATA), len(DATA))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_wrong_hash_leaves_nothing_behind(tmp_path):
    dest = tmp_path / "m.gguf"
    with FileServer({PATH: DATA}) as server, pytest.raises(DownloadError, match="sha256"):
        download(server.url(PATH), dest, sha256="0" * 64, size=len(DATA))
    assert not dest.exists() and not part_path(dest).exists()


def test_wrong_size_is_refused(tmp_path):
    dest = tmp_path / "m.gguf"
    with FileServer({PATH: DATA}) as server, pytest.raises(DownloadError, match="not 1048590"):
        download(server.url(PATH), dest, sha256=SHA, size=len(DATA) + 10)
    assert not dest.exists() and not part_path(dest).exists()


def test_a_dropped_connection_keeps_the_part_and_the_next_call_resumes(tmp_path):
    dest = tmp_path / "m.gguf"
    with FileServer({PATH: DATA}, drop_after=300_000) as server:
        with pytest.raises(DownloadError, match="resume"):
            download(server.url(PATH), dest, sha256=SHA, size=len(DATA), timeout=10)
        assert not dest.exists()
        have = part_path(dest).stat().st_size
        assert 0 < have < len(DATA)
        server.drop_after = None
        download(server.url(PATH), dest, sha256=SHA, size=len(DATA))
    assert dest.read_bytes() == DATA
    assert server.requests[-1] == (PATH, f"bytes={have}-")


def test_a_server_that_ignores_the_range_starts_over(tmp_path):
    dest = tmp_path / "m.gguf"
    part_path(dest).write_bytes(b"garbage that is not the start of the file")
    with FileServer({PATH: DATA}, ignore_range=True) as server:
        download(server.url(PATH), dest, sha256=SHA, size=len(DATA))
    assert dest.read_bytes() == DATA


def test_a_complete_part_is_checked_without_refetching(tmp_path):
    dest = tmp_path / "m.gguf"
    part_path(dest).write_bytes(DATA)
    with FileServer({PATH: DATA}) as server:
        download(server.url(PATH), dest, sha256=SHA, size=len(DATA))
    assert dest.read_bytes() == DATA and server.requests == []


def test_unknown_size_resumes_through_416(tmp_path):
    dest = tmp_path / "m.gguf"
    part_path(dest).write_bytes(DATA)
    with FileServer({PATH: DATA}) as server:
        download(server.url(PATH), dest, sha256=SHA)
    assert dest.read_bytes() == DATA and server.requests == [(PATH, f"bytes={len(DATA)}-")]


def test_redirects_are_followed(tmp_path):
    with FileServer({"/cdn/blob": DATA}, redirects={PATH: "/cdn/blob"}) as server:
        download(server.url(PATH), tmp_path / "m.gguf", sha256=SHA, size=len(DATA))
    assert [path for path, _ in server.requests] == [PATH, "/cdn/blob"]


def test_http_errors_are_one_line(tmp_path):
    with FileServer({}) as server, pytest.raises(DownloadError, match="HTTP 404"):
        download(server.url(PATH), tmp_path / "m.gguf", sha256=SHA)


def test_an_unreachable_host_is_one_line(tmp_path):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(DownloadError, match="cannot reach 127.0.0.1"):
        download(f"http://127.0.0.1:{port}/m.gguf", tmp_path / "m.gguf", sha256=SHA, timeout=5)
