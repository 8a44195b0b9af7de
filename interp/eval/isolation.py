"""Two processes per check, each in a temporary folder with resource limits, under one hard
deadline, with no network.

The judge (`_check_driver.py`) holds the reference solution, the hidden tests and the report
pipe; the solution's process (`_solution_driver.py`) holds only the solution and the two pipes
its calls and answers travel on. Each gets its input from an unlinked file only it holds.
Inside bubblewrap (when it works here) each process sees a read-only root, a private /tmp, its
own folder as the only writable place, no network and its own PID namespace, so neither sees
the other, and killing one kills everything it started. Without bubblewrap each still runs in
its own session with the limits, and its whole process group (and pids cgroup, when there is
one) is killed at the end.
"""

from __future__ import annotations

import json
import os
import site
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

from languages.process.plumbing import hidden_by_private_tmp
from languages.process.limits import LimitGuard, Limits

DRIVER = Path(__file__).with_name("_check_driver.py")  # the judge
SOLUTION_DRIVER = Path(__file__).with_name("_solution_driver.py")
_RESULT_CAP = 1 << 20
# Runs a driver as an imported module (from its compiled file, see _compiled) with its folder
# on the path only while it is imported, and the site-packages folders after the standard
# library (`-S` skips the .pth files, whose hooks cost about 45 ms a start).
_BOOT = ("import sys,os;d=sys.argv.pop(1);s=sys.argv.pop(1);sys.path.insert(0,d);"
         "import {module} as m;sys.path.remove(d);"
         "sys.path.extend(p for p in s.split(os.pathsep) if p);m.main()")
_SETTLE = 2.0  # seconds a solution's process that ended on its own is given to be reaped


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
    """How a check ended: the judge's report (parsed JSON from its pipe) or why there is none,
    and how the solution's process ended (its exit status or signal, the tail of its stderr)."""

    result: dict | None
    exit_code: int | None
    signal: int | None
    timed_out: bool
    seconds: float
    stderr: str
    sandboxed: bool
    judge_stderr: str = ""


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


@cache
def _compiled() -> bool:
    """Write the drivers' bytecode beside them once (the checks run with -B and never do), so
    that a check does not compile them again; False where that folder cannot be written."""
    from importlib.machinery import SourceFileLoader

    keep, sys.dont_write_bytecode = sys.dont_write_bytecode, False
    try:
        for path in (DRIVER.with_name("_check_wire.py"), DRIVER, SOLUTION_DRIVER):
            SourceFileLoader(path.stem, os.fspath(path)).get_code(path.stem)
    except (OSError, SyntaxError):
        return False
    finally:
        sys.dont_write_bytecode = keep
    return True


def driver_argv(python: str, driver: Path, args: list[str]) -> list[str]:
    """The command that runs `driver`'s main() with `args` in a fresh interpreter."""
    _compiled()
    if os.path.realpath(python) != os.path.realpath(sys.executable):  # its own site, as it is
        return [python, "-I", "-B", "-c", _BOOT.format(module=driver.stem), os.fspath(driver.parent),
                "", *args]
    return [python, "-I", "-S", "-B", "-c", _BOOT.format(module=driver.stem),
            os.fspath(driver.parent), os.pathsep.join(site_folders()), *args]


@cache
def site_folders() -> tuple[str, ...]:
    """interp's own site-packages folders, which a solution may import from."""
    return tuple(p for p in site.getsitepackages() if os.path.isdir(p))


def _unlinked(folder: str, data: bytes):
    """A file with `data` and no name (only its descriptor reaches it), positioned at 0."""
    handle = tempfile.TemporaryFile(dir=folder)
    handle.write(data)
    handle.flush()
    handle.seek(0)
    return handle


