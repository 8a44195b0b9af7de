"""Runner settings and the interface every language runner provides."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

from .events import Event
from .limits import Limits
from .sandbox import Sandbox


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
