"""Starting a runner's process, and finding and killing every process it started."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Mapping
from pathlib import Path

import pexpect
import ptyprocess


class RunnerError(Exception):
    """A runner could not do what was asked."""


class RunnerStartError(RunnerError):
    """The interpreter process could not be started."""


class _Spawn(pexpect.spawn):
    """pexpect.spawn that keeps some inherited file descriptors open in the child."""

    def __init__(self, *args, pass_fds: tuple[int, ...] = (), **kwargs) -> None:
        self._pass_fds = pass_fds
        super().__init__(*args, **kwargs)

    def _spawnpty(self, args, **kwargs):
        return ptyprocess.PtyProcess.spawn(args, pass_fds=self._pass_fds, **kwargs)


def spawn(argv: list[str], cwd: str, env: Mapping[str, str], preexec: Callable[[], None],
          size: tuple[int, int] = (40, 160), pass_fds: tuple[int, ...] = ()) -> pexpect.spawn:
    """Start argv on a fresh pty (its own session, `size` rows x columns) with no echo and no
    artificial delays; `pass_fds` stay open for `preexec`."""
    try:
        child = _Spawn(argv[0], argv[1:], cwd=cwd, env=dict(env), echo=False, encoding=None,
                       preexec_fn=preexec, dimensions=size, timeout=None, pass_fds=pass_fds)
    except (pexpect.ExceptionPexpect, OSError) as exc:
        raise RunnerStartError(f"could not start {argv[0]}: {exc}") from None
    child.delaybeforesend = None
    child.ptyproc.delayafterclose = 0
    child.ptyproc.delayafterterminate = 0.02
    return child


def session_members(leader: int) -> list[int]:
    """PIDs whose session or process group is `leader` (Linux /proc; process group elsewhere)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 3 and (int(fields[2]) == leader or int(fields[3]) == leader):
            found.append(int(entry.name))
    return found


def kill_session(leader: int) -> None:
    """SIGKILL the leader, its process group and everything else in its session."""
    for pid in [leader, *session_members(leader)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(leader, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def signal_name(number: int | None) -> str | None:
    """'SIGSEGV' for 11, or None."""
    if number is None:
        return None
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
