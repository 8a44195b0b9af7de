"""Running a benchmark: each mode over the problems, N at a time, resuming finished ones."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from interp.eval.data import Problem
from interp.eval.modes import ModeConfig, solve
from interp.eval.report import Summary, summarize
from interp.eval.results import Record, ResultStore
from interp.models.base import Model

# progress(mode, done, total, passed) after each problem; start(mode, total, done) first
Progress = Callable[[str, int, int, int], None]
# model errors after which every other call would fail the same way
_UNREACHABLE = frozenset({"auth", "not_found", "connection"})


class NothingReached(Exception):
    """No problem of this run reached the model; str() is the first model error."""


@dataclass(frozen=True)
class EvalPlan:
    """What to run: a benchmark's problems, the modes, and where results go."""

    benchmark: str
    problems: tuple[Problem, ...]
    modes: tuple[str, ...]
    out: Path
    model_name: str
    jobs: int = 1
    mode_config: ModeConfig = field(default_factory=ModeConfig)


def run_mode(plan: EvalPlan, mode: str, model: Model, progress: Progress | None = None) -> Summary:
    """Run one mode over the plan's problems (skipping finished ones); its summary."""
    store = ResultStore(plan.out, plan.benchmark, mode)
    earlier = store.load()
    records = {p.task_id: earlier[p.task_id] for p in plan.problems
               if p.task_id in earlier and earlier[p.task_id].finished}
    todo = [p for p in plan.problems if p.task_id not in records]
    total = len(plan.problems)

    def tick() -> None:
        if progress is not None:
            progress(mode, len(records), total, sum(r.passed for r in records.values()))

    tick()
    reached, first_error = False, None
    # not a `with`: on Ctrl-C or an unreachable model, do not wait for calls still in flight
    pool = ThreadPoolExecutor(max_workers=max(1, plan.jobs), thread_name_prefix="eval")
    try:
        pending = {pool.submit(solve, mode, p, model, plan.mode_config): p for p in todo}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in [f for f in pending if f in done]:  # in the items' order
                problem, outcome = pending.pop(future), future.result()
                record = Record.build(problem.task_id, plan.benchmark, mode, plan.model_name,
                                      problem.prompt, outcome)
                store.append(record)
                records[problem.task_id] = record
                tick()
                reached = reached or outcome.error is None or record.model_calls > 0
                if not reached:
                    first_error = first_error or outcome.error
                    if outcome.error_kind in _UNREACHABLE:
                        raise NothingReached(outcome.error)
        if todo and not reached:
            raise NothingReached(first_error)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    ordered = [records[p.task_id] for p in plan.problems if p.task_id in records]
    return summarize(plan.benchmark, mode, plan.model_name, ordered)


def run_plan(plan: EvalPlan, model: Model, progress: Progress | None = None) -> list[Summary]:
    """Every mode of the plan, one after another."""
    return [run_mode(plan, mode, model, progress) for mode in plan.modes]
