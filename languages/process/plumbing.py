"""The process plumbing under ProcessRunner: the child's environment and set-up before exec,
the first ping that proves it ready, and reaping it (mixed into ProcessRunner)."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import pexpect

from . import noninteractive
from .end_marker import MarkerScanner, new_token
from .spawn import RunnerStartError, kill_session, signal_name
from .terminal_reader import TerminalClosed
from .terminal import reading_gives_eof

BASE_ENV = {"NO_COLOR": "1", "PAGER": "cat", "PYTHON_BASIC_REPL": "1"}
_NOT_INHERITED = ("COLUMNS", "LINES")  # programs must ask the terminal, which follows resizes


_IN_MEMORY = "/dev/shm"  # a tmpfs on Linux


def code_folder(name: str) -> Path:
    """A new private folder for a runner's code files, in memory where Linux has one: every
    run writes a new file, which costs 0.1-0.4 ms on a disk file system (ext4), 20 us here."""
    if sys.platform.startswith("linux") and os.access(_IN_MEMORY, os.W_OK | os.X_OK):
        try:
            return Path(tempfile.mkdtemp(prefix=f"interp-{name}-code-", dir=_IN_MEMORY))
        except OSError:
            pass
    return Path(tempfile.mkdtemp(prefix=f"interp-{name}-code-"))


def write_new(path: str, data: bytes) -> None:
    """Write a file (created or replaced, private) with plain system calls: a block's code file
    is written on every run, and pathlib's layers cost more than the writing."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def hidden_by_private_tmp(argv: list[str]) -> tuple[str, ...]:
    """Folders under /tmp the command needs (a venv, a driver script) that the sandbox's
    private /tmp would hide: the file's folder, or a venv's root for a `bin/` executable."""
    found = []
    for arg in argv:
        if arg.startswith("/tmp/") and os.path.exists(arg):
            path = Path(arg)
            found.append(os.fspath(path.parent.parent if path.parent.name == "bin" else path.parent))
    return tuple(found)


class ProcessPlumbing:
    """Starting, pinging and reaping a ProcessRunner's child."""

    def _reap(self, kill: bool) -> tuple[int | None, int | None]:
        child, self._child, self._reader = self._child, None, None
        if self._commands is not None:
            self._commands.close()
            self._commands = None
        if child is None:
            return None, None
        if kill:
            kill_session(child.pid)
            if (guard := self._guard) is not None:  # stop() on another thread may clear it
                guard.kill()
        try:
            child.wait()
        except pexpect.ExceptionPexpect:
            pass
        try:
            child.close(force=True)
        except (pexpect.ExceptionPexpect, OSError):
            pass
        return self.config.sandbox.exit_status(child.exitstatus, child.signalstatus)

    def _ping(self, limit: float) -> bool:
        """A ping answered within `limit` seconds (else the process is killed): True."""
        try:
            self._sync(limit)
        except RunnerStartError:
            return False
        return True

    def _sync(self, limit: float) -> None:
        """Wait for a ping's marker so that no earlier output is left in the pipe."""
        scanner = MarkerScanner(None)
        ping = new_token()
        scanner.expect(ping)
        self._send(self.ping_command(ping))
        deadline = time.monotonic() + limit
        seen = b""
        while not scanner.done:
            left = deadline - time.monotonic()
            if left <= 0:
                self._reap(kill=True)
                raise RunnerStartError(f"{self.name} did not become ready within {limit:g} s")
            try:
                seen = (seen + scanner.feed(self._reader.read(min(left, 0.25))))[-2000:]
            except TerminalClosed:
                if not self._child.isalive():
                    self._reap(kill=True)
                    text = seen.decode("utf-8", "replace").strip()
                    raise RunnerStartError(f"{self.name} exited while starting: {text[-500:]}") from None
        self._leftover = scanner.rest

    def _send(self, data: bytes) -> None:
        with self._write_lock:
            if self._commands is not None:
                self._commands.send(data)

    def _environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in self.config.env_remove and k not in _NOT_INHERITED}
        env.update(self.config.env)
        env.update(BASE_ENV)
        noninteractive.apply(env)
        env.update(self.env_overrides())
        env.setdefault("TERM", "dumb")
        if self.config.sandbox.active:
            env["TMPDIR"] = "/tmp"  # the sandbox's private, writable /tmp
        return env

    def _preexec(self) -> None:
        # Python ignores SIGPIPE and an ignored signal survives exec: give the child the default
        # back, or `yes | head` in bash prints "Broken pipe" and writers never stop.
        for name in ("SIGPIPE", "SIGXFSZ"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        if self.config.sandbox.active:  # bwrap ignores Ctrl-C; `env --default-signal=INT` restores it
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        if self._guard is not None:
            self._guard.child_setup()
        reading_gives_eof(1)
        self._commands.hand_over(self.command_fd)
        self.child_setup()

    def _check_exited(self) -> str | None:
        """If the process ended (or hit the process limit) between runs, clean up and say so."""
        if self._child is None:
            return None
        if self._child.isalive():
            if self._guard is None or not self._guard.breached(self._child.pid):
                return None
            self._reap(kill=True)
            return (f"{self._guard.process_note()} (a process left running by an earlier block), "
                    f"so this block ran in a new {self.name} process")
        code, number = self._reap(kill=True)
        how = f"was killed by {signal_name(number)}" if number else f"exited with status {code}"
        return f"the {self.name} process {how} after the previous block, so this block ran in a new one"

    def _start_fresh(self) -> bool:
        """Start a new process after a death or a kill; True on success."""
        try:
            self.start()
        except RunnerStartError:
            return False
        return True

    def _prepare_terminal(self) -> None:
        """Before each run: the user's size (asked at most every 50 ms, as while a block runs),
        and reads of the terminal at end-of-file again (a block may have changed its mode)."""
        if self._child is not None and self._terminal is not None:
            self._terminal.follow(self._child, every=0.05)
            reading_gives_eof(self._child.child_fd)

    def __del__(self) -> None:
        if getattr(self, "_child", None) is not None:
            try:
                self.stop()
            except Exception:  # interpreter shutdown: modules may already be gone
                pass

