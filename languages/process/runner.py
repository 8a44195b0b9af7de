"""ProcessRunner: a long-lived interpreter on a pty that every built-in language runs in, and its run loop."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import ClassVar

import pexpect

from ..escapes import ScreenFilter
from ..protocol import RunnerConfig
from ..records import CapturedOutput, Event, Output
from .background import Background, BackgroundProcess
from .command_pipe import CommandPipe
from .limits import LimitGuard
from .end_marker import MarkerScanner, new_token
from .run_outcome import Outcome, build_result
from .output_capture import OutputCapture, StreamDecoder, encode_code, spool_path
from .plumbing import ProcessPlumbing, code_folder, hidden_by_private_tmp, write_new
from .spawn import RunnerStartError, session_members, signal_name, spawn
from .terminal_reader import TerminalClosed, TerminalReader
from .terminal import SizeFollower
from .tty_wait import InputWatch, allow_signals

__all__ = ["ProcessRunner"]




_TICK = 0.25
_STOP_SIGNALS = (signal.SIGTERM, signal.SIGKILL)  # to a program waiting for input after Ctrl-C


@cache
def _has_proc() -> bool:
    """Whether /proc can tell what processes are doing (Linux)."""
    return os.path.isdir("/proc")


class ProcessRunner(ProcessPlumbing):
    """A long-lived interpreter on a pty; each run ends at a fresh random marker."""

    name: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    suffix: ClassVar[str] = ".txt"
    command_fd: ClassVar[int] = 3  # where the interpreter reads commands (a pipe)

    def __init__(self, config: RunnerConfig | None = None) -> None:
        self.config = config or RunnerConfig()
        self._child: pexpect.spawn | None = None
        self._reader: TerminalReader | None = None
        self._workdir: Path | None = None  # spooled output
        self._codedir: Path | None = None  # the blocks' code files
        self._runs = 0
        self._leftover = b""
        self._running = False
        self._interrupt_at: float | None = None
        self._write_lock = threading.RLock()
        self._guard: LimitGuard | None = None
        self._commands: CommandPipe | None = None
        self._terminal: SizeFollower | None = None
        self.block: int | None = None  # the number of the block being (or last) run
        self.background = Background(self.name)  # processes blocks left running

    # -- hooks for subclasses -------------------------------------------------
    def argv(self) -> list[str]:
        """The interpreter command line."""
        raise NotImplementedError

    def env_overrides(self) -> dict[str, str]:
        """Variables this language sets on top of the user's environment."""
        return {}

    def setup_command(self) -> bytes:
        """Bytes sent once after spawning, before the first ping."""
        return b""

    def run_command(self, token: str, path: str) -> bytes:
        """The line that makes the interpreter run the code file and print the marker."""
        return f"R {token} {path}\n".encode()

    def ping_command(self, token: str) -> bytes:
        """The line that makes the interpreter print the marker and nothing else."""
        return f"P {token}\n".encode()

    def sync_command(self, token: str) -> bytes:
        """The line sent right behind every run command: print the marker once the run is over
        (see end_marker.py). A ping unless the driver tells the two apart."""
        return self.ping_command(token)

    def block_text(self, code: str) -> str:
        """The text of the code file the interpreter runs."""
        return code

    def read_status(self, status: dict | None) -> dict | None:
        """The driver's status line as the Result should see it (add `notes`, ...)."""
        return status

    def child_setup(self) -> None:
        """Runs in the child before exec, after the command pipe is on `command_fd`: stdin
        at end-of-file unless commands come on it."""
        if self.command_fd != 0:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)

    # -- lifecycle ------------------------------------------------------------
    @property
    def alive(self) -> bool:
        """True while the interpreter process is running."""
        return self._child is not None and self._child.isalive()

    def start(self) -> None:
        """Start the interpreter unless it is already running."""
        if self.alive:
            return
        if self._guard is not None:
            self._guard.close()
        if self._workdir is None:  # kept across restarts: the model may still read earlier spools
            self._workdir = Path(tempfile.mkdtemp(prefix=f"interp-{self.name}-"))
        if self._codedir is None:
            self._codedir = code_folder(self.name)
        cwd = self.config.cwd or os.getcwd()
        try:
            argv = self.argv()
            readable = (os.fspath(self._workdir), os.fspath(self._codedir), *hidden_by_private_tmp(argv))
            argv = self.config.sandbox.wrap(argv, cwd, readable)
            self._guard = LimitGuard(self.config.limits)
            self._commands = CommandPipe()
            self._terminal = SizeFollower(self.config.terminal_size)
            try:
                self._child = spawn(argv, cwd, self._environment(), self._preexec,
                                    size=self._terminal.size,
                                    pass_fds=(self._commands.read_end,))
            finally:
                self._commands.started()
            self._reader = TerminalReader(self._child)
            self._leftover = b""
            if setup := self.setup_command():
                self._send(setup)
            self._sync(self.config.start_timeout)
            self.background.started(self._child.pid, self._guard)
        except RunnerStartError as exc:
            self.stop()
            raise self.config.sandbox.start_error(exc) from None

    def stop(self) -> None:
        """Kill the interpreter and everything it started, and remove its files."""
        self.background.pause()
        self._reap(kill=True)
        guard, self._guard = self._guard, None  # stop() may run on two threads at once
        if guard is not None:
            guard.close()
        for folder in (self._workdir, self._codedir):
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        self._workdir = self._codedir = None

    def restart(self) -> None:
        """Stop and start again with fresh state."""
        self.stop()
        self.start()

    def interrupt(self) -> None:
        """Send Ctrl-C to the running block; safe to call from another thread or a signal handler."""
        with self._write_lock:  # checked and set under the lock: a late call must not hit the next run
            if not self._running or self._interrupt_at is not None or self._child is None:
                return
            self._interrupt_at = time.monotonic()
            try:
                self._child.sendintr()
            except OSError:
                pass

    # -- running --------------------------------------------------------------
    def run(self, code: str, timeout: float | None = None, *,
            block: int | None = None) -> Iterator[Event]:
        """Run one block, yielding Output events as they come and one Result at the end.

        `block` is the block's number in the conversation: it names the code file
        (`block-N.py`, `<block N>` in Python tracebacks), figures and the spool file; without
        it the runner counts its own runs."""
        began = time.monotonic()
        self.background.pause()  # the block reads the terminal now
        lost = self._check_exited()
        if self._child is None:  # _check_exited found it alive, or reaped it
            self.start()
        self._runs += 1
        self.block = block if block is not None else self._runs
        path = f"{self._codedir}/block-{self.block}{self.suffix}"
        write_new(path, encode_code(self.block_text(code)))
        capture = OutputCapture(self._spool_path(block), self.config.head_chars,
                                self.config.tail_chars)
        limit = timeout if timeout is not None else self.config.timeout
        token, confirm = new_token(), new_token()
        scanner = MarkerScanner(token)
        scanner.expect(confirm)
        self._interrupt_at = None
        self._prepare_terminal()
        self._send(self.run_command(token, path) + self.sync_command(confirm))
        self._running = True
        try:
            outcome = yield from self._collect(scanner, capture, limit)
        finally:
            with self._write_lock:
                self._running = False
        if outcome.interrupted and outcome.status is None and not (outcome.died or outcome.killed):
            # Ctrl-C cut the run command short, before its end (bash drops the rest of the
            # line): a ping, which puts the interpreter back (shell.py), before the next run.
            outcome.killed = not self._ping(self.config.grace)
        restarted, captured = False, capture.finish()
        breach = self._breach(outcome, captured)
        if outcome.died or outcome.killed or breach:
            code, number = self._reap(kill=True)
            if outcome.died:
                outcome.exit_code, outcome.signal = code, signal_name(number)
            restarted = self._start_fresh()
        result = build_result(outcome, captured, restarted, time.monotonic() - began)
        if not restarted and (left := self._left_running(outcome.status, result.duration)):
            result = replace(result, background=left)  # told after the headline (background_note)
        notes = tuple(note for note in (lost, breach) if note)
        if notes:
            result = replace(result, restarted=restarted or bool(lost), notes=(*notes, *result.notes))
        if self._reader is not None and self.background.drain(self._reader, self._leftover):
            self._leftover = b""  # output of the processes left running: it is in their log
        yield from result.displays  # figures and rich values, in order, before the Result
        yield result

    def _spool_path(self, block: int | None) -> str:
        return spool_path(self.config.spool_dir, self._workdir, self._runs, block,
                          f"{self.name}-{os.getpid()}-{id(self):x}")

    def _breach(self, outcome: Outcome, captured: CapturedOutput) -> str | None:
        """The note for a block that hit a resource limit (the runner is then restarted), or None."""
        if self._guard is None:
            return None
        leader = self._child.pid if self._child is not None else None
        return self._guard.check(leader, outcome.status or {}, outcome.died, captured.head + captured.tail)

    def _collect(self, scanner: MarkerScanner, capture: OutputCapture,
                 limit: float | None) -> Iterator[Output]:
        """Stream output until the run's last sync marker (end_marker.py); Ctrl-C and the
        deadline add a ping, which the run then waits for, at most `grace` seconds."""
        decoder, screen = StreamDecoder(), ScreenFilter()  # an editor's screen is not output
        deadline = time.monotonic() + limit if limit else None
        outcome, pinged = Outcome(), False
        watch = self._input_watch()
        data, self._leftover = self._leftover, b""
        while True:
            if text := screen.feed(decoder.feed(scanner.feed(data))):
                capture.feed(text)
                yield Output(text)
            if scanner.done:
                break
            now = time.monotonic()
            if data and watch is not None:
                watch.output(now)
            self._terminal.follow(self._child, every=0.05)
            if deadline and now >= deadline and not outcome.timed_out:
                outcome.timed_out = True
                self.interrupt()
            if watch is not None and self._interrupt_at is None:
                self._stop_if_waiting(watch, outcome, now)
            if self._interrupt_at is not None and not pinged:
                pinged, ping = True, new_token()
                scanner.expect(ping)
                self._send(self.ping_command(ping))
            if (pinged and now >= self._interrupt_at + self.config.grace
                    and not self._kill_readers(watch, outcome)):
                outcome.killed = True
                break
            try:
                data = self._reader.read(self._wait(now, deadline))
            except TerminalClosed:
                outcome.died = True
                break
        if tail := screen.feed(decoder.feed(scanner.flush(), final=True)) + screen.flush():
            capture.feed(tail)
            yield Output(tail)
        outcome.status, outcome.fakes = self.read_status(scanner.status), scanner.fakes
        outcome.interrupted = self._interrupt_at is not None
        self._leftover = scanner.rest if scanner.done else b""
        return outcome

    # -- processes a block left running, and a block waiting for keyboard input ---------------
    def _left_running(self, status: dict | None, seconds: float) -> tuple[BackgroundProcess, ...]:
        """The processes this block left running (background.py)."""
        if self._child is None:
            return ()
        folder = Path(self.config.spool_dir) if self.config.spool_dir else self._workdir
        return self.background.look(self._child.pid, self._guard, status, seconds, self.block,
                                    folder / f"background-{self.name}.log")

    def _input_watch(self) -> InputWatch | None:
        """The watch for a block waiting for keyboard input (tty_wait.py), or None."""
        if not self.config.input_wait or self._child is None or not _has_proc():
            return None
        leader, guard = self._child.pid, self._guard
        members = guard.members if guard is not None else lambda: None
        return InputWatch(self.config.input_wait, leader, self._child.child_fd,
                          lambda: members() or session_members(leader),
                          own=self.background.own | {leader})

    def _stop_if_waiting(self, watch: InputWatch, outcome: Outcome, now: float) -> None:
        """Stop the block (as Ctrl-C does) when a process of it sits reading the terminal."""
        if readers := watch.waiting(now):
            outcome.waiting = readers
            allow_signals(self._child.child_fd)
            self.interrupt()

    def _kill_readers(self, watch: InputWatch | None, outcome: Outcome) -> bool:
        """Stop the waiting programs that ignored Ctrl-C (never the interpreter): SIGTERM,
        which lets them clean up (vi removes its swap file), then, if they are still there,
        SIGKILL; each time the block gets another grace period to end. False when none is
        left to signal."""
        if watch is None or outcome.readers_signalled >= len(_STOP_SIGNALS):
            return False
        signum = _STOP_SIGNALS[outcome.readers_signalled]
        outcome.readers_signalled += 1
        if not watch.signal_strays(outcome.waiting, signum):
            return False
        self._interrupt_at = time.monotonic()
        return True

    def _wait(self, now: float, deadline: float | None) -> float:
        wait = _TICK
        if deadline:
            wait = min(wait, max(0.0, deadline - now))
        if self._interrupt_at is not None:
            wait = min(wait, max(0.0, self._interrupt_at + self.config.grace - now))
        return max(wait, 0.001)
