"""Running one hook command: `bash -c COMMAND` in the session's folder, its own process group,
JSON on its standard input, standard output and error captured up to OUTPUT_LIMIT bytes
each, killed (with everything it started) at its time bound. Its environment is interp's
without the variables runners never see (the model's keys, interp's tokens), plus
INTERP_PROJECT_DIR and CLAUDE_PROJECT_DIR (the session's folder), so scripts written for
Claude Code find it where they look."""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass

OUTPUT_LIMIT = 1 << 20  # bytes of standard output (and of error) kept; the rest is read and dropped
KILL_WAIT = 2.0  # seconds to wait for the process after killing it
PROJECT_VARIABLES = ("INTERP_PROJECT_DIR", "CLAUDE_PROJECT_DIR")


@dataclass(frozen=True)
class Ran:
    """How a command ended: its exit status (None when it did not end by itself), what it
    printed, and, when it could not run or was stopped, why."""

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    problem: str | None = None  # "timed out after 10 s", "cannot start: ..."


def hook_environment(cwd: str, remove: frozenset[str] = frozenset(),
                     environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """interp's environment less `remove` (what runners never see), with the project folder."""
    environ = os.environ if environ is None else environ
    env = {name: value for name, value in environ.items() if name not in remove}
    env.update({name: cwd for name in PROJECT_VARIABLES})
    return env


def run_command(command: str, stdin: str, timeout: float, cwd: str,
                env: Mapping[str, str]) -> Ran:
    """Run `command` with bash (sh where there is none) until it ends or `timeout` seconds
    pass; never raises."""
    shell = shutil.which("bash", path=env.get("PATH")) or "/bin/sh"
    try:
        process = subprocess.Popen([shell, "-c", command], cwd=cwd, env=dict(env),
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        return Ran(None, problem=f"cannot start: {exc.strerror or exc}")
    out, err, ended = _talk(process, stdin.encode("utf-8"), time.monotonic() + timeout)
    if not ended:
        _kill(process)
        return Ran(None, _text(out), _text(err), f"timed out after {timeout:g} s")
    return Ran(process.returncode, _text(out), _text(err))


def _talk(process: subprocess.Popen, data: bytes, deadline: float
          ) -> tuple[bytearray, bytearray, bool]:
    """Write `data`, read both outputs (bounded) until the process closes them and ends, or
    the deadline passes: (stdout, stderr, ended)."""
    captured = {process.stdout: bytearray(), process.stderr: bytearray()}
    with selectors.DefaultSelector() as selector:
        for stream in captured:
            os.set_blocking(stream.fileno(), False)
            selector.register(stream, selectors.EVENT_READ)
        if data:
            os.set_blocking(process.stdin.fileno(), False)
            selector.register(process.stdin, selectors.EVENT_WRITE)
        else:
            process.stdin.close()
        view = memoryview(data)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return *captured.values(), False
            for key, _ in selector.select(left):
                stream = key.fileobj
                if stream is process.stdin:
                    view = _write(selector, process.stdin, view)
                    continue
                chunk = os.read(stream.fileno(), 65536)
                if not chunk:
                    selector.unregister(stream)
                    stream.close()
                elif len(captured[stream]) < OUTPUT_LIMIT:
                    captured[stream] += chunk[:OUTPUT_LIMIT - len(captured[stream])]
    try:
        process.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return *captured.values(), False
    return *captured.values(), True


def _write(selector, stdin, view: memoryview) -> memoryview:
    """Write what the pipe takes; close it when all is written or the reader has gone."""
    try:
        view = view[os.write(stdin.fileno(), view[:65536]):]
    except (BrokenPipeError, OSError):
        view = view[len(view):]
    if not view:
        selector.unregister(stdin)
        stdin.close()
    return view


def _kill(process: subprocess.Popen) -> None:
    """Kill the command and everything it started (its process group), and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    for stream in (process.stdin, process.stdout, process.stderr):
        try:
            stream.close()
        except OSError:
            pass
    try:
        process.wait(KILL_WAIT)
    except subprocess.TimeoutExpired:
        pass


def _text(data: bytes) -> str:
    return bytes(data).decode("utf-8", "replace")
