"""Runner settings and the interface every language runner provides.

The process protocol behind `ProcessRunner` (languages/process/runner.py), for every built-in language:

- The interpreter runs on a pseudo-terminal, which carries its output (stdout and stderr
  together) and is its controlling terminal (Ctrl-C, SIGWINCH, the user's size). Nobody types
  into it: its input is non-canonical with VMIN = VTIME = 0, so reading /dev/tty gives
  end-of-file at once, and standard input is /dev/null.
- Commands arrive on a pipe (fd 3 for the Python and Node drivers, standard input for bash),
  one line each: `R TOKEN PATH` runs a code file, `P TOKEN` answers a ping (after a Ctrl-C),
  `C TOKEN` (Node; others treat it as a ping) confirms the end of a run. Each prints
  `__INTERP_TOKEN__` and a JSON status line when done, with fresh random tokens every time.
- **No faked end of a block.** A block runs in the same process as its driver, so it can
  always find its run's token (Python frames, the interpreter's memory, /proc/self/mem): the
  token cannot be made unreachable. A fake end is detected instead: right behind every run
  command the runner sends a sync command with a second fresh token, which the driver reads
  from the pipe only when the run has really ended (the Python driver reads the pipe a byte at
  a time, so the sync command is not even in its memory while the block runs). The run ends
  at the sync marker; the last run marker before it holds the real status, and any earlier
  copy (the block's own print) is dropped and reported (process/end_marker.py). Output after a fake
  marker stays with its block, so the runner never desyncs. bash keeps no history, and no
  token is in the environment or in a command line in /proc. What remains is code that reads
  the driver's command pipe itself (fd 3, or the descriptor bash saved its input on): it can
  steal the sync command, and the run then ends at its timeout or Ctrl-C.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

from .records import Event
from .process.limits import Limits
from .process.sandbox import Sandbox
from .process.terminal import user_terminal_size


@dataclass(frozen=True)
class RunnerConfig:
    """Settings shared by all runners."""

    timeout: float | None = None
    grace: float = 1.0
    start_timeout: float = 30.0
    cwd: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    env_remove: frozenset[str] = frozenset()  # variables of os.environ the runner must not see
    head_chars: int = 8000
    tail_chars: int = 8000
    spool_dir: str | None = None  # where full-output files are kept (None: a temp folder)
    python: str | None = None
    output_dir: str | None = None  # where Python saves figures; default ./interp-output in cwd
    sandbox: Sandbox = field(default_factory=Sandbox)
    limits: Limits = field(default_factory=Limits)
    # (rows, columns) for the runner's terminal, asked before each block and while it runs, so
    # the terminal follows the user's resizes; None (or a None answer): 40 x 160.
    terminal_size: Callable[[], tuple[int, int] | None] | None = user_terminal_size
    # Seconds without output after which a block whose process sits reading the terminal is
    # stopped as waiting for keyboard input (languages/process/tty_wait.py); None: never.
    input_wait: float | None = 3.0


@runtime_checkable
class Runner(Protocol):
    """What the agent needs from a language runner."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]

    def start(self) -> None: ...
    def run(self, code: str, timeout: float | None = None, *,
            block: int | None = None) -> Iterator[Event]: ...
    def interrupt(self) -> None: ...
    def stop(self) -> None: ...
    def restart(self) -> None: ...
