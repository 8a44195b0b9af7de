"""Typed events that a runner yields while it runs a block."""

from __future__ import annotations

from dataclasses import dataclass, field

from .output import CapturedOutput


@dataclass(frozen=True)
class Output:
    """A piece of text the block printed (stdout and stderr share the terminal)."""

    text: str


@dataclass(frozen=True)
class Result:
    """The last event of every run: how the block ended."""

    status: str  # "ok" | "error" | "interrupted" | "timeout" | "died"
    output: CapturedOutput
    exit_code: int | None = None
    error: str | None = None
    signal: str | None = None
    interrupted: bool = False
    timed_out: bool = False
    died: bool = False
    restarted: bool = False
    duration: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """True when the block ran to the end without an error."""
        return self.status == "ok"

    @property
    def state_lost(self) -> bool:
        """True when the process was replaced, so earlier variables are gone."""
        return self.died or self.restarted

    def summary(self) -> str:
        """One line that says how the block ended."""
        parts = [self._headline()]
        if self.restarted:
            parts.append("the runner was restarted; variables and other state were lost")
        parts.extend(self.notes)
        return "; ".join(parts)

    def _headline(self) -> str:
        if self.timed_out:
            return "timed out and was stopped"
        if self.interrupted:
            return "interrupted"
        if self.died:
            how = f"killed by {self.signal}" if self.signal else f"exited with status {self.exit_code}"
            return f"the process {how}"
        if self.status == "error":
            if self.error:
                return f"error: {self.error}"
            return f"exit status {self.exit_code}"
        return "ok" if self.exit_code in (None, 0) else f"exit status {self.exit_code}"


Event = Output | Result
