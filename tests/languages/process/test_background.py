"""Processes a block leaves running: found with their pids and commands, their output between
blocks kept in a log instead of the next block, stopped on request and with the runner.
Real bash, python3 and node."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from helpers import hang_guard
from languages.process.background import BackgroundProcess, background_note, head_tail
from languages.process.tree import kill_tree
from languages.node import NodeRunner
from languages.python import PythonRunner
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(check, what: str):
    with hang_guard(30, what):
        while not (found := check()):
            pass
        return found


def test_a_server_started_with_an_ampersand_is_reported_and_stops_with_the_runner(
        make_runner, collect, tmp_path, pid_gone):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), spool_dir=str(tmp_path / "spool"))
    port = free_port()
    out, result = collect(sh, f"python3 -m http.server {port} --bind 127.0.0.1 &")
    assert result.ok and len(result.background) == 1, result
    server = result.background[0]
    assert f"-m http.server {port}" in server.command and server.alive
    assert server.output == str(tmp_path / "spool" / "background-shell.log")
    note = background_note(result.background)
    assert note == (f"left running in the background: pid {server.pid} `{server.command}` (its "
                    f"output: {server.output}), until interp exits or the user stops it")
    assert result.summary() == "ok"  # the headline; the note is told after it (BlockRecord.result)
    assert [p.pid for p in sh.background.processes()] == [server.pid]
    sh.stop()
    assert pid_gone(server.pid)


def test_output_between_blocks_goes_to_the_log_not_the_next_block(make_runner, collect,
                                                                   tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), spool_dir=str(tmp_path / "spool"))
    flag = tmp_path / "go"
    out, result = collect(sh, f"(while [ ! -e {flag} ]; do sleep 0.01; done; "
                              f"echo LATE-LINE) &")
    assert result.background and out == ""
    log = Path(result.background[0].output)
    flag.touch()
    wait_for(lambda: log.exists() and "LATE-LINE" in log.read_text(), "no line in the log")
    out, result = collect(sh, "echo next")
    assert out == "next\n" and not result.background  # nothing new, nothing old
    assert result.background == ()
    assert sh.background.processes() == []  # it has ended


def test_where_the_output_of_each_goes(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path), spool_dir=str(tmp_path / "spool"))
    _, nohup = collect(sh, "nohup sleep 60 &")
    _, own = collect(sh, "sleep 61 > own.log 2>&1 &")
    _, quiet = collect(sh, "sleep 62 > /dev/null 2>&1 &")
    assert nohup.background[0].output == str(tmp_path / "nohup.out")
    assert own.background[0].output == str(tmp_path / "own.log")
    assert quiet.background[0].discarded and quiet.background[0].output is None
    assert [p.command for p in sh.background.processes()] == ["sleep 60", "sleep 61", "sleep 62"]


def test_a_process_that_left_the_shell_is_found_in_the_cgroup(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path))
    if sh._guard is None or sh._guard.cgroup is None:
        pytest.skip("no pids cgroup here: only the interpreter's children are found")
    _, result = collect(sh, "(sleep 67 > /dev/null 2>&1 &)")  # a subshell's child: an orphan
    assert [p.command for p in result.background] == ["sleep 67"]


def test_a_block_that_starts_nothing_reports_nothing(make_runner, collect, tmp_path):
    sh = make_runner(ShellRunner, cwd=str(tmp_path))
    for code in ("x=1", "sleep 0.01 & wait", "ls > /dev/null"):
        _, result = collect(sh, code)
        assert result.background == (), code


def test_python_and_node_blocks_leave_processes_too(make_runner, collect, tmp_path):
    py = make_runner(PythonRunner, cwd=str(tmp_path), spool_dir=str(tmp_path / "spool"))
    _, result = collect(py, "import subprocess\nchild = subprocess.Popen(['sleep', '63'])")
    assert [p.command for p in result.background] == ["sleep 63"]
    js = make_runner(NodeRunner, cwd=str(tmp_path), spool_dir=str(tmp_path / "spool"))
    _, result = collect(js, "require('child_process').spawn('sleep', ['64'], "
                            "{stdio: 'ignore'}); 0")
    assert [p.command for p in result.background] == ["sleep 64"]
    assert result.background[0].discarded


def test_kill_tree_stops_a_process_and_what_it_started(make_runner, collect, tmp_path,
                                                       pid_gone):
    sh = make_runner(ShellRunner, cwd=str(tmp_path))
    _, result = collect(sh, "bash -c 'sleep 65 & sleep 66; wait' &")
    parent = result.background[0].pid
    children = wait_for(lambda: [p for p in _children_of(parent)], "no children")
    assert kill_tree(parent)
    assert pid_gone(parent) and all(pid_gone(child) for child in children)
    assert sh.background.processes() == []


def _children_of(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@pytest.mark.fast
def test_a_long_list_is_told_bounded_as_output_is_with_a_shared_log_named_once():
    many = [BackgroundProcess(1000 + n, f"sleep {n}", "shell", 1, 0.0, "/data/bg.log")
            for n in range(600)]
    note = background_note(many)
    assert note.startswith("left running in the background: 600 processes: pid 1000 `sleep 0`; ")
    assert note.endswith("; pid 1599 `sleep 599` (their output: /data/bg.log), until interp "
                         "exits or the user stops them")
    shown = note.count("pid ")
    assert f"… {600 - shown} more …" in note and note.count("/data/bg.log") == 1
    assert len(note) < 2 * 2000 + 200
    mixed = [BackgroundProcess(7, "server", "shell", 2, 0.0, "web.log"),
             BackgroundProcess(8, "worker", "shell", 2, 0.0, None, discarded=True)]
    assert background_note(mixed) == (
        "left running in the background: 2 processes: pid 7 `server` (its output: web.log); "
        "pid 8 `worker` (its output is discarded), until interp exits or the user stops them")


@pytest.mark.fast
def test_head_tail_keeps_both_ends_and_counts_what_is_left_out():
    items = [f"item{n}" for n in range(100)]
    assert head_tail(items[:3], 10, ", ") == "item0, item1, item2"
    cut = head_tail(items, 20, ", ")
    assert cut == "item0, item1, item2, … 95 more …, item98, item99"  # 20 characters or fewer each
    assert head_tail(["x" * 50, "y" * 50, "z" * 50], 10, "; ") == "x" * 50 + "; … 1 more …; " + "z" * 50
