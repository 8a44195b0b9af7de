"""Runner settings and the interface every language runner provides."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

from .events import Event
from .limits import Limits
from .sandbox import Sandbox
from .terminal import user_terminal_size


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
    spool_dir: str | None = None
    python: str | None = None
    output_dir: str | None = None  # where Python saves figures; default ./interp-output in cwd
    sandbox: Sandbox = field(default_factory=Sandbox)
    limits: Limits = field(default_factory=Limits)
    # (rows, columns) for the runner's terminal, asked before each block and while it runs, so
    # the terminal follows the user's resizes; None (or a None answer): 40 x 160.
    terminal_size: Callable[[], tuple[int, int] | None] | None = user_terminal_size


@runtime_checkable
class Runner(Protocol):
    """What the agent needs from a language runner."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]

    def start(self) -> None: ...
    def run(self, code: str, timeout: float | None = None) -> Iterator[Event]: ...
    def interrupt(self) -> None: ...
    def stop(self) -> None: ...
    def restart(self) -> None: ...
