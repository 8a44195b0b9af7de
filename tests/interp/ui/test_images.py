"""Terminal image protocols: detection, escape formats, file links, PNG sizing."""

from __future__ import annotations

import base64
import os
import re
import socket
import stat
from pathlib import Path

import pytest

from interp.ui import images
from png_kit import make_png
from interp.ui.images import detect, file_link, inline_image, show




@pytest.mark.parametrize("env, expected", [
    ({}, "none"),
    ({"TERM": "dumb"}, "none"),
    ({"TERM": "xterm-256color"}, "none"),
    ({"TERM": "xterm-kitty"}, "kitty"),
    ({"TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"}, "kitty"),
    ({"TERM": "xterm-ghostty"}, "kitty"),
    ({"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, "iterm2"),
    ({"TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"}, "iterm2"),
    ({"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}, "iterm2"),
    ({"TERM": "xterm-sixel"}, "sixel"),
    ({"TERM": "foot"}, "sixel"),
    ({"TERM": "mlterm"}, "sixel"),
    ({"TERM": "xterm-256color", "TERM_PROGRAM": "vscode"}, "none"),
    ({"TERM": "tmux-256color", "KITTY_WINDOW_ID": "1"}, "none"),
    ({"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}, "none"),
    ({"TERM": "screen", "TERM_PROGRAM": "iTerm.app"}, "none"),
    ({"TERM": "xterm-kitty", "INTERP_IMAGES": "none"}, "none"),
    ({"TERM": "dumb", "INTERP_IMAGES": "Kitty"}, "kitty"),
    ({"INTERP_IMAGES": "iterm2"}, "iterm2"),
    ({"INTERP_IMAGES": "sixel", "TMUX": "x"}, "sixel"),
    ({"TERM": "xterm-kitty", "INTERP_IMAGES": "auto"}, "kitty"),
    ({"TERM": "xterm-kitty", "INTERP_IMAGES": "bogus"}, "kitty"),
])
@pytest.mark.fast
def test_detect(env, expected):
    assert detect(env) == expected




KITTY = re.compile(r"\x1b_G([^;]*);([A-Za-z0-9+/=]*)\x1b\\")


@pytest.mark.fast
def test_kitty_chunking_reassembles():
    png = make_png(120, 90, noise=True)
    out = inline_image(png, "kitty")
    parts = KITTY.findall(out)
    assert "".join(f"\x1b_G{k};{p}\x1b\\" for k, p in parts) == out
    assert len(parts) > 2
    assert all(len(payload) <= 4096 for _, payload in parts)
    assert all(len(payload) % 4 == 0 for _, payload in parts[:-1])
    assert parts[0][0] == "f=100,a=T,q=2,c=12,m=1"
    assert [k for k, _ in parts[1:-1]] == ["m=1"] * (len(parts) - 2)
    assert parts[-1][0] == "m=0"
    assert base64.b64decode("".join(p for _, p in parts)) == png


@pytest.mark.fast
def test_kitty_single_chunk_and_width_cap():
    png = make_png(2000, 1)
    parts = KITTY.findall(inline_image(png, "kitty", max_width_cells=40))
    assert len(parts) == 1 and parts[0][0] == "f=100,a=T,q=2,c=40,m=0"


@pytest.mark.fast
def test_iterm2_format():
    png = make_png(25, 5)
    out = inline_image(png, "iterm2")
    match = re.fullmatch(r"\x1b\]1337;File=inline=1;size=(\d+);width=(\d+);"
                         r"preserveAspectRatio=1:([A-Za-z0-9+/=]+)\x07", out)
    assert match and int(match[1]) == len(png) and match[2] == "3"
    assert base64.b64decode(match[3]) == png


@pytest.mark.fast
def test_inline_refuses_non_png_oversize_and_none():
    png = make_png(4, 4)
    assert inline_image(b"not a png", "kitty") is None
    assert inline_image(png, "none") is None
    assert inline_image(png, "unknown") is None
    big = png + b"\0" * (images.MAX_INLINE_BYTES + 1)  # trailing bytes after IEND
    assert inline_image(big, "kitty") is None
    assert inline_image(big, "iterm2") is None


@pytest.mark.fast
def test_sixel_without_img2sixel(monkeypatch):
    monkeypatch.setattr(images.shutil, "which", lambda name: None)
    assert inline_image(make_png(4, 4), "sixel") is None


def fake_img2sixel(tmp_path: Path, monkeypatch, body: str) -> Path:
    """Put an executable img2sixel shell script first on PATH; return its log file."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    script = bindir / "img2sixel"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    return tmp_path / "args"


@pytest.mark.skipif(os.name != "posix", reason="uses a shell script")
def test_sixel_with_img2sixel(tmp_path, monkeypatch):
    log = fake_img2sixel(tmp_path, monkeypatch,
                         f'echo "$@" > "{tmp_path}/args"; '
                         f"cat > /dev/null; printf '\\033Pq#0~-\\033\\134'")
    assert inline_image(make_png(4, 4), "sixel") == "\x1bPq#0~-\x1b\\"
    assert log.read_text().strip() == ""
    assert inline_image(make_png(2000, 4), "sixel", max_width_cells=50) is not None
    assert log.read_text().split() == ["-w", "500"]


@pytest.mark.skipif(os.name != "posix", reason="uses a shell script")
def test_sixel_failure_and_timeout(tmp_path, monkeypatch):
    fake_img2sixel(tmp_path, monkeypatch,
                   'cat > /dev/null; if [ -n "$SLOW" ]; then exec sleep 5; fi; echo "not sixel"')
    assert inline_image(make_png(4, 4), "sixel") is None
    monkeypatch.setenv("SLOW", "1")
    monkeypatch.setattr(images, "SIXEL_TIMEOUT", 0.2)
    assert inline_image(make_png(4, 4), "sixel") is None


@pytest.mark.fast
def test_file_link_format(tmp_path):
    path = tmp_path / "my charts" / "résumé #1.png"
    out = file_link(path)
    host = socket.gethostname()
    match = re.fullmatch(r"\x1b\]8;;(.*?)\x1b\\(.*)\x1b\]8;;\x1b\\", out)
    assert match and match[2] == str(path)
    url = match[1]
    assert url.startswith(f"file://{host}/")
    assert url.endswith("/my%20charts/r%C3%A9sum%C3%A9%20%231.png")
    assert all(32 < ord(c) < 127 for c in url)


@pytest.mark.fast
def test_file_link_relative_path_and_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = file_link(Path("out.png"), "chart\x1b[31m")
    assert f"{tmp_path.as_posix()}/out.png".replace(" ", "%20") in out
    assert out.endswith("\x1b\\chart?[31m\x1b]8;;\x1b\\")


@pytest.mark.fast
def test_show_falls_back_to_link(tmp_path, monkeypatch):
    png = make_png(4, 4)
    assert show(png, "kitty").startswith("\x1b_G")
    path = tmp_path / "a.png"
    assert show(png, "none", path=path) == file_link(path)
    assert show(None, "kitty", path=path) == file_link(path)
    monkeypatch.setattr(images.shutil, "which", lambda name: None)
    assert show(png, "sixel", path=path) == file_link(path)
    assert show(png, "none") == ""
