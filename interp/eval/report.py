"""Summaries: pass@1, mean model calls, tokens, cost and time per mode, as a table or JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from interp.eval.results import TEST_FEEDBACK, Record

LEAK_NOTE = "the hidden tests' first failure is fed back to the model (leaks test information)"


@dataclass(frozen=True)
class Summary:
    """The figures of one mode over the problems run."""

    benchmark: str
    mode: str
    model: str
    problems: int
    scored: int  # problems that reached a verdict; model errors are left to the rerun
    passed: int
    pass_at_1: float
    mean_turns: float
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    seconds: float
    model_errors: int
    harness_errors: int
    leaks_tests: bool
    reasons: dict
    fed_back: int = 0  # problems whose failing check was fed back to the model
    fixed: int = 0  # of those, the ones that passed in the end

    def to_dict(self) -> dict:
        """The JSON form (--json)."""
        return asdict(self)


def summarize(benchmark: str, mode: str, model: str, records: list[Record]) -> Summary:
    """Aggregate the records of one mode; pass@1 is over the problems scored (a model error
    is no wrong answer: it is counted apart and tried again by the rerun)."""
    total = len(records)
    scored = [r for r in records if r.error is None]
    passed = sum(r.passed for r in scored)
    costs = [r.cost for r in records]
    reasons = Counter(r.reason.split(":")[0] for r in scored if not r.passed)
    fed_back = [r for r in scored if r.first_check]
    return Summary(
        benchmark=benchmark, mode=mode, model=model, problems=total, scored=len(scored),
        passed=passed, pass_at_1=round(100.0 * passed / len(scored), 1) if scored else 0.0,
        mean_turns=round(sum(r.model_calls for r in records) / total, 2) if total else 0.0,
        prompt_tokens=sum(r.prompt_tokens for r in records),
        completion_tokens=sum(r.completion_tokens for r in records),
        cost=None if any(c is None for c in costs) else round(sum(costs), 6),
        seconds=round(sum(r.seconds for r in records), 1),
        model_errors=sum(r.error is not None for r in records),
        harness_errors=sum(bool(r.check.get("harness_error")) for r in records),
        leaks_tests=mode in TEST_FEEDBACK, reasons=dict(reasons.most_common()),
        fed_back=len(fed_back), fixed=sum(r.passed for r in fed_back))


def _cost(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def summary_table(summaries: list[Summary]):
    """A rich Table with one row per mode."""
    from rich.table import Table

    table = Table(title=f"{summaries[0].benchmark} · {summaries[0].model}" if summaries else None)
    for name, justify in (("mode", "left"), ("pass@1", "right"), ("passed", "right"),
                          ("mean turns", "right"), ("tokens in/out", "right"),
                          ("cost", "right"), ("time", "right")):
        table.add_column(name, justify=justify)
    for s in summaries:
        mode = f"{s.mode} *" if s.leaks_tests else s.mode
        table.add_row(mode, f"{s.pass_at_1:.1f}%", f"{s.passed}/{s.scored}", f"{s.mean_turns:.2f}",
                      f"{s.prompt_tokens:,}/{s.completion_tokens:,}", _cost(s.cost),
                      _duration(s.seconds))
    return table


def notes(summaries: list[Summary]) -> list[str]:
    """Lines printed under the table: leaks, errors, failure reasons."""
    lines = []
    if any(s.leaks_tests for s in summaries):
        lines.append(f"* {LEAK_NOTE}")
    for s in summaries:
        if s.model_errors:
            lines.append(f"{s.mode}: {s.model_errors} of {s.problems} problem(s) not scored: "
                         "a model error (rerun to try them again)")
        if s.fed_back:
            lines.append(f"{s.mode}: the hidden tests' failure fed back in {s.fed_back} problem(s); "
                         f"{s.fixed} passed after it")
        if s.harness_errors:
            lines.append(f"{s.mode}: {s.harness_errors} check(s) failed in the harness itself")
        if s.reasons:
            lines.append(f"{s.mode} failures: " + ", ".join(f"{k} {v}" for k, v in s.reasons.items()))
    return lines


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
