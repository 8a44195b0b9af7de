"""One JSON line per question run (a rerun skips finished questions), and the figures of a
run the benchmark's way: by question (the headline), by sub-question and by level."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from interp.eval.results import RecordFile
from interp.eval.loop import exit_name

BENCHMARK = "dabench"
SLOW_SECONDS = 300.0  # a question past this is counted in the summary


@dataclass
class QuestionRecord:
    """One run of one question: its score, how the loop ended, what it cost, the
    conversation. `subs`: [name, label, value found or None, right] per labelled name."""

    task_id: str
    level: str
    model: str
    task: str
    right: bool = False  # every sub-answer right, in the final answer
    formatted: bool = False  # every labelled name is in the final answer as @name[...]
    shown_right: bool = False  # every labelled value appears in what the run showed (diagnostic)
    subs: list = field(default_factory=list)
    exit_code: int | None = None
    reason: str = ""
    final_message: str = ""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    error: str | None = None  # a model or harness error: run again on a rerun
    checks: list = field(default_factory=list)  # the reply checks that asked, in order
    turns: list = field(default_factory=list)

    @property
    def finished(self) -> bool:
        """A record a rerun keeps."""
        return self.error is None


class QuestionStore(RecordFile):
    """`DIR/dabench.jsonl`: the latest record per question wins."""

    def __init__(self, folder: Path) -> None:
        super().__init__(Path(folder) / f"{BENCHMARK}.jsonl", QuestionRecord)


@dataclass(frozen=True)
class DabenchSummary:
    """The figures of one run (rates over the questions scored; errors are counted apart)."""

    benchmark: str
    model: str
    questions: int
    scored: int
    right: int
    right_pct: float  # the headline: questions with every sub-answer right
    subs: int
    subs_right: int
    subs_pct: float
    formatted: int  # final answers that hold every labelled name
    shown_right: int  # runs that showed every right value somewhere (outputs, replies)
    mean_calls: float
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    slow: int  # questions that took more than SLOW_SECONDS
    errors: int
    exits: dict
    levels: dict  # level -> {"questions", "right"}

    def to_dict(self) -> dict:
        """The JSON form (--json)."""
        return asdict(self)


def summarize(model: str, records: list[QuestionRecord]) -> DabenchSummary:
    """Aggregate the records of a run."""
    scored = [r for r in records if r.error is None]
    right = sum(r.right for r in scored)
    subs = [sub for r in scored for sub in r.subs]
    subs_right = sum(bool(sub[3]) for sub in subs)
    levels: dict[str, dict[str, int]] = {}
    for r in scored:
        tally = levels.setdefault(r.level, {"questions": 0, "right": 0})
        tally["questions"] += 1
        tally["right"] += r.right
    ends = Counter("error" if r.error else exit_name(r.exit_code) for r in records)
    total = len(records)
    return DabenchSummary(
        benchmark=BENCHMARK, model=model, questions=total, scored=len(scored), right=right,
        right_pct=_pct(right, len(scored)), subs=len(subs), subs_right=subs_right,
        subs_pct=_pct(subs_right, len(subs)), formatted=sum(r.formatted for r in scored),
        shown_right=sum(r.shown_right for r in scored),
        mean_calls=round(sum(r.model_calls for r in records) / total, 2) if total else 0.0,
        prompt_tokens=sum(r.prompt_tokens for r in records),
        completion_tokens=sum(r.completion_tokens for r in records),
        seconds=round(sum(r.seconds for r in records), 1),
        slow=sum(r.seconds > SLOW_SECONDS for r in records),
        errors=sum(r.error is not None for r in records),
        exits=dict(ends.most_common()),
        levels={level: levels[level] for level in ("easy", "medium", "hard") if level in levels})


def _pct(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 1) if whole else 0.0


def summary_table(summary: DabenchSummary):
    """A rich Table with the run's figures."""
    from rich.table import Table

    from interp.eval.report import _duration

    s = summary
    table = Table(title=f"{s.benchmark} · {s.model}")
    for name in ("questions", "right", "sub-questions right", "in the asked format",
                 "mean model calls", "tokens in/out", "time"):
        table.add_column(name, justify="right")
    table.add_row(str(s.scored), f"{s.right_pct:.1f}% ({s.right})",
                  f"{s.subs_pct:.1f}% ({s.subs_right}/{s.subs})", f"{s.formatted}",
                  f"{s.mean_calls:.2f}", f"{s.prompt_tokens:,}/{s.completion_tokens:,}",
                  _duration(s.seconds))
    return table


def notes(summary: DabenchSummary) -> list[str]:
    """Lines printed under the table: by level, values shown but not answered, slow
    questions, how the runs ended, errors."""
    s = summary
    lines = ["by level (right of questions): " + ", ".join(
        f"{level} {t['right']}/{t['questions']}" for level, t in s.levels.items())]
    lines.append(f"right values shown somewhere in the run: {s.shown_right} of {s.scored}")
    if s.slow:
        lines.append(f"{s.slow} question(s) took more than {SLOW_SECONDS:.0f} s")
    lines.append("ended: " + ", ".join(f"{name} {count}" for name, count in s.exits.items()))
    if s.errors:
        lines.append(f"{s.errors} of {s.questions} question(s) not scored: a model or harness "
                     "error (rerun to try them again)")
    return lines
