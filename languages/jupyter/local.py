"""A kernel on this machine, started from an installed kernelspec through jupyter_client."""

from __future__ import annotations

import os
import queue
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .kernel import KernelError, execute_content, import_error, missing_kernel
from ..process.spawn import kill_session


class LocalKernel:
    """A kernel process started by jupyter_client's KernelManager, talked to over ZeroMQ."""

    def __init__(self, name: str, cwd: str, env: Mapping[str, str], log_path: Path,
                 child_setup: Callable[[], None] | None = None) -> None:
        self.name = name
        self.where = f"local kernel {name}"
        self.language = ""
        self._cwd = cwd
        self._env = dict(env)
        self._log_path = log_path
        self._child_setup = child_setup
        self._manager = None
        self._client = None
        self._log = None

    def start(self, timeout: float) -> None:
        """Start the kernel and wait until it answers; KernelError (one line) if it cannot."""
        try:
            from jupyter_client import KernelManager
            from jupyter_client.kernelspec import NoSuchKernel
        except ImportError:
            raise import_error("jupyter_client") from None
        manager = KernelManager(kernel_name=self.name)
        try:
            self.language = manager.kernel_spec.language or ""
        except NoSuchKernel:
            raise missing_kernel(self.name, _installed(), "installed here") from None
        self._log = open(self._log_path, "ab")
        extra = {"preexec_fn": self._child_setup} if self._child_setup else {}
        try:
            manager.start_kernel(cwd=self._cwd, env=self._env, stdout=self._log,
                                 stderr=self._log, **extra)
        except (OSError, RuntimeError, ValueError) as exc:
            self.shutdown()
            raise KernelError(f"the {self.where} could not be started: {exc}") from None
        self._manager = manager
        self._client = manager.client()
        self._client.start_channels()
        try:
            self._client.wait_for_ready(timeout=timeout)
        except RuntimeError as exc:
            detail = self._log_tail() or str(exc)
            self.shutdown()
            raise KernelError(f"the {self.where} did not start: {detail}") from None

    def execute(self, code: str, silent: bool = False) -> str:
        """Send an execute_request; its msg_id."""
        return self._client.execute(**execute_content(code, silent))

    def next_message(self, timeout: float) -> dict[str, Any] | None:
        """The next IOPub message, or None after `timeout` seconds."""
        self._drain_shell()
        try:  # the channel itself: the client's wrapper runs an event loop per call
            return self._client.iopub_channel.get_msg(timeout=timeout)
        except queue.Empty:
            return None

    def _drain_shell(self) -> None:
        """Drop the shell replies: everything the runner needs also comes on IOPub."""
        channel = self._client.shell_channel
        while channel.msg_ready():
            channel.get_msg(timeout=0)

    def interrupt(self) -> None:
        """Interrupt the running code (SIGINT, or an interrupt_request for such kernels)."""
        if self._manager is not None:
            self._manager.interrupt_kernel()

    def alive(self) -> bool:
        """True while the kernel process runs (not while it is a zombie: a killed
        multi-threaded process is one until its last thread has exited, before it can be
        reaped)."""
        return self._manager is not None and self._manager.is_alive() and \
            not _exiting(self.pid())

    def exit_status(self) -> tuple[int | None, int | None]:
        """(exit code, signal number) of a kernel process that ended."""
        process = _process(self._manager)
        code = process.poll() if process is not None else None
        if code is None:
            return None, None
        return (None, -code) if code < 0 else (code, None)

    def pid(self) -> int | None:
        """The kernel's process id."""
        return getattr(_process(self._manager), "pid", None)

    def shutdown(self) -> None:
        """Kill the kernel and every process its code started; close the channels."""
        client, manager, self._client, self._manager = self._client, self._manager, None, None
        if client is not None:
            client.stop_channels()
        if manager is not None:
            pid = getattr(_process(manager), "pid", None)
            if pid is not None:
                kill_session(pid)
            try:
                manager.shutdown_kernel(now=True)
            except (OSError, RuntimeError):
                pass
        if self._log is not None:
            self._log.close()
            self._log = None

    def _log_tail(self) -> str:
        try:
            text = self._log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""


def _exiting(pid: int | None) -> bool:
    """True when /proc shows the process as a zombie or dead (False where there is no /proc)."""
    if pid is None:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:stat.rfind(")") + 3] in ("Z", "X")


def _process(manager):
    """The Popen of a local kernel (jupyter_client's LocalProvisioner), or None."""
    return getattr(getattr(manager, "provisioner", None), "process", None)


def _installed() -> list[str]:
    from jupyter_client.kernelspec import KernelSpecManager

    try:
        return list(KernelSpecManager().find_kernel_specs())
    except OSError:
        return []


def kernel_environment(env_remove: frozenset[str], extra: Mapping[str, str]) -> dict[str, str]:
    """The environment of a local kernel: ours without the model's keys, plus the settings'."""
    env = {k: v for k, v in os.environ.items() if k not in env_remove}
    env.update(extra)
    env.pop("MPLBACKEND", None)  # ipykernel then shows figures inline (as image/png)
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # ipykernel's debugger warning
    return env
