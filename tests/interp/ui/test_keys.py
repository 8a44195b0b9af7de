"""The keyboard watch and single-key reads, on a real pseudo-terminal (os.openpty)."""

from __future__ import annotations

import os
import termios
import threading
import time

import pytest

from interp.ui.keys import Keys, key_name, scan

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)

GUARD = 30.0  # seconds; a hang guard only


@pytest.fixture
def pty_pair():
    master, slave = os.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


def lflag(fd: int) -> int:
    return termios.tcgetattr(fd)[3]


def test_scan_counts_esc_presses_but_not_sequences():
    assert scan(b"abc") == (0, b"")
    assert scan(b"\x1b[A\x1bOB\x1bx") == (0, b"")  # arrows and Alt+x
    assert scan(b"\x1b\x1b[A") == (1, b"")
    assert scan(b"ab\x1b") == (0, b"\x1b")  # may be the start of a sequence
    assert scan(b"\x1b[1;5") == (0, b"\x1b[1;5")


def test_key_names():
    assert [key_name(k) for k in (b"y", b"Y", b"\r", b"\x03", b"\x1b", b"\x1b[A", b"",
                                  b"\x7f", "é".encode())] == [
        "y", "Y", "enter", "ctrl-c", "esc", "other", "ctrl-d", "backspace", "é"]


def test_watch_turns_echo_off_calls_back_on_esc_and_restores(pty_pair):
    master, slave = pty_pair
    before = termios.tcgetattr(slave)
    keys, pressed = Keys(slave), []
    done = threading.Event()

    def on_escape():
        pressed.append(1)
        done.set()

    with keys.watching(on_escape):
        assert not lflag(slave) & (termios.ECHO | termios.ICANON)
        assert lflag(slave) & termios.ISIG  # Ctrl-C stays a signal
        os.write(master, b"typed ahead\x1b[A\x1b[B")
        os.write(master, b"\x1b")
        assert done.wait(GUARD)
        with keys.paused():  # for a question: the terminal as it was
            assert lflag(slave) & termios.ECHO
        assert not lflag(slave) & termios.ECHO
    assert pressed == [1]  # the arrow keys were not Esc
    assert termios.tcgetattr(slave) == before


def test_read_key_reads_one_key_in_raw_mode(pty_pair):
    master, slave = pty_pair
    keys, got = Keys(slave), []
    reader = threading.Thread(target=lambda: got.append(keys.read_key()), daemon=True)
    reader.start()
    deadline = time.monotonic() + GUARD
    while reader.is_alive() and time.monotonic() < deadline:
        os.write(master, b"\x03")  # Ctrl-C is read as a key, not sent as a signal
        reader.join(0.05)
    assert got == ["ctrl-c"]
    assert lflag(slave) & termios.ICANON  # restored


def test_keys_for_stdin_is_none_without_a_terminal(monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert Keys.for_stdin() is None