class _Child:
    """One process of a check: started with its limits, in its folder, killed as a whole."""

    def __init__(self, argv: list[str], workdir: str, log: str, fds: tuple[int, ...],
                 config: IsolationConfig, sandboxed: bool) -> None:
        self.guard = LimitGuard(Limits(memory_mb=config.memory_mb, processes=config.processes))
        self.log = open(log, "w+b")
        if sandboxed:  # the interpreter, the drivers and site-packages, which may be under /tmp
            argv = sandbox_argv(argv, workdir, [argv[0], os.fspath(DRIVER), *site_folders()])
        file_bytes = config.file_mb << 20

        def child_setup() -> None:
            self.guard.child_setup()
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        try:
            self.process = subprocess.Popen(argv, cwd=workdir, env=_environment(workdir),
                                            stdin=subprocess.DEVNULL, stdout=self.log,
                                            stderr=self.log, preexec_fn=child_setup,
                                            start_new_session=True, pass_fds=fds)
        except OSError:
            self.close()
            raise

    def wait(self, until: float) -> bool:
        """Wait for the process until `until`; True if it was still running then."""
        try:
            self.process.wait(timeout=max(0.0, until - time.monotonic()))
            return False
        except subprocess.TimeoutExpired:
            return True

    def kill(self) -> None:
        """SIGKILL the process group, everything in the cgroup, and reap the leader."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.guard.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def ended(self, sandboxed: bool) -> tuple[int | None, int | None, str]:
        """(exit status, signal, stderr tail) of the reaped process."""
        code = self.process.returncode if hasattr(self, "process") else None
        number = -code if code is not None and code < 0 else None
        if sandboxed and code is not None and code > 128:
            number = code - 128
        self.log.seek(0)
        tail = self.log.read()[-2000:].decode("utf-8", "replace")
        return (code if number is None else None), number, tail

    def close(self) -> None:
        self.guard.close()
        self.log.close()


def run_check(job: dict, code: str, deadline: float,
              config: IsolationConfig | None = None) -> Finished:
    """Judge `code` on `job` (reference, tests, inputs) in two fresh processes; both are killed
    (all of them) after `deadline` s. The judge reports on a pipe only it and interp hold."""
    config = config or IsolationConfig()
    sandboxed = bwrap_works() if config.sandbox is None else config.sandbox
    with tempfile.TemporaryDirectory(prefix="interp-eval-") as top:
        folders = {}
        for name in ("judge", "work"):  # "work": the solution's folder
            folders[name] = os.path.join(top, name)
            os.mkdir(folders[name], 0o700)
        job = {**job, "sandboxed": sandboxed}
        with _unlinked(top, json.dumps(job).encode()) as job_file, \
                _unlinked(top, code.encode("utf-8", "surrogatepass")) as code_file:
            return _supervise(job, top, folders, job_file.fileno(), code_file.fileno(),
                              deadline, config, sandboxed)


def _supervise(job, top, folders, job_fd, code_fd, deadline, config, sandboxed) -> Finished:
    calls_r, calls_w = os.pipe()  # judge -> solution: each call's inputs
    answers_r, answers_w = os.pipe()  # solution -> judge: each call's outputs
    report_r, report_w = os.pipe()  # judge -> interp
    limits = job["limits"]
    started = time.monotonic()
    children: list[_Child] = []
    try:
        children.append(_Child(
            driver_argv(config.python, SOLUTION_DRIVER, [str(code_fd), str(calls_r), str(answers_w),
                                                        job["entry_point"], str(limits["load"])]),
            folders["work"], os.path.join(top, "solution.log"), (code_fd, calls_r, answers_w),
            config, sandboxed))
        children.append(_Child(
            driver_argv(config.python, DRIVER, [str(job_fd), str(calls_w), str(answers_r),
                                                str(report_w)]),
            folders["judge"], os.path.join(top, "judge.log"), (job_fd, calls_w, answers_r, report_w),
            config, sandboxed))
    except OSError as exc:
        for child in children:
            child.kill()
            child.close()
        for fd in (calls_r, calls_w, answers_r, answers_w, report_r, report_w):
            os.close(fd)
        return Finished(None, None, None, False, 0.0, f"cannot start the check: {exc}", sandboxed)
    for fd in (calls_r, calls_w, answers_r, answers_w, report_w):
        os.close(fd)
    solution, judge = children
    try:
        data, timed_out = _collect(report_r, started + deadline)
        os.close(report_r)
        result = _parse(data)
        if result is not None and _solution_ended(result):  # let it be reaped with its own status
            solution.wait(min(started + deadline, time.monotonic() + _SETTLE))
        solution.kill()
        timed_out = timed_out or judge.wait(started + deadline + 0.5)
        judge.kill()
        seconds = time.monotonic() - started
        code, number, stderr = solution.ended(sandboxed)
        judge_stderr = judge.ended(sandboxed)[2]
    finally:
        for child in children:
            child.close()
    return Finished(result, code, number, timed_out, seconds, stderr, sandboxed, judge_stderr)


def _solution_ended(result: dict) -> bool:
    suites = result.get("suites")
    return isinstance(suites, list) and any(isinstance(s, dict) and s.get("status") == "ended"
                                            for s in suites)


def _parse(data: bytes) -> dict | None:
    """The judge's report: one framed JSON object (see _check_wire), else None."""
    if len(data) < 8 or int.from_bytes(data[:8], "big") != len(data) - 8:
        return None
    try:
        result = json.loads(data[8:])
    except ValueError:
        return None
    return result if isinstance(result, dict) else None


def _collect(fd: int, until: float) -> tuple[bytes, bool]:
    """Read the report pipe until its writer closes it or the deadline passes."""
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
