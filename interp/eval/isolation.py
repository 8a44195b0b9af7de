"""One process per check: a temporary folder, resource limits, a hard deadline, no network.

Inside bubblewrap (when it works here) the process sees a read-only root, a private /tmp, its
own folder as the only writable place, no network and its own PID namespace, so killing it
kills everything it started. Without bubblewrap it still runs in its own session with the
limits, and its whole process group (and pids cgroup, when there is one) is killed at the end.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from languages.process import hidden_by_private_tmp
from languages.limits import LimitGuard, Limits

DRIVER = Path(__file__).with_name("_check_driver.py")
_RESULT_CAP = 1 << 20


@dataclass(frozen=True)
class IsolationConfig:
    """Limits of each check process."""

    memory_mb: int = 2048
    processes: int = 64
    file_mb: int = 16
    sandbox: bool | None = None  # None: bubblewrap when it works here
    python: str = sys.executable


@dataclass(frozen=True)
class Finished:
    """How a check process ended: its report (parsed JSON from the pipe) or why there is none."""

    result: dict | None
    exit_code: int | None
    signal: int | None
    timed_out: bool
    seconds: float
    stderr: str
    sandboxed: bool


@cache
def bwrap_works() -> bool:
    """True if bubblewrap can start a process here with every namespace unshared."""
    found = shutil.which("bwrap")
    if not found or not sys.platform.startswith("linux"):
        return False
    try:
        done = subprocess.run([found, "--unshare-all", "--ro-bind", "/", "/", "--", "true"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def sandbox_argv(argv: list[str], workdir: str, needs: list[str]) -> list[str]:
    """`argv` inside bubblewrap: read-only root, private /tmp, `workdir` writable, no network;
    `needs` (the interpreter, the driver) stay readable even where they live under /tmp."""
    hidden = [arg for path in hidden_by_private_tmp(needs)
              for arg in ("--ro-bind", os.path.realpath(path), os.path.realpath(path))]
    return [shutil.which("bwrap") or "bwrap", "--unshare-all", "--die-with-parent",
            "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", "/dev/shm", *hidden, "--bind", workdir, workdir,
            "--chdir", workdir, "--", *argv]


def _environment(workdir: str) -> dict[str, str]:
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT") if k in os.environ}
    return {**keep, "HOME": workdir, "TMPDIR": workdir, "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1"}


def run_check(job: dict, deadline: float, config: IsolationConfig | None = None) -> Finished:
    """Run the check driver on `job` in a fresh folder; killed (all of it) after `deadline` s.

    The driver writes its report to a pipe whose descriptor number is its last argument."""
    config = config or IsolationConfig()
    sandboxed = bwrap_works() if config.sandbox is None else config.sandbox
    with tempfile.TemporaryDirectory(prefix="interp-eval-") as top:
        workdir = os.path.join(top, "work")
        os.mkdir(workdir, 0o700)
        job_path = os.path.join(workdir, "job.json")
        Path(job_path).write_text(json.dumps(job), encoding="utf-8")
        argv = [config.python, "-I", "-B", os.fspath(DRIVER), job_path]
        with open(os.path.join(top, "stderr"), "w+b") as errors:
            return _supervise(argv, workdir, errors, deadline, config, sandboxed)


def _supervise(argv, workdir, errors, deadline, config, sandboxed) -> Finished:
    guard = LimitGuard(Limits(memory_mb=config.memory_mb, processes=config.processes))
    read_end, write_end = os.pipe()
    argv = [*argv, str(write_end)]  # the driver reports on this descriptor
    if sandboxed:
        argv = sandbox_argv(argv, workdir, argv[:1] + argv[3:4])

    def child_setup() -> None:
        guard.child_setup()
        file_bytes = config.file_mb << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    started = time.monotonic()
    try:
        process = subprocess.Popen(argv, cwd=workdir, env=_environment(workdir),
                                   stdin=subprocess.DEVNULL, stdout=errors, stderr=errors,
                                   preexec_fn=child_setup, start_new_session=True,
                                   pass_fds=(write_end,))
    except OSError as exc:
        os.close(read_end)
        os.close(write_end)
        guard.close()
        return Finished(None, None, None, False, 0.0, f"cannot start the check: {exc}", sandboxed)
    os.close(write_end)
    data, timed_out = _collect(read_end, started + deadline)
    os.close(read_end)
    timed_out = timed_out or _wait(process, started + deadline)
    _kill_all(process, guard)
    seconds = time.monotonic() - started
    errors.seek(0)
    stderr = errors.read()[-2000:].decode("utf-8", "replace")
    code = process.returncode
    number = -code if code is not None and code < 0 else None
    if sandboxed and code is not None and code > 128:
        number = code - 128
    try:
        result = json.loads(data) if data else None
    except ValueError:
        result = None
    return Finished(result if isinstance(result, dict) else None,
                    code if number is None else None, number, timed_out, seconds, stderr, sandboxed)


def _collect(fd: int, until: float) -> tuple[bytes, bool]:
    """Read the result pipe until its writers close it or the deadline passes."""
    chunks, size = [], 0
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return b"".join(chunks), True
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks), False
        if size < _RESULT_CAP:
            chunks.append(chunk)
            size += len(chunk)


def _wait(process: subprocess.Popen, until: float) -> bool:
    """Wait for the process until the deadline; True if it was still running then."""
    try:
        process.wait(timeout=max(0.0, until - time.monotonic()) + 0.5)
        return False
    except subprocess.TimeoutExpired:
        return True


def _kill_all(process: subprocess.Popen, guard: LimitGuard) -> None:
    """SIGKILL the process group, everything in the cgroup, and reap the leader."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    guard.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
