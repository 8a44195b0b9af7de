"""Result records: one JSON line per problem and mode, so that a rerun skips finished problems."""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from interp.eval.scoring import Verdict

TEST_FEEDBACK = frozenset({"oracle", "oci"})  # modes that show the model the hidden tests


@dataclass
class Spend:
    """Tokens and cost of one problem's model calls (cost None once any price is unknown)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0
    calls: int = 0

    def add(self, usage) -> None:
        """Count one reply's usage (a models.base.Usage or None)."""
        self.calls += 1
        if usage is None:
            self.cost = None
            return
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.cost = None if self.cost is None or usage.cost is None else self.cost + usage.cost

    def add_totals(self, totals) -> None:
        """Take a Session's running totals."""
        self.prompt_tokens += totals.prompt_tokens
        self.completion_tokens += totals.completion_tokens
        self.cost = totals.cost if totals.cost_known else None


@dataclass
class Outcome:
    """What one mode made of one problem (the part of a record the mode fills in)."""

    turns: list
    spend: Spend
    final_code: str = ""
    verdict: Verdict | None = None
    error: str | None = None  # the model call failed: the problem is retried on a rerun
    calls: int | None = None
    seconds: float = 0.0
    error_kind: str | None = None  # the failed call's ModelError.kind, when there was one
    first: Verdict | None = None  # the check before the hidden tests were fed back, if they were

    @classmethod
    def scored(cls, turns, spend, code, verdict, calls=None, first=None) -> Outcome:
        """An outcome whose final code was checked (`first`: the check that was fed back)."""
        return cls(turns, spend, code, verdict, calls=calls, first=first)

    @classmethod
    def failed_call(cls, turns, spend, error, calls=None, kind=None) -> Outcome:
        """An outcome cut short by a model error (of ModelError.kind `kind`, when known)."""
        return cls(turns, spend, error=error, calls=calls, error_kind=kind)

    def finish(self, seconds: float) -> Outcome:
        """Set the wall time; returns self."""
        self.seconds = seconds
        return self


@dataclass
class Record:
    """One line of a results file."""

    task_id: str
    benchmark: str
    mode: str
    model: str
    prompt: str
    turns: list
    final_code: str
    passed: bool
    reason: str
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    seconds: float
    error: str | None = None
    leaks_tests: bool = False
    check: dict = field(default_factory=dict)
    first_check: dict = field(default_factory=dict)  # the check fed back to the model, if any

    @classmethod
    def build(cls, task_id: str, benchmark: str, mode: str, model: str, prompt: str,
              outcome: Outcome) -> Record:
        """The record for a finished outcome."""
        verdict = outcome.verdict
        reason = "error" if outcome.error else verdict.reason if verdict else "not checked"
        return cls(task_id=task_id, benchmark=benchmark, mode=mode, model=model, prompt=prompt,
                   turns=outcome.turns, final_code=outcome.final_code,
                   passed=bool(verdict and verdict.passed), reason=reason,
                   model_calls=outcome.calls if outcome.calls is not None else outcome.spend.calls,
                   prompt_tokens=outcome.spend.prompt_tokens,
                   completion_tokens=outcome.spend.completion_tokens, cost=outcome.spend.cost,
                   seconds=round(outcome.seconds, 3), error=outcome.error,
                   leaks_tests=mode in TEST_FEEDBACK, check=verdict.to_dict() if verdict else {},
                   first_check=outcome.first.to_dict() if outcome.first else {})

    @property
    def finished(self) -> bool:
        """A record a rerun keeps (model errors are tried again)."""
        return self.error is None


def slug(text: str) -> str:
    """A file-name-safe form of a model or benchmark name."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", text).strip("_") or "model"


class RecordFile:
    """An append-only, thread-safe JSONL file of one record type; the latest record per
    `task_id` wins, and a torn last line (from a killed run) is skipped."""

    def __init__(self, path: Path, kind: type) -> None:
        self.path = Path(path)
        self.kind = kind
        self._lock = threading.Lock()

    def load(self) -> dict:
        """The latest record per task."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return {}
        names = {f.name for f in fields(self.kind)}
        found = {}
        for line in lines:
            try:
                data = json.loads(line)
                record = self.kind(**{k: v for k, v in data.items() if k in names})
            except (ValueError, TypeError):
                continue
            found[record.task_id] = record
        return found

    def append(self, record) -> None:
        """Write one record and flush it to disk."""
        line = json.dumps(asdict(record), ensure_ascii=False, default=str) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())


class ResultStore(RecordFile):
    """The JSONL file of one benchmark and mode in the output folder."""

    def __init__(self, folder: Path, benchmark: str, mode: str) -> None:
        super().__init__(Path(folder) / f"{slug(benchmark)}-{mode}.jsonl", Record)
