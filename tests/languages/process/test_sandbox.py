"""The bubblewrap sandbox, driven through real bwrap and real interpreters."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from languages.records import Output
from languages.node import NodeRunner
from languages.python import PythonRunner
from languages.process.sandbox import Sandbox, SandboxError, check_sandbox
from languages.shell import ShellRunner

pytestmark = [
    pytest.mark.skipif(shutil.which("bwrap") is None,
                       reason="bubblewrap (bwrap) is not installed: apt-get install bubblewrap"),
    pytest.mark.usefixtures("no_leaked_processes"),
]
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@pytest.fixture
def boxed(make_runner, tmp_path):
    """boxed(cls, mode="workspace", **config) -> a started runner in the sandbox, cwd tmp_path."""
    def make(cls, mode="workspace", network=False, **config):
        config.setdefault("cwd", str(tmp_path))
        return make_runner(cls, sandbox=Sandbox(mode, network=network), **config)
    return make


@pytest.fixture
def server():
    """A TCP server on the host's 127.0.0.1 that answers b'hi'; yields its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(60)

    def serve():
        try:
            while True:
                conn, _ = listener.accept()
                with conn:
                    conn.sendall(b"hi")
        except OSError:
            return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    listener.close()


def interrupt_after(runner, code, guard, trigger="started"):
    """Run a block and interrupt it once `trigger` was printed; returns (output, Result)."""
    seen = []
    with guard():
        for event in runner.run(code):
            seen.append(event)
            if isinstance(event, Output) and trigger in event.text:
                threading.Timer(0.2, runner.interrupt).start()
    return "".join(e.text for e in seen[:-1]), seen[-1]


