"""The Jupyter runner: blocks run in a kernel, on this machine or behind a gateway.

Same contract as the process runners: state is kept across blocks, output streams as it comes,
interrupt() sends the kernel an interrupt and keeps its variables, a timeout interrupts and
restarts the kernel when the code does not stop within the grace period, a dead kernel is
restarted and reported, figures and tables become Display events.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from ..records import Event, Output
from .bundle import BundleReader, setup_source
from .kernel import (DEAD_STATES, DEFAULT_KERNELS, DEFAULT_TOKEN_ENV, Kernel,
                             KernelChoice, KernelError, parent_id)
from .result import KernelOutcome, is_idle, kernel_result, message_state, message_text
from ..process.limits import LimitGuard
from ..process.output_capture import OutputCapture, spool_path
from ..protocol import RunnerConfig

__all__ = ["DEFAULT_KERNELS", "DEFAULT_TOKEN_ENV", "JupyterRunner", "KernelChoice"]

KERNEL_GRACE = 2.0  # at least this long between an interrupt and a restart (network hops)
_TICK = 0.05  # the longest a Ctrl-C from a signal handler waits before it is sent
_ALIVE_EVERY = 0.25  # how often a quiet kernel is checked for death


class JupyterRunner:
    """Runs blocks in a Jupyter kernel; `for_language` binds it to a language and a kernel."""

    name: ClassVar[str] = "jupyter"
    aliases: ClassVar[tuple[str, ...]] = ()
    listed: ClassVar[bool] = False  # not offered to the model under its own name
    choice: ClassVar[KernelChoice] = KernelChoice()
    model_note: ClassVar[str] = ""  # told to the model (see Registry.model_notes)

    @classmethod
    def for_language(cls, language: str, aliases: tuple[str, ...],
                     choice: KernelChoice) -> type[JupyterRunner]:
        """A runner class that registers as `language` and runs its blocks in `choice`."""
        title = "".join(part.title() for part in re.split(r"[^A-Za-z0-9]+", language))
        note = ""
        if choice.gateway_url:
            note = (f"- {language} blocks run in a Jupyter kernel on a remote server "
                    f"({choice.gateway_url}), not on the user's machine: files, packages and "
                    f"environment there are the server's, not shared with other languages.")
        return type(f"Jupyter{title}Runner", (cls,), {
            "name": language, "aliases": tuple(aliases), "listed": True, "choice": choice,
            "model_note": note, "__doc__": f"Runs {language} blocks in {choice.describe()}."})

    def __init__(self, config: RunnerConfig | None = None) -> None:
        self.config = config or RunnerConfig()
        self._kernel: Kernel | None = None
        self._workdir: Path | None = None
        self._guard: LimitGuard | None = None
        self._runs = 0
        self._running = False
        self._interrupt_at: float | None = None
        self._interrupt_sent = False
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------
    @property
    def kernel_name(self) -> str | None:
        """The kernelspec asked for (None: the gateway's default)."""
        return self.choice.kernel or DEFAULT_KERNELS.get(self.name) or (
            None if self.choice.gateway_url else "python3")

    @property
    def alive(self) -> bool:
        """True while the kernel runs."""
        return self._kernel is not None and self._kernel.alive()

    def start(self) -> None:
        """Start the kernel unless it runs; KernelError (one line) when it cannot."""
        if self.alive:
            return
        self._shutdown_kernel()
        if self._workdir is None:  # kept across restarts: the model may still read earlier spools
            self._workdir = Path(tempfile.mkdtemp(prefix=f"interp-{self.name}-"))
        kernel = self._make_kernel()
        kernel.start(max(self.config.start_timeout, self.choice.start_timeout))
        self._kernel = kernel
        if kernel.language == "python":
            self._quiet(kernel, setup_source())

    def _make_kernel(self) -> Kernel:
        if self.choice.gateway_url:
            from .gateway import GatewayClient, GatewayKernel

            token = os.environ.get(self.choice.token_env) or None
            client = GatewayClient(self.choice.gateway_url, token, self.choice.token_env)
            return GatewayKernel(client, self.kernel_name)
        if self.config.sandbox.active:
            raise KernelError(f"the {self.config.sandbox.mode} sandbox does not cover local Jupyter"
                              f" kernels: use the built-in {self.name} runner or --sandbox off")
        from .local import LocalKernel, kernel_environment

        self._guard = self._guard or LimitGuard(self.config.limits)
        env = kernel_environment(self.config.env_remove, self.config.env)
        return LocalKernel(self.kernel_name, self.config.cwd or os.getcwd(), env,
                           self._workdir / "kernel.log", self._guard.child_setup)

    def _quiet(self, kernel: Kernel, code: str) -> None:
        """Run setup code silently and wait for it (bounded); its failure is not fatal."""
        request = kernel.execute(code, silent=True)
        deadline = time.monotonic() + self.choice.start_timeout
        while time.monotonic() < deadline:
            message = kernel.next_message(min(1.0, deadline - time.monotonic()))
            if message is not None and parent_id(message) == request and is_idle(message):
                return

    def stop(self) -> None:
        """Shut the kernel down and remove the runner's files."""
        self._shutdown_kernel()
        guard, self._guard = self._guard, None
        if guard is not None:
            guard.close()
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    def restart(self) -> None:
        """A new kernel with fresh state."""
        self._shutdown_kernel()
        self.start()

    def _shutdown_kernel(self) -> None:
        kernel, self._kernel = self._kernel, None
        if kernel is not None:
            kernel.shutdown()
        if self._guard is not None:
            self._guard.kill()

    def interrupt(self) -> None:
        """Interrupt the running block; safe from another thread or a signal handler."""
        with self._lock:
            if not self._running or self._interrupt_at is not None:
                return
            self._interrupt_at = time.monotonic()
        if threading.current_thread() is not self._thread:
            self._send_interrupt()  # else the run loop sends it within _TICK

    def _send_interrupt(self) -> None:
        with self._lock:
            if self._interrupt_sent or self._kernel is None:
                return
            self._interrupt_sent = True
            kernel = self._kernel
        try:
            kernel.interrupt()
        except (KernelError, OSError, RuntimeError):
            pass  # the grace period ends in a restart

    # -- running --------------------------------------------------------------
    def run(self, code: str, timeout: float | None = None, *,
            block: int | None = None) -> Iterator[Event]:
        """Run one block: Output events as they come, its displays, then one Result."""
        began = time.monotonic()
        lost = self._lost_note()
        self.start()
        self._runs += 1
        capture = OutputCapture(self._spool_path(block), self.config.head_chars,
                                self.config.tail_chars)
        reader = BundleReader(self.output_dir(), block if block is not None else self._runs)
        limit = timeout if timeout is not None else self.config.timeout
        with self._lock:
            self._interrupt_at, self._interrupt_sent = None, False
            self._thread = threading.current_thread()
            request = self._kernel.execute(code)
            self._running = True
        try:
            outcome = yield from self._collect(request, capture, reader, limit)
        finally:
            with self._lock:
                self._running = False
        if note := reader.finish_note():
            capture.feed(note)
            yield Output(note)
        outcome.interrupted = outcome.interrupted or self._interrupt_at is not None
        captured = capture.finish()
        outcome.breach = self._breach(outcome, captured.head + captured.tail)
        if outcome.died or outcome.stuck or outcome.breach:
            outcome.restarted, outcome.restart_error = self._replace_kernel(outcome)
        result = kernel_result(outcome, captured, tuple(reader.displays),
                               time.monotonic() - began, lost)
        yield from result.displays
        yield result

    def _collect(self, request: str, capture: OutputCapture, reader: BundleReader,
                 limit: float | None) -> Iterator[Output]:
        kernel, outcome = self._kernel, KernelOutcome()
        deadline = time.monotonic() + limit if limit else None
        check_at = time.monotonic() + _ALIVE_EVERY
        grace = max(self.config.grace, KERNEL_GRACE)
        while True:
            now = time.monotonic()
            if deadline and now >= deadline and not outcome.timed_out:
                outcome.timed_out = True
                self.interrupt()
            if self._interrupt_at is not None:
                self._send_interrupt()
                if now >= self._interrupt_at + grace:
                    outcome.stuck = True
                    return outcome
            message = kernel.next_message(_TICK)
            if message is None:
                if now >= check_at:
                    check_at = now + _ALIVE_EVERY
                    if not kernel.alive():
                        outcome.died = True
                        return outcome
                continue
            if message.get("msg_type") == "status" and message_state(message) in DEAD_STATES:
                outcome.died = True
                return outcome
            if parent_id(message) != request:
                continue
            if text := message_text(message, outcome, reader):
                capture.feed(text)
                yield Output(text)
            if is_idle(message):
                return outcome

    def _spool_path(self, block: int | None) -> str:
        return spool_path(self.config.spool_dir, self._workdir, self._runs, block,
                          f"{self.name}-{os.getpid()}-{id(self):x}")

    # -- after a block --------------------------------------------------------
    def _lost_note(self) -> str | None:
        """If the kernel died between blocks, say so (the next start replaces it)."""
        if self._kernel is None:
            return None
        stop = time.monotonic() + _TICK  # drop what earlier requests left (it notes a death)
        while self._kernel.next_message(0) is not None and time.monotonic() < stop:
            pass
        if self._kernel.alive():
            return None
        where = self._kernel.where
        self._shutdown_kernel()
        return f"the {where} died after the previous block, so this block ran in a new one"

    def _breach(self, outcome: KernelOutcome, output: str) -> str | None:
        """The note for a block that hit a resource limit (local kernels only), or None."""
        if self._guard is None or self._kernel is None or self._kernel.pid() is None:
            return None
        status = {"limit": "memory"} if outcome.error_name == "MemoryError" else {}
        return self._guard.check(self._kernel.pid(), status, outcome.died, output)

    def _replace_kernel(self, outcome: KernelOutcome) -> tuple[bool, str | None]:
        """Record how a dead kernel ended, then start a new one; (restarted, error)."""
        if outcome.died and self._kernel is not None:
            outcome.exit_code, outcome.signal = self._kernel.exit_status()
        try:
            self.restart()
        except KernelError as exc:
            self._shutdown_kernel()
            return False, str(exc)
        return True, None

    def output_dir(self) -> str:
        """The absolute folder where figures are saved (created with the first one)."""
        folder = os.path.expanduser(self.config.output_dir or "interp-output")
        return os.path.abspath(os.path.join(self.config.cwd or os.getcwd(), folder))

    def __del__(self) -> None:
        if getattr(self, "_kernel", None) is not None:
            try:
                self.stop()
            except Exception:  # interpreter shutdown: modules may already be gone
                pass
