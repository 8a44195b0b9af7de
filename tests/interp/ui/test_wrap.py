"""Plain lines on a terminal wrap at word boundaries; in a pipe they stay whole."""

from __future__ import annotations

import fcntl
import os
import struct
import termios

import pytest

from interp.ui.wrap import for_terminal, wrapped

pytestmark = pytest.mark.fast

TEXT = ("interp: warning: the local model could not be found in the folder you named, "
        "/some/rather/long/path/to/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, so nothing ran")


def _terminal(columns: int):
    main, other = os.openpty()
    fcntl.ioctl(other, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return main, os.fdopen(other, "w")


def test_a_terminal_gets_whole_words_within_its_width():
    main, stream = _terminal(50)
    try:
        lines = for_terminal(TEXT, stream).split("\n")
    finally:
        stream.close()
        os.close(main)
    assert len(lines) > 1
    assert " ".join(lines) == TEXT  # broken only between words
    path = next(word for word in TEXT.split() if word.startswith("/"))
    assert any(path in line for line in lines)  # a word longer than the width stays whole
    assert all(len(line) <= 50 for line in lines if path not in line)


def test_a_pipe_gets_the_text_unchanged(tmp_path):
    with open(tmp_path / "out", "w") as stream:
        assert for_terminal(TEXT, stream) == TEXT


def test_indented_lines_keep_their_indent():
    main, stream = _terminal(30)
    try:
        text = for_terminal("  config file:  model = 'x' in /a/b/c/config.toml", stream)
    finally:
        stream.close()
        os.close(main)
    assert all(line.startswith("  ") for line in text.split("\n"))


def test_a_hanging_indent_where_the_words_fit_else_a_little_deeper_than_the_line():
    row = "    1  python     open('a.csv')                  created a.csv, b.csv, c.csv, d.csv"
    lines = wrapped(row, 60, hang=50).split("\n")
    assert lines[0].startswith("    1  python") and all(line.startswith(" " * 50)
                                                         for line in lines[1:])
    long_names = row.replace("a.csv", "quarterly-revenue-by-region.csv")
    lines = wrapped(long_names, 60, hang=50).split("\n")
    assert all(line.startswith(" " * 8) and not line.startswith(" " * 9) for line in lines[1:])
    assert " ".join(" ".join(lines).split()) == " ".join(long_names.split())  # words whole
