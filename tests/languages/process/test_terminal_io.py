"""The runners' terminal reading, code files and command framing (issue 16's faster paths)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pexpect
import pytest

from helpers import hang_guard
from languages.node import NodeRunner
from languages.python import PythonRunner
from languages.python.runner import _framed
from languages.process.terminal_reader import TerminalClosed, TerminalReader
from languages.shell import ShellRunner


def test_reader_returns_everything_waiting_then_end_of_file():
    child = pexpect.spawn("bash", ["-c", "head -c 200000 /dev/zero | tr '\\0' x; printf END"],
                          echo=False)
    reader, got = TerminalReader(child), b""
    with hang_guard():
        try:
            while True:
                got += reader.read(0.25)
        except TerminalClosed:
            pass
    child.close(force=True)
    assert got.replace(b"\r\n", b"\n") == b"x" * 200000 + b"END"


def test_reader_waits_and_returns_nothing_while_the_child_is_quiet():
    child = pexpect.spawn("sleep", ["30"], echo=False)
    try:
        assert TerminalReader(child).read(0.01) == b""
    finally:
        child.close(force=True)


@pytest.mark.parametrize("cls", [PythonRunner, ShellRunner, NodeRunner])
def test_code_files_live_in_a_private_folder_removed_on_stop(cls, make_runner, collect):
    runner = make_runner(cls)
    collect(runner, "1" if cls is not ShellRunner else "true")
    folder = runner._codedir
    assert sorted(p.name for p in folder.iterdir()) == [f"block-1{cls.suffix}"]
    assert folder.stat().st_mode & 0o777 == 0o700
    if sys.platform.startswith("linux") and os.access("/dev/shm", os.W_OK):
        assert folder.parent == Path("/dev/shm")
    runner.stop()
    assert not folder.exists()


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="reads the signal mask and wait channel in /proc")
def test_python_ctrl_c_while_a_run_command_is_read_interrupts_that_block(make_runner, collect):
    """The driver holds Ctrl-C off while it reads a command: the command stays whole and its
    block counts as interrupted; the driver goes on with the next command."""
    runner = make_runner(PythonRunner)
    collect(runner, "x = 41")
    path = runner._codedir / "manual.py"
    path.write_text("x = 0\nprint('ran')\n")
    command = _framed(f"R tok1manual 7 {path}\n")
    runner._send(command[:8])  # the length and part of the command

    def has_sigint(field: str) -> bool:
        for line in Path(f"/proc/{runner._child.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return bool(int(line.split()[1], 16) & (1 << 1))  # SIGINT is signal 2
        return False

    def reading_the_rest() -> bool:  # blocked on the command pipe, with Ctrl-C held off
        wchan = Path(f"/proc/{runner._child.pid}/wchan").read_text()
        return "pipe_read" in wchan and has_sigint("SigBlk")

    with hang_guard():
        while not reading_the_rest():  # inside read_command, the command's length read
            time.sleep(0.01)
        runner._child.sendintr()
        # The terminal turns ^C into SIGINT on its own time: wait until it is held pending.
        while not (has_sigint("ShdPnd") or has_sigint("SigPnd")):
            time.sleep(0.01)
        runner._send(command[8:] + _framed("P tok2manual\n"))
        seen = b""
        while b"__INTERP_tok2manual__" not in seen:
            seen += runner._reader.read(0.25)
    assert b"__INTERP_tok1manual__{\"status\": \"interrupted\"}" in seen
    assert b"ran" not in seen
    out, result = collect(runner, "print(x + 1)")
    assert (out, result.ok) == ("42\n", True)


def test_python_a_late_ctrl_c_between_blocks_does_not_touch_the_next_block(make_runner, collect):
    """A Ctrl-C that reaches the driver after its block ended (pressed as the block finished)
    is dropped: the next block runs."""
    runner = make_runner(PythonRunner)
    collect(runner, "x = 41")
    runner._child.sendintr()  # no block running: the driver waits for a command
    with hang_guard():  # the terminal delivers ^C on its own time: give it a quiet half second
        while runner._reader.read(0.5):
            pass
    out, result = collect(runner, "print(x + 1)")
    assert (out, result.ok) == ("42\n", True)
