"""A block that sits reading the terminal is stopped as waiting for input; a block that is
silent for long, sleeps or waits on a socket is not. Real bash, python3 and node."""

from __future__ import annotations

import textwrap

import pytest

from languages.node import NodeRunner
from languages.python import PythonRunner
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")

LONG = 60.0  # the block time-out: far beyond the input watch, so only it can stop the block


def _raw_reader(extra: str = "") -> str:
    """A python3 command that puts /dev/tty in raw mode and reads a key (`extra` first)."""
    code = (f"import signal, tty; {extra}f = open('/dev/tty', 'rb', 0); tty.setraw(f); "
            f"print('read', f.read(1))")
    return f'python3 -c "{code}"'


def _stopped_for_input(result) -> bool:
    return (result.waiting_input and not result.timed_out and result.status == "interrupted"
            and "waiting for keyboard input" in result.summary())


def test_a_shell_read_of_one_key_is_stopped_and_the_shell_kept(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), timeout=LONG)
    collect(sh, "kept=yes")
    out, result = collect(sh, "echo asking; read -n 1 answer < /dev/tty; echo got $answer")
    assert _stopped_for_input(result), result
    assert "the block itself sat reading the terminal" in result.summary()
    assert "asking" in out and "got" not in out
    out, result = collect(sh, "echo $kept")
    assert out == "yes\n" and not result.restarted


def test_a_program_that_ignores_ctrl_c_is_killed_not_the_shell(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), timeout=LONG)
    collect(sh, "kept=yes")
    out, result = collect(sh, _raw_reader("signal.signal(signal.SIGINT, signal.SIG_IGN); ")
                          + "; echo status $?")
    assert _stopped_for_input(result), result
    assert "python3 -c" in result.summary() or "python -c" in result.summary()
    assert not result.restarted
    assert collect(sh, "echo $kept")[0] == "yes\n"


def test_a_plain_read_of_the_terminal_ends_at_once(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), timeout=LONG)
    out, result = collect(sh, "read x < /dev/tty; echo status $?; read y; echo status $?")
    assert out == "status 1\nstatus 1\n" and result.read_eof and not result.waiting_input


@pytest.mark.parametrize("code", [
    "sleep 5; echo slept",
    # the terminal in raw mode, but the program waits on a socket, not on it
    "python3 -c \"import select, socket, tty; f = open('/dev/tty', 'rb', 0); tty.setraw(f); "
    "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
    "print(select.select([s], [], [], 5)[0])\"",
], ids=["sleep", "socket"])
def test_a_silent_shell_block_is_left_alone(make_runner, collect, tmp_path, code):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), timeout=LONG)
    out, result = collect(sh, code)
    assert result.ok and not result.waiting_input, (out, result)


def test_a_python_block_reading_the_terminal_is_stopped(make_runner, collect, tmp_path):
    py = make_runner(PythonRunner, cwd=str(tmp_path), timeout=LONG)
    collect(py, "kept = 'yes'")
    code = "import tty\nf = open('/dev/tty', 'rb', 0)\ntty.setcbreak(f)\nprint(f.read(1))"
    out, result = collect(py, code)
    assert _stopped_for_input(result), result
    assert "KeyboardInterrupt" in out
    out, result = collect(py, "print(kept)")
    assert out == "yes\n" and not result.restarted


def test_a_python_block_computing_silently_is_left_alone(make_runner, collect, tmp_path):
    py = make_runner(PythonRunner, cwd=str(tmp_path), timeout=LONG)
    code = textwrap.dedent("""
        import time
        start, n = time.monotonic(), 0
        while time.monotonic() - start < 5:
            n += 1
        print('computed')
    """)
    out, result = collect(py, code)
    assert out == "computed\n" and result.ok and not result.waiting_input


def test_a_node_block_whose_child_reads_the_terminal_is_stopped(make_runner, collect, tmp_path):
    js = make_runner(NodeRunner, cwd=str(tmp_path), timeout=LONG)
    code = ("require('child_process').execSync(\"read -n 1 x < /dev/tty\", "
            "{shell: '/bin/bash', stdio: 'inherit'})")
    out, result = collect(js, code)
    assert _stopped_for_input(result), (out, result)
    assert collect(js, "1 + 1")[0] == "2\n"


def test_the_environment_asks_nothing(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), timeout=LONG)
    out, _ = collect(sh, "for v in GIT_TERMINAL_PROMPT DEBIAN_FRONTEND PAGER GIT_PAGER "
                         "npm_config_yes PIP_NO_INPUT GIT_EDITOR; do echo $v=${!v}; done")
    assert out.split() == ["GIT_TERMINAL_PROMPT=0", "DEBIAN_FRONTEND=noninteractive",
                           "PAGER=cat", "GIT_PAGER=cat", "npm_config_yes=true",
                           "PIP_NO_INPUT=1", "GIT_EDITOR=true"]
    # git commit without -m would open an editor and wait; here it stops at once
    out, result = collect(sh, "git init -q r && cd r && git -c user.name=a -c user.email=a@b "
                              "commit -q --allow-empty; echo status $?")
    assert "Aborting commit due to empty commit message" in out, out
    assert out.strip().endswith("status 1") and not result.waiting_input
