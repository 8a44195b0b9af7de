"""One JSON line per task run (so a rerun skips finished tasks), and the figures of a run."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from interp.eval.loop import exit_name
from interp.eval.results import RecordFile

BENCHMARK = "tasks"


@dataclass
class TaskRecord:
    """One run of one task: how it ended, how it scored, what it cost, and the conversation."""

    task_id: str
    category: str
    model: str
    sentence: str
    right: bool  # the files are right and the run showed the result
    answered: bool  # the files are right and the final message states the result
    clean: bool  # answered, and the run ended with exit status 0
    exit_code: int | None
    reason: str  # why the loop ended (task.finished's reason)
    final_message: str
    failed: list[str] = field(default_factory=list)  # what the check found wrong
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    error: str | None = None  # a model error: the task is run again on a rerun
    files: list[str] = field(default_factory=list)  # the folder's files after the run
    checks: list[str] = field(default_factory=list)  # the reply checks that asked, in order
    turns: list = field(default_factory=list)  # the conversation after the system prompt

    @property
    def finished(self) -> bool:
        """A record a rerun keeps (model errors are tried again)."""
        return self.error is None


class TaskStore(RecordFile):
    """`DIR/tasks.jsonl`: the latest record per task wins."""

    def __init__(self, folder: Path) -> None:
        super().__init__(Path(folder) / f"{BENCHMARK}.jsonl", TaskRecord)


@dataclass(frozen=True)
class TaskSummary:
    """The figures of one run of the benchmark."""

    benchmark: str
    model: str
    tasks: int
    scored: int  # tasks that ran to an end; model errors are left to the rerun
    right: int
    right_pct: float
    clean: int
    clean_pct: float
    mean_calls: float
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    model_errors: int
    exits: dict  # how the runs ended: "ok", "max turns", "loop", ... -> count
    categories: dict  # category -> {"tasks", "right", "clean"}

    def to_dict(self) -> dict:
        """The JSON form (--json)."""
        return asdict(self)


def summarize(model: str, records: list[TaskRecord]) -> TaskSummary:
    """Aggregate the records of a run; the rates are over the tasks scored (a model error is
    no wrong answer: it is counted apart and tried again by the rerun)."""
    total = len(records)
    scored = [r for r in records if r.error is None]
    right, clean = sum(r.right for r in scored), sum(r.clean for r in scored)
    categories: dict[str, dict[str, int]] = {}
    for r in scored:
        tally = categories.setdefault(r.category, {"tasks": 0, "right": 0, "clean": 0})
        tally["tasks"] += 1
        tally["right"] += r.right
        tally["clean"] += r.clean
    ends = Counter("model error" if r.error else exit_name(r.exit_code) for r in records)
    return TaskSummary(
        benchmark=BENCHMARK, model=model, tasks=total, scored=len(scored), right=right,
        right_pct=_pct(right, len(scored)), clean=clean, clean_pct=_pct(clean, len(scored)),
        mean_calls=round(sum(r.model_calls for r in records) / total, 2) if total else 0.0,
        prompt_tokens=sum(r.prompt_tokens for r in records),
        completion_tokens=sum(r.completion_tokens for r in records),
        seconds=round(sum(r.seconds for r in records), 1),
        model_errors=sum(r.error is not None for r in records),
        exits=dict(ends.most_common()), categories=categories)


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def summary_table(summary: TaskSummary):
    """A rich Table with the run's figures."""
    from rich.table import Table

    from interp.eval.report import _duration

    table = Table(title=f"{summary.benchmark} · {summary.model}")
    for name in ("tasks", "right", "right, clean finish", "mean model calls", "tokens in/out",
                 "time"):
        table.add_column(name, justify="right")
    s = summary
    table.add_row(str(s.scored), f"{s.right_pct:.1f}% ({s.right})", f"{s.clean_pct:.1f}% ({s.clean})",
                  f"{s.mean_calls:.2f}", f"{s.prompt_tokens:,}/{s.completion_tokens:,}",
                  _duration(s.seconds))
    return table


def notes(summary: TaskSummary) -> list[str]:
    """Lines printed under the table: per category, how the runs ended, model errors."""
    lines = ["by category (right/clean of tasks): " + ", ".join(
        f"{name} {c['right']}/{c['clean']} of {c['tasks']}" for name, c in summary.categories.items())]
    lines.append("ended: " + ", ".join(f"{name} {count}" for name, count in summary.exits.items()))
    if summary.model_errors:
        lines.append(f"{summary.model_errors} of {summary.tasks} task(s) not scored: a model error "
                     "(rerun to try them again)")
    return lines
