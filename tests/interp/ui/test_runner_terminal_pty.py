"""The real `interp` in a pty: the runners' terminal has the user's size and follows resizes;
an unterminated escape sequence hides nothing on the screen; SIGTERM at the prompt or during
a block leaves no runner behind and keeps the conversation."""

from __future__ import annotations

import json
import signal
import time

import pexpect

from helpers import interp_cmd, model_args
from pty_terminal import PANEL, Term, fenced


def start(interp_env, fake_server, rows: int, columns: int) -> Term:
    cmd = interp_cmd() + model_args(fake_server)
    env = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    env.pop("COLUMNS", None)
    child = pexpect.spawn(cmd[0], cmd[1:], env=env, cwd=str(interp_env["cwd"]),
                          dimensions=(rows, columns), encoding="utf-8", timeout=30)
    return Term(child)


def test_blocks_see_the_terminals_width_and_its_resizes(interp_env, fake_server):
    fake_server.script([
        fenced("shell", "echo \"cols=$(tput cols)\"; python3 -c 'import shutil; "
                        "print(\"py\", shutil.get_terminal_size().columns)'"),
        fenced("shell", "echo ready\nwhile [ \"$(tput cols)\" != 70 ]; do sleep 0.05; done\n"
                        "echo \"resized to $(tput cols)\""),
        "Done.",
    ])
    term = start(interp_env, fake_server, 40, 50)

    def approve() -> None:  # at 50 columns the question wraps: match its start only
        term.expect(PANEL)
        term.expect(r"Run this shell block\?")
        term.line("y")

    try:
        term.task("how wide?")
        approve()
        term.expect(r"^cols=50$")
        term.expect(r"^py 50$")
        approve()
        term.expect(r"^ready$")
        term.child.setwinsize(40, 70)
        term.expect(r"^resized to 70$")
        term.expect("Done.")
        assert term.exit_status() == 0
    finally:
        term.child.close(force=True)


def test_unterminated_escape_sequence_hides_nothing_on_screen(interp_env, fake_server):
    code = ("printf 'visible \\033]0;title\\nhidden line one\\n'\n"
            "printf 'dcs \\033Pq#0;2\\nhidden line two\\n'\n"
            "printf 'apc \\033_payload\\nhidden line three\\n'")
    fake_server.script([fenced("shell", code), "Done."])
    term = start(interp_env, fake_server, 40, 100)
    try:
        term.task("print")
        term.question()
        term.line("y")
        for line in ("hidden line one", "hidden line two", "hidden line three"):
            term.expect(line)
        term.expect("Done.")
        assert term.exit_status() == 0
        assert "\x1b]0;title" not in term.raw and "\x1bP" not in term.raw
    finally:
        term.child.close(force=True)
    told = fake_server.requests[1]["messages"][-1]["content"]
    assert all(f"hidden line {n}" in told for n in ("one", "two", "three"))


def _gone(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read()
    except OSError:
        return True
    return state[state.rfind(")") + 2] in "ZX"


def test_sigterm_while_a_block_runs_in_the_interactive_session(interp_env, fake_server):
    cwd = interp_env["cwd"]
    block = "import os, time\nopen('py.pid', 'w').write(str(os.getpid()))\ntime.sleep(300)"
    fake_server.script([fenced("python", block)])
    term = start(interp_env, fake_server, 40, 100)
    try:
        term.task("INTERACTIVE TASK")
        term.question()
        term.line("y")
        deadline = time.monotonic() + 60
        while not ((cwd / "py.pid").exists() and (cwd / "py.pid").read_text()):
            assert time.monotonic() < deadline, "hang guard: the block did not start"
            term._read()
        pid = int((cwd / "py.pid").read_text())
        term.child.kill(signal.SIGTERM)
        term.wait()
        assert term.child.signalstatus == signal.SIGTERM
        deadline = time.monotonic() + 60
        while not _gone(pid):
            assert time.monotonic() < deadline, f"hang guard: runner {pid} is still running"
            time.sleep(0.05)
    finally:
        term.child.close(force=True)
    [path] = (interp_env["data"] / "interp" / "sessions").glob("*.jsonl")
    saved = [json.loads(line) for line in path.read_text().splitlines()]
    assert any(r.get("message", {}).get("content") == "INTERACTIVE TASK" for r in saved)


def test_closing_the_terminal_stops_even_runners_that_ignore_sighup(interp_env, fake_server):
    """The terminal hangs up (its window was closed): interp gets SIGHUP, stops every runner
    process, keeps the conversation and dies of the signal."""
    import os

    cwd = interp_env["cwd"]
    block = ("import os, signal, time\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
             "open('py.pid', 'w').write(str(os.getpid()))\ntime.sleep(300)")
    fake_server.script([fenced("python", block)])
    term = start(interp_env, fake_server, 40, 100)
    pid = None
    try:
        term.task("HANGUP TASK")
        term.question()
        term.line("y")
        deadline = time.monotonic() + 60
        while not ((cwd / "py.pid").exists() and (cwd / "py.pid").read_text()):
            assert time.monotonic() < deadline, "hang guard: the block did not start"
            term._read()
        pid = int((cwd / "py.pid").read_text())
        os.close(term.child.child_fd)  # the terminal goes away: the kernel sends SIGHUP
        deadline = time.monotonic() + 60
        while (status := os.waitpid(term.child.pid, os.WNOHANG))[0] == 0:
            assert time.monotonic() < deadline, "hang guard: interp did not end"
            time.sleep(0.05)
        assert os.WIFSIGNALED(status[1]) and os.WTERMSIG(status[1]) == signal.SIGHUP
        deadline = time.monotonic() + 60
        while not _gone(pid):
            assert time.monotonic() < deadline, f"hang guard: runner {pid} is still running"
            time.sleep(0.05)
    finally:
        if pid is not None and not _gone(pid):
            os.kill(pid, signal.SIGKILL)
        term.child.closed = True  # its descriptor is already closed
    [path] = (interp_env["data"] / "interp" / "sessions").glob("*.jsonl")
    saved = [json.loads(line) for line in path.read_text().splitlines()]
    assert any(r.get("message", {}).get("content") == "HANGUP TASK" for r in saved)