def host_pids(argument: str) -> list[int]:
    """Host PIDs of live processes whose command line contains `argument` as a word."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text()
        except OSError:
            continue
        if argument.encode() in words and state[state.rfind(")") + 2] not in "ZX":
            found.append(int(entry.name))
    return found


# -- filesystem -----------------------------------------------------------------------------------

def test_python_cannot_write_outside_the_workspace(boxed, collect, tmp_path):
    runner = boxed(PythonRunner)
    _out, res = collect(runner, "open('/etc/interp-sandbox-test', 'w')")
    assert res.status == "error" and "Read-only file system" in res.error
    _out, res = collect(runner, "open('inside.txt', 'w').write('ok')")
    assert res.ok and (tmp_path / "inside.txt").read_text() == "ok"


def test_bash_cannot_write_home_but_can_write_the_cwd(boxed, collect, tmp_path):
    runner = boxed(ShellRunner)
    out, res = collect(runner, "touch $HOME/interp-sandbox-test")
    assert res.status == "error" and "cannot touch" in out  # read-only (or hidden under /tmp)
    assert not Path(os.path.expanduser("~/interp-sandbox-test")).exists()
    out, res = collect(runner, "echo hello > made.txt && pwd")
    assert res.ok and out.strip() == os.path.realpath(tmp_path)
    assert (tmp_path / "made.txt").read_text() == "hello\n"


@needs_node
def test_node_cannot_write_outside_the_workspace(boxed, collect):
    runner = boxed(NodeRunner)
    out, res = collect(runner, "require('fs').writeFileSync('/etc/interp-sandbox-test', 'x')")
    assert res.status == "error" and "EROFS" in out


def test_tmp_is_private(boxed, collect):
    runner = boxed(ShellRunner)
    name = f"/tmp/interp-sandbox-{uuid.uuid4().hex}"
    out, res = collect(runner, f"echo secret > {name} && cat {name}")
    assert res.ok and out == "secret\n"
    assert not os.path.exists(name)
    assert collect(runner, f"cat {name}")[0] == "secret\n"  # the same private /tmp for every block


def test_read_only_mode_makes_the_cwd_read_only(boxed, collect, tmp_path):
    runner = boxed(ShellRunner, mode="read-only")
    out, res = collect(runner, "ls; echo x > made.txt")
    assert res.status == "error" and "Read-only file system" in out
    assert not (tmp_path / "made.txt").exists()
    out, res = collect(runner, "echo x > /tmp/scratch && cat /tmp/scratch")
    assert res.ok and out == "x\n"


def test_extra_writable_directory(make_runner, collect, tmp_path):
    work, extra = tmp_path / "work", tmp_path / "extra"
    work.mkdir(), extra.mkdir()
    sandbox = Sandbox("workspace", writable=(str(extra),))
    runner = make_runner(ShellRunner, sandbox=sandbox, cwd=str(work))
    _out, res = collect(runner, f"echo y > {extra}/made.txt")
    assert res.ok and (extra / "made.txt").read_text() == "y\n"


# -- network --------------------------------------------------------------------------------------

CONNECT = "import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=10).recv(2)"


def test_network_is_unreachable(boxed, collect, server):
    runner = boxed(PythonRunner)
    _out, res = collect(runner, CONNECT.format(port=server))
    assert res.status == "error" and ("ConnectionRefused" in res.error or "unreachable" in res.error)


def test_network_allowed(boxed, collect, server):
    runner = boxed(PythonRunner, network=True)
    out, res = collect(runner, CONNECT.format(port=server))
    assert res.ok and out == "b'hi'\n"


# -- state, interrupts and timeouts ---------------------------------------------------------------

@pytest.mark.parametrize("cls, setup, check, code", [
    (PythonRunner, "kept = 41", "kept + 1",
     "import time\nprint('started', flush=True)\ntime.sleep(100)"),
    (ShellRunner, "kept=42", "echo $kept", "echo started; sleep 100; echo not reached"),
    pytest.param(NodeRunner, "var kept = 41", "kept + 1",
                 "console.log('started'); await new Promise(r => setTimeout(r, 100000))",
                 marks=needs_node),
], ids=["python", "bash", "node"])
def test_state_persists_and_ctrl_c_keeps_it(boxed, collect, guard, cls, setup, check, code):
    runner = boxed(cls)
    assert collect(runner, setup)[1].ok
    out, res = interrupt_after(runner, code, guard)
    assert res.status == "interrupted" and not (res.restarted or res.died), res.summary()
    out, res = collect(runner, check)
    assert res.ok and out.strip() == "42"


def test_timeout_kills_everything_and_restarts(boxed, collect, pid_gone):
    runner = boxed(ShellRunner)
    collect(runner, "lost=1; sleep 4242.25 & setsid sleep 4242.5 &")
    deadline = time.monotonic() + 10  # a hang guard: background jobs may still be starting
    while len(pids := host_pids("4242.25") + host_pids("4242.5")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(pids) == 2
    _out, res = collect(runner, "trap '' INT; sleep 100", timeout=0.5)
    assert res.status == "timeout" and res.restarted and res.state_lost
    assert all(pid_gone(pid) for pid in pids), "a sandboxed process survived the kill"
    assert collect(runner, "echo ${lost-gone}")[0] == "gone\n"


def test_runner_started_by_a_thread_that_ended_keeps_running(boxed, collect):
    runner = boxed(ShellRunner)
    runner.stop()
    starter = threading.Thread(target=runner.start)
    starter.start()
    starter.join()
    out, res = collect(runner, "echo alive")  # bwrap --die-with-parent would have died with it
    assert res.ok and not res.restarted and out == "alive\n"


def test_death_by_signal_is_reported(boxed, collect):
    runner = boxed(ShellRunner)
    _out, res = collect(runner, "kill -9 $$")
    assert res.status == "died" and res.signal == "SIGKILL" and res.restarted
    assert collect(runner, "echo back")[0] == "back\n"


# -- preflight and errors -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["workspace", "read-only"])
def test_check_sandbox_runs_bwrap_and_reports_its_failure(mode, tmp_path):
    assert check_sandbox(Sandbox(mode), cwd=str(tmp_path)) is None  # the real bwrap works
    broken = tmp_path / "bwrap"
    broken.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(SandboxError, match=r"could not start \(bwrap: No permissions to create new namespace\)"):
        check_sandbox(Sandbox(mode, bwrap=str(broken)), cwd=str(tmp_path))
    assert check_sandbox(Sandbox("off", bwrap=str(tmp_path / "missing"))) is None  # not run


@pytest.mark.fast
def test_missing_bwrap_on_path(monkeypatch, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(SandboxError) as caught:
        check_sandbox(Sandbox("workspace"))
    assert str(caught.value) == ("the workspace sandbox needs bubblewrap: install it "
                                 "(apt-get install bubblewrap) or pass --sandbox off")


@pytest.mark.fast
def test_missing_bwrap_fails_the_runner_start(make_runner, tmp_path):
    runner = make_runner(ShellRunner, start=False, cwd=str(tmp_path),
                         sandbox=Sandbox("read-only", bwrap=str(tmp_path / "no-bwrap")))
    with pytest.raises(SandboxError, match=r"^the read-only sandbox needs bubblewrap: .* --sandbox off$"):
        runner.start()
    assert not runner.alive


def test_bwrap_that_fails_to_start_is_a_sandbox_error(make_runner, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    sandbox = Sandbox("workspace", bwrap=str(fake))
    with pytest.raises(SandboxError) as caught:
        check_sandbox(sandbox)
    assert "No permissions to create new namespace" in str(caught.value)
    runner = make_runner(PythonRunner, start=False, cwd=str(tmp_path), sandbox=sandbox)
    with pytest.raises(SandboxError) as caught:
        runner.start()
    message = str(caught.value)
    assert "\n" not in message and "No permissions" in message and "--sandbox off" in message


@pytest.mark.fast
def test_not_linux(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(SandboxError, match="needs Linux"):
        check_sandbox(Sandbox("workspace"))


@pytest.mark.fast
def test_modes():
    assert not Sandbox().active and Sandbox("off").wrap(["a", "b"], "/") == ["a", "b"]
    with pytest.raises(ValueError, match="unknown sandbox mode"):
        Sandbox("strict")
    assert Sandbox("workspace").describe() == "workspace sandbox, no network"


@pytest.mark.fast
def test_interpreter_files_under_tmp_stay_visible_in_the_private_tmp(tmp_path):
    """A venv or a driver script under /tmp is bound read-only into the sandbox's private /tmp."""
    from languages.process.plumbing import hidden_by_private_tmp

    venv_python = tmp_path / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text("")
    driver = tmp_path / "pkg" / "driver.js"
    driver.parent.mkdir()
    driver.write_text("")
    argv = [str(venv_python), "-q", str(driver), "/usr/bin/env"]
    expected = (str(tmp_path / "venv"), str(tmp_path / "pkg")) if str(tmp_path).startswith("/tmp/") \
        else ()
    assert hidden_by_private_tmp(argv) == expected


def test_in_the_sandbox_processes_left_running_and_input_waits_are_found(boxed, collect,
                                                                        tmp_path):
    sh = boxed(ShellRunner, spool_dir=str(tmp_path / "spool"), timeout=60)
    _, result = collect(sh, "x=1")
    assert result.background == ()  # bwrap and its init are the interpreter's, never reported
    _, result = collect(sh, "sleep 68 &")
    assert [p.command for p in result.background] == ["sleep 68"]
    out, result = collect(sh, "read -n 1 key < /dev/tty; echo $x")
    assert result.waiting_input and not result.restarted
    assert "the block itself sat reading the terminal" in result.summary()
    assert collect(sh, "echo $x")[0] == "1\n"  # the shell inside the sandbox was kept
