"""Scoring isolation: solutions that loop, fork, eat memory, write outside their folder or open
a socket are stopped, contained and reported, with and without bubblewrap."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from helpers import hang_guard
from interp.eval.data import Problem
from interp.eval.isolation import IsolationConfig, bwrap_works
from interp.eval.scoring import check

REFERENCE = "def solve(x):\n    return x + 1\n"
TEST = "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(5) == 6\n"
PROBLEM = Problem(task_id="T/0", prompt="def solve(x):\n    \"\"\"x plus one\"\"\"\n",
                  entry_point="solve", reference=REFERENCE, test=TEST)

MODES = [pytest.param(True, id="bwrap"), pytest.param(False, id="no-sandbox")]


def _config(sandbox: bool, memory_mb: int = 512) -> IsolationConfig:
    if sandbox and not bwrap_works():
        pytest.skip("bubblewrap cannot run here")
    return IsolationConfig(sandbox=sandbox, memory_mb=memory_mb, processes=32)


def solution(body: str) -> str:
    """A solve() whose body is `body` (indented here)."""
    return "def solve(x):\n" + "".join(f"    {line}\n" for line in body.splitlines())


def test_a_correct_solution_passes_in_both_modes():
    for sandbox in (True, False):
        if sandbox and not bwrap_works():
            continue
        verdict = check(PROBLEM, solution("return x + 1"), config=_config(sandbox))
        assert verdict.passed, verdict


@pytest.mark.parametrize("sandbox", MODES)
def test_a_loop_times_out_with_the_protocols_feedback(sandbox):
    with hang_guard(60):
        verdict = check(PROBLEM, solution("while True:\n    pass"), config=_config(sandbox))
    assert not verdict.passed
    assert verdict.reason == "timed out"
    assert verdict.feedback == "Execution timed out."


@pytest.mark.parametrize("sandbox", MODES)
def test_a_loop_that_swallows_the_alarm_is_killed_at_the_deadline(sandbox):
    body = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
    with hang_guard(60):
        verdict = check(PROBLEM, solution(body), config=_config(sandbox), deadline=3)
    assert not verdict.passed
    assert verdict.reason == "timed out"
    assert verdict.feedback == "Execution timed out."


def _alive_named(name: bytes) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_bytes().strip() == name:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.parametrize("sandbox", MODES)
def test_a_fork_bomb_is_contained_and_every_process_killed(sandbox):
    name = f"evfork{os.getpid() % 100000}".encode()
    body = ("import posix, time\n"
            "with builtins_open('/proc/self/comm', 'wb') as f:\n"
            f"    f.write({name!r})\n"
            "while True:\n"
            "    try:\n"
            "        posix.fork()\n"
            "    except OSError:\n"
            "        time.sleep(0.01)")
    # /proc/self/comm is outside the folder, so the guard refuses open(): take the real one first
    code = "import io\nbuiltins_open = io.FileIO\n" + solution(body)
    with hang_guard(90):
        verdict = check(PROBLEM, code, config=_config(sandbox), deadline=4)
    assert not verdict.passed
    assert _alive_named(name) == []


@pytest.mark.parametrize("sandbox", MODES)
def test_eating_memory_hits_the_memory_limit(sandbox):
    body = "blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))"
    with hang_guard(60):  # a small limit, so that it is reached well within the test's 1 s
        verdict = check(PROBLEM, solution(body), config=_config(sandbox, memory_mb=160))
    assert not verdict.passed
    assert verdict.reason == "memory limit"
    assert "MemoryError" in verdict.feedback


@pytest.mark.parametrize("sandbox", MODES)
def test_writing_outside_the_folder_leaves_nothing_behind(sandbox, tmp_path):
    target = tmp_path / "escaped.txt"
    body = (f"for opener in (open, __import__('io').FileIO):\n"
            f"    try:\n"
            f"        opener({str(target)!r}, 'w').write('x')\n"
            f"    except Exception:\n"
            f"        pass\n"
            f"return x + 1")
    if not sandbox:  # only the guard stands in the way: the naive ways are refused
        body = body.replace(", __import__('io').FileIO", ",")
    verdict = check(PROBLEM, solution(body), config=_config(sandbox))
    assert verdict.passed, verdict
    assert not target.exists()


@pytest.mark.parametrize("sandbox", MODES)
def test_opening_a_socket_reaches_nothing(sandbox):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    port = listener.getsockname()[1]
    accepted = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    body = (f"import socket\n"
            f"try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'x')\n"
            f"    return 'connected'\n"
            f"except Exception as exc:\n"
            f"    return type(exc).__name__")
    try:
        verdict = check(PROBLEM, solution(body), config=_config(sandbox))
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()
    assert not verdict.passed
    assert "Actual Output: connected" not in verdict.feedback
    assert accepted == []


def test_the_hidden_tests_are_not_on_disk_for_the_solution():
    body = "import os\nreturn sorted(os.listdir('.'))"
    verdict = check(PROBLEM, solution(body))
    assert "Actual Output: []" in verdict.feedback


def test_a_crash_without_a_report_is_a_clear_failure():
    code = "import os\nos._exit(3)\n" + solution("return x + 1")
    verdict = check(PROBLEM, code)
    assert not verdict.passed
    assert verdict.reason.startswith("crashed")


def test_a_solution_that_forges_a_passing_report_does_not_pass():
    forge = ("import os, json\n"
             "for fd in range(3, 20):\n"
             "    try:\n"
             "        os.write(fd, json.dumps({'suites': [{'name': 'base', 'status': 'passed',"
             " 'feedback': '', 'tests': 1}]}).encode())\n"
             "    except OSError:\n"
             "        pass\n"
             "os._exit(0)\n")
    verdict = check(PROBLEM, forge + solution("return 0"))
    assert not verdict.passed
