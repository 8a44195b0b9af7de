"""The local model's server: llama.cpp's own OpenAI-compatible server, started and stopped by interp.

The server runs in a child process (`interp.models.local.serve`, same Python, xllamacpp
imported there), not in interp's own: xllamacpp's `Server()` holds the GIL for the whole
model load (measured: a 50 ms ticker thread ran twice during a 42 s load), so neither a
status line nor Ctrl-C could work while it loads in-process. The child binds 127.0.0.1 on a
free port, ignores the terminal's Ctrl-C (it has its own session), and ends when interp
closes its standard input (`stop()`, on every orderly exit) or dies (stdin reaches EOF; on
Linux it also gets SIGKILL through PR_SET_PDEATHSIG, even while loading; see launcher.py for
why it is forked by a thread that lives as long as interp).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from interp.models.local.launcher import Launcher

XLLAMACPP_PIN = "xllamacpp==2026.10.11549"
INSTALL_HINT = ("the local model needs llama.cpp's server (the xllamacpp package): "
                "pip install 'interp[local]'  (or: pip install " + XLLAMACPP_PIN + ")")


class LocalServerError(Exception):
    """The local model server could not be started or stopped working; one-line message."""


@dataclass(frozen=True)
class LocalConfig:
    """How to run the local model server."""

    model: Path
    threads: int
    context: int = 0  # tokens; 0 = the model's trained context length (from the GGUF)
    temperature: float | None = None  # None: llama.cpp's default
    predict: int | None = None  # most tokens per reply; None: no limit
    load_timeout: float = 600.0  # seconds the load may take before interp gives up

    def to_child(self) -> dict:
        """The JSON the child process is started with."""
        return {"model": str(self.model), "threads": self.threads, "context": self.context,
                "temperature": self.temperature, "predict": self.predict}


@dataclass(frozen=True)
class ServerInfo:
    """A loaded server: where it listens and what llama.cpp reports about the model."""

    address: str  # http://127.0.0.1:PORT
    n_ctx: int  # the context window llama.cpp allocated, in tokens
    load_seconds: float
    supports_tools: bool  # the model's chat template handles tools
    vision: bool


@dataclass(frozen=True)
class LoadStatus:
    """Progress of a load, for a status line: phase is loading, ready, failed or interrupted."""

    phase: str
    text: str
    seconds: float = 0.0


StatusCallback = Callable[[LoadStatus], None]


def xllamacpp_installed() -> bool:
    """Whether the xllamacpp package can be imported (checked without importing it)."""
    from importlib.util import find_spec

    try:
        return find_spec("xllamacpp") is not None
    except (ImportError, ValueError):  # a broken install counts as none
        return False


class LocalServer:
    """One llama.cpp server process for one model; started on the first `wait()`."""

    def __init__(self, config: LocalConfig, on_status: StatusCallback | None = None, *,
                 python: str | None = None, log_dir: Path | None = None) -> None:
        self.config = config
        self.on_status = on_status
        self.python = python or sys.executable
        self.log_dir = log_dir  # where llama.cpp's log goes (default: the temp dir)
        self._proc: subprocess.Popen | None = None
        self._log: Path | None = None
        self._info: ServerInfo | None = None
        self._started = 0.0
        self._launcher = Launcher()

    @property
    def info(self) -> ServerInfo | None:
        """The loaded server, or None before it is ready."""
        return self._info if self.alive() else None

    @property
    def log_path(self) -> Path | None:
        """llama.cpp's log of the current (or last failed) server."""
        return self._log

    def alive(self) -> bool:
        """Whether the server process is running."""
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Start the server process unless it is running; returns at once."""
        if self.alive():
            return
        if self._proc is not None:  # it died: release its pipes
            _end(self._proc)
        self._proc, self._info = None, None
        self._log = None  # a kept log (of a failure) stays on disk for the person to read
        if not xllamacpp_installed():
            raise LocalServerError(INSTALL_HINT)
        fd, log = tempfile.mkstemp(prefix="interp-llama-", suffix=".log", dir=self.log_dir)
        self._log = Path(log)
        self._started = time.monotonic()
        try:
            self._proc = self._launcher.popen(
                [self.python, "-m", "interp.models.local.serve",
                 json.dumps({**self.config.to_child(), "log": log})],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=fd,
                start_new_session=True, env=_child_env())
        except (OSError, TimeoutError) as exc:  # no such Python, or no thread to start it
            self._cleanup()
            raise LocalServerError(f"the local model server could not be started: {exc}") from None
        finally:
            os.close(fd)

    def wait(self) -> ServerInfo:
        """Start if needed and wait (at most `load_timeout`) until the model is loaded.

        Ctrl-C stops the wait, not the load: a later `wait()` picks it up again."""
        if self.info is not None:
            return self._info
        crashed = self._proc.returncode if self.died() else None
        self.start()
        name = self.config.model.name
        self._status("loading", f"Loading the local model {name}" if crashed is None else
                     f"The local model server stopped (status {crashed}); loading {name} again")
        try:
            while self._info is None:
                self._take_announcement(0.5)
        except KeyboardInterrupt:
            self._status("interrupted", f"Stopped waiting for {name} (it keeps loading)")
            raise
        except LocalServerError as exc:
            self._status("failed", str(exc))
            self.stop(keep_log=True)
            raise
        self._status("ready", f"Local model {name} ready: context {self._info.n_ctx} tokens, "
                              f"{self.config.threads} thread{'s' * (self.config.threads != 1)}")
        return self._info

    def loading(self) -> float | None:
        """Seconds since a load started that has not finished yet (read without waiting), or
        None when the model is loaded, failed to load (`wait()` says why) or never started."""
        if self._proc is None or self._info is not None or self._proc.poll() is not None:
            return None
        try:
            self._take_announcement(0)
        except LocalServerError:
            return None  # wait() meets the failure again and reports it
        return None if self._info is not None else time.monotonic() - self._started

    def _status(self, phase: str, text: str) -> None:
        if self.on_status is not None:
            self.on_status(LoadStatus(phase, text, time.monotonic() - self._started))

    def _take_announcement(self, timeout: float) -> None:
        """Read the child's one JSON line if it comes within `timeout` seconds (and the load
        timeout); sets the server's info when it says the model is ready."""
        proc = self._proc
        left = self._started + self.config.load_timeout - time.monotonic()
        if left <= 0:
            raise LocalServerError(f"the local model did not load within "
                                   f"{self.config.load_timeout:g} s")
        ready, _, _ = select.select([proc.stdout], [], [], min(left, timeout))
        if not ready:
            return
        line = proc.stdout.readline()
        if not line:
            proc.wait(timeout=10)
            raise LocalServerError(self._failure(f"the local model server exited "
                                                 f"(status {proc.returncode}) while loading"))
        try:
            record = json.loads(line)
        except ValueError:
            return  # not ours (a library printing to stdout)
        if "ready" not in record:
            raise LocalServerError(self._failure("the local model did not load",
                                                 str(record.get("error") or "")))
        ready = record["ready"]
        self._info = ServerInfo(ready["address"], int(ready.get("n_ctx") or 0),
                                float(ready.get("load_seconds") or 0.0),
                                bool(ready.get("supports_tools")), bool(ready.get("vision")))

    def _failure(self, what: str, fallback: str = "") -> str:
        """`what`, with llama.cpp's first error line and where its whole log is."""
        detail = _first_error(self._log) or fallback
        where = f" (llama.cpp's log: {self._log})" if self._log else ""
        return f"{what}{': ' + detail if detail else ''}{where}"

    def died(self) -> str | None:
        """If the server was loaded and has since exited: a one-line description."""
        if self._info is None or self._proc is None or self._proc.poll() is None:
            return None
        return self._failure(f"the local model server stopped (status {self._proc.returncode})")

    def stop(self, *, keep_log: bool = False) -> None:
        """Stop the server (close its stdin, then terminate, then kill); safe to repeat."""
        proc, self._proc, self._info = self._proc, None, None
        if proc is not None:
            _end(proc)
        if not keep_log:
            self._cleanup()

    def _cleanup(self) -> None:
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _end(proc: subprocess.Popen) -> None:
    """End the child: EOF on its stdin, then SIGTERM after 2 s, then SIGKILL after 5 more."""
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:  # a broken pipe: it is gone already
        pass
    for send, grace in ((None, 2.0), (proc.terminate, 5.0), (proc.kill, 5.0)):
        if send is not None:
            send()
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    if proc.stdout is not None:
        proc.stdout.close()


