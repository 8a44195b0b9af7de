"""What `interp eval` knows of a benchmark: the flags it is given (`EvalArgs`), the parts a
benchmark declares (`Benchmark`), and how a run that cannot go on ends (`RunAborted`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass


@dataclass(frozen=True)
class EvalArgs:
    """The flags of `interp eval` that are not settings (those are in `cli`)."""

    benchmark: str
    feedback: tuple[str, ...] = ("none",)
    limit: int | None = None
    jobs: int = 1
    out: str | None = None
    json: bool = False
    data: str | None = None
    temperature: float = 0.0
    ids: tuple[str, ...] = ()  # dabench: only these questions
    levels: tuple[str, ...] = ()  # dabench: only these levels


class RunAborted(Exception):
    """A run that cannot go on (every call refused, say): the line to print and the status."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Benchmark:
    """A benchmark as the command needs it: its flags checked (the one line to print, or
    None), its items from the flags (DataError), a plan (with `out` and `model_name`) from
    the flags, settings and items, the progress it shows, the run (its summaries;
    RunAborted), and how the summaries print."""

    name: str
    bad_flags: Callable[[EvalArgs], str | None]
    items: Callable[[EvalArgs], Sequence]
    plan: Callable[[EvalArgs, object, Sequence], object]
    progress: Callable[[object, bool], AbstractContextManager]
    run: Callable[[object, object, object], list]
    table: Callable[[list], object]
    notes: Callable[[list], list[str]]
    json_note: Callable[[list], str | None] = lambda summaries: None
