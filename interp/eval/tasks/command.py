"""`interp eval tasks`: flags to a run of the task benchmark, a progress bar, the figures."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from interp.eval.batch import (Progress, progress_bar, results_folder, run_resumable,
                               warn_missing_packages)
from interp.eval.benchmark import Benchmark
from interp.eval.loop import LoopConfig
from interp.eval.tasks.attempt import run_task
from interp.eval.tasks.catalog import TASKS
from interp.eval.tasks.results import BENCHMARK, TaskStore, TaskSummary, notes, summarize, summary_table
from interp.eval.tasks.spec import Task
from interp.models.base import Model

DEFAULT_TURNS = 8
PACKAGES = ("pandas", "matplotlib", "openpyxl", "sympy")  # what the tasks' natural solutions import


@dataclass(frozen=True)
class TaskPlan:
    """What to run: the tasks, where the records go, and how each runs."""

    tasks: tuple[Task, ...]
    out: Path
    model_name: str
    jobs: int = 1
    config: LoopConfig = LoopConfig()


def _bad_flags(args) -> str | None:
    """The one line to print for a flag that does not fit the task benchmark, else None."""
    modes = {m.strip().lower() for value in args.feedback for m in value.split(",")}
    if modes - {"self"}:
        return "tasks run in interp's own loop (as --feedback self); --feedback takes only self here"
    if args.data is not None:
        return "the tasks are built in; --data does not apply to them"
    if args.levels:
        return "--level is dabench's (tasks have --ids)"
    if any(v is not None and v < 1 for v in (args.limit, args.jobs)):
        return "--limit and --jobs must be at least 1"
    return None


def _plan(args, settings) -> TaskPlan:
    from interp.eval.tasks.files import sandbox_works
    from interp.secrets import runner_env_remove_for

    out, name = results_folder(args.out, settings)
    sandbox = sandbox_works()
    if not sandbox:
        sys.stderr.write("interp eval: bubblewrap is not usable here: the tasks' code runs without "
                         "the sandbox (limits only)\n")
    python = getattr(settings, "python", None)
    warn_missing_packages(python, PACKAGES, "pip install 'interp[data]'", "tasks")
    config = LoopConfig(turns=settings.max_turns or DEFAULT_TURNS, sandbox=sandbox, python=python,
                        env_remove=runner_env_remove_for(settings), checks=settings.checks)
    return TaskPlan(tasks=_tasks(args), out=out, model_name=name, jobs=args.jobs,
                    config=config)


def run_plan(plan: TaskPlan, model: Model, progress: Progress | None = None) -> TaskSummary:
    """Run the plan's tasks (skipping those already finished in its folder); the summary."""
    records = run_resumable(plan.tasks, lambda task: task.id,
                            lambda task: run_task(task, model, plan.config, plan.model_name),
                            TaskStore(plan.out), plan.jobs, progress)
    return summarize(plan.model_name, records)


def _tasks(args) -> tuple[Task, ...]:
    """The tasks `--ids` and `--limit` pick, in the catalogue's order."""
    from interp.eval.data import DataError

    unknown = [i for i in args.ids if i not in {t.id for t in TASKS}]
    if unknown:
        raise DataError(f"--ids: no task {', '.join(unknown)}")
    return tuple(t for t in TASKS if not args.ids or t.id in args.ids)[:args.limit]


TASKS_BENCHMARK = Benchmark(BENCHMARK, _bad_flags, _tasks,
                            lambda args, settings, _: _plan(args, settings),
                            lambda plan, enabled: progress_bar(BENCHMARK, enabled),
                            lambda plan, model, progress: [run_plan(plan, model, progress)],
                            lambda summaries: summary_table(summaries[0]),
                            lambda summaries: notes(summaries[0]))