def _first_error(log: Path | None) -> str:
    """The first error line of llama.cpp's log, without its time stamp and source prefix."""
    if log is None or not log.exists():
        return ""
    for line in log.read_text(errors="replace").splitlines():
        stamp, level, rest = (line.split(None, 2) + ["", ""])[:3]
        if level == "E":
            return rest.split(": ", 1)[-1].removeprefix("error loading model: ").strip()
    return ""


def _child_env() -> dict[str, str]:
    """The child's environment, without model keys (it needs none)."""
    return {k: v for k, v in os.environ.items()
            if not k.endswith(("_API_KEY", "_API_TOKEN")) and k != "INTERP_API_KEY"}


def physical_cores() -> int:
    """Physical CPU cores this process may use (hyperthread siblings counted once)."""
    try:
        cpus = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
    cores = set()
    for cpu in cpus:
        base = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            cores.add((base / "physical_package_id").read_text().strip()
                      + ":" + (base / "core_id").read_text().strip())
        except OSError:
            cores.add(str(cpu))
    return max(1, len(cores))


def default_threads() -> int:
    """Physical cores minus those other processes keep busy now (1-minute load), at least 1.

    Measured on a 2-core machine (Qwen2.5-Coder-0.5B Q4, see README "Local model"): with the
    machine otherwise quiet 2 threads generated about 37 tokens/s and 1 thread 21; with one
    other CPU-bound process, 2 threads fell to about 10 and 1 thread kept about 20. llama.cpp's
    threads wait for each other at every step, so one descheduled thread stalls them all."""
    cores = physical_cores()
    try:
        busy = int(os.getloadavg()[0])
    except (AttributeError, OSError):
        busy = 0
    return max(1, cores - busy)
