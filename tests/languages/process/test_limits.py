"""Per-runner resource limits, with real processes: a memory hog and a fork bomb."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from languages.process import limits as limits_module
from languages.node import NodeRunner
from languages.process.limits import DEFAULT_MEMORY_MB, DEFAULT_PROCESSES, Limits
from languages.python import PythonRunner
from languages.process.sandbox import Sandbox
from languages.shell import ShellRunner

pytestmark = pytest.mark.usefixtures("no_leaked_processes")
BOMB_LIMIT = Limits(memory_mb=512, processes=64)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def live_session(leader: int) -> list[int]:
    """Live (non-zombie) processes in the session `leader` started."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[3]) == leader and fields[0] not in "ZX":
            found.append(int(entry.name))
    return found


def test_defaults():
    limits = Limits()
    assert (limits.memory_mb, limits.processes) == (DEFAULT_MEMORY_MB, DEFAULT_PROCESSES)
    assert 256 <= DEFAULT_MEMORY_MB <= 8192 and DEFAULT_PROCESSES == 1024
    assert limits.describe().startswith(f"memory {DEFAULT_MEMORY_MB} MB per process, 1024 processes")
    assert Limits(None, None).describe() == "no memory limit, no process limit"
    assert Limits(processes=None).warning() is None
    with pytest.raises(ValueError, match="memory_mb must be a positive integer"):
        Limits(memory_mb=0)


def test_unenforceable_process_limit_is_a_warning_not_a_crash(monkeypatch, make_runner, collect):
    monkeypatch.setattr(limits_module, "pids_parent", lambda: None)
    monkeypatch.setattr(limits_module.os, "getuid", lambda: 0)
    limits = Limits(processes=64)
    assert limits.process_method() is None and "NOT enforced" in limits.describe()
    assert limits.warning().startswith("the process limit cannot be enforced: running as root")
    runner = make_runner(ShellRunner, limits=limits)
    assert collect(runner, "echo fine")[0] == "fine\n"


@pytest.mark.parametrize("cls, code", [
    (PythonRunner, "import resource; resource.getrlimit(resource.RLIMIT_DATA)[0] >> 20"),
    (ShellRunner, "echo $(( $(ulimit -d) / 1024 ))"),
    pytest.param(NodeRunner, "[1, 2, 3].map(x => x * 2).length * 0 + 1536", marks=needs_node),
], ids=["python", "bash", "node"])
def test_runners_work_under_a_memory_limit(make_runner, collect, cls, code):
    runner = make_runner(cls, limits=Limits(memory_mb=1536))
    out, res = collect(runner, code)
    assert res.ok and out.strip() == "1536"


def test_python_memory_hog_hits_the_limit_and_restarts(make_runner, collect):
    runner = make_runner(PythonRunner, limits=Limits(memory_mb=1024))
    collect(runner, "kept = 1")
    out, res = collect(runner, "b = bytearray(10**10)")
    assert res.status == "error" and "MemoryError" in res.error and res.restarted
    assert "the block hit the memory limit (1024 MB per process)" in res.notes
    assert "state were lost" in res.summary()
    out, res = collect(runner, "print(globals().get('kept', 'gone'))")
    assert res.ok and out == "gone\n"


def test_memory_error_without_a_limit_keeps_the_runner(make_runner, collect):
    runner = make_runner(PythonRunner, limits=Limits(memory_mb=None))
    collect(runner, "kept = 1")
    _out, res = collect(runner, "raise MemoryError('pretend')")
    assert res.status == "error" and not res.restarted and not res.notes
    assert collect(runner, "kept")[0] == "1\n"


@needs_node
def test_node_out_of_memory_is_reported(make_runner, collect):
    runner = make_runner(NodeRunner, limits=Limits(memory_mb=1024))
    _out, res = collect(runner, "const a = []; for (;;) a.push(new Array(1e6).fill(1.5))")
    assert res.restarted and "the block hit the memory limit (1024 MB per process)" in res.notes
    assert collect(runner, "1 + 1")[0] == "2\n"


def until_restarted(runner, collect, first) -> list:
    """first, then the Results of later blocks until one restarted the runner (at most 20)."""
    results = [first]
    while not any(r.restarted for r in results) and len(results) < 20:  # a background bomb is
        results.append(collect(runner, "echo next", timeout=10)[1])     # found by a later block
    return results


def bomb_limit_or_skip() -> str:
    """How BOMB_LIMIT is enforced here; skips the test when it cannot be (never run a free bomb)."""
    method = BOMB_LIMIT.process_method()
    if method is None:
        pytest.skip(f"the process limit cannot be enforced here: {BOMB_LIMIT.warning()}")
    return method


def assert_enforced(runner, collect, method: str) -> None:
    """The runner's interpreter really is under the process limit before any bomb runs."""
    if method == "cgroup":
        cgroup = runner._guard.cgroup
        assert cgroup is not None and (cgroup / "pids.max").read_text().strip() == "64"
        joined = Path(f"/proc/{runner._child.pid}/cgroup").read_text()
        assert f"/{cgroup.name}\n" in joined
    else:
        out, res = collect(runner, "ulimit -u")
        assert res.ok and int(out) <= runner._guard._nproc


@pytest.mark.parametrize("sandbox", [
    "off",
    pytest.param("workspace", marks=pytest.mark.skipif(shutil.which("bwrap") is None,
                                                        reason="bubblewrap is not installed")),
])
def test_fork_bomb_hits_the_process_limit(make_runner, collect, tmp_path, sandbox):
    method = bomb_limit_or_skip()
    runner = make_runner(ShellRunner, cwd=str(tmp_path), limits=BOMB_LIMIT, sandbox=Sandbox(sandbox))
    assert_enforced(runner, collect, method)
    leader, cgroup = runner._child.pid, runner._guard.cgroup
    out, res = collect(runner, "kept=1; :(){ :|:& };:", timeout=10)
    results = until_restarted(runner, collect, res)
    hit = [r for r in results if any("process limit (64 processes" in n for n in r.notes)]
    assert hit and hit[0].restarted, [r.summary() for r in results]
    out, res = collect(runner, "echo ${kept-gone}")
    assert res.ok and out == "gone\n"
    deadline = time.monotonic() + 30
    while live_session(leader) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not live_session(leader), "fork bomb processes survived"
    assert cgroup is None or not cgroup.exists()


def test_fork_bomb_that_blocks_ends_by_timeout(make_runner, collect):
    method = bomb_limit_or_skip()
    runner = make_runner(ShellRunner, limits=BOMB_LIMIT)
    assert_enforced(runner, collect, method)
    _out, res = collect(runner, ":(){ :|:& };:; sleep 100", timeout=3)
    assert res.status == "timeout"
    if method == "cgroup":  # exact; RLIMIT_NPROC detection counts the session and may see it later
        assert res.restarted and any("process limit" in note for note in res.notes), res.summary()
    assert until_restarted(runner, collect, res)[-1].restarted
    assert collect(runner, "echo next", timeout=30)[0] == "next\n"
