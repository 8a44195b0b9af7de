"""`interp eval tasks`: flags to a run of the task benchmark, a progress bar, the figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from interp.core import exits
from interp.eval.tasks.attempt import TaskConfig, run_task
from interp.eval.tasks.catalog import TASKS
from interp.eval.tasks.results import BENCHMARK, TaskRecord, TaskStore, TaskSummary, notes, summarize, summary_table
from interp.eval.tasks.spec import Task
from interp.models.base import LOCAL, Model

DEFAULT_TURNS = 8
PACKAGES = ("pandas", "matplotlib", "openpyxl", "sympy")  # what the tasks' natural solutions import
Progress = Callable[[int, int, int], None]  # (done, total, right)


@dataclass(frozen=True)
class TaskPlan:
    """What to run: the tasks, where the records go, and how each runs."""

    tasks: tuple[Task, ...]
    out: Path
    model_name: str
    jobs: int = 1
    config: TaskConfig = TaskConfig()


def run_tasks_command(args, cli: dict) -> int:
    """`interp eval tasks` (args: interp.eval.command.EvalArgs); returns the exit status."""
    from interp.config.settings import ConfigError, load_settings
    from interp.errors import UsageError
    from interp.eval.setup import LoadLines, close, eval_model, fail, with_model

    problem = _bad_flags(args)
    if problem:
        return fail(problem)
    try:
        settings = with_model(load_settings(cli))
    except ConfigError as exc:
        return fail(str(exc))
    if settings is None:
        return exits.USAGE
    lines = LoadLines()
    try:
        settings, model = eval_model(settings, args.temperature, args.max_tokens, lines)
    except UsageError as exc:
        return fail(str(exc).removeprefix("interp: "))
    plan = _plan(args, settings)
    try:
        with _progress(not args.json and sys.stderr.isatty()) as progress:
            summary = run_plan(plan, model, progress)
    except KeyboardInterrupt:
        close(model)
        lines.last(f"interrupted; results so far are in {plan.out} (run the same command again "
                   "to resume)")
        os._exit(exits.INTERRUPTED)  # worker threads may be waiting on the model: do not join them
    finally:
        close(model)
    _print(summary, plan, args.json)
    return exits.OK


def _bad_flags(args) -> str | None:
    """The one line to print for a flag that does not fit the task benchmark, else None."""
    modes = {m.strip().lower() for value in args.feedback for m in value.split(",")}
    if modes - {"self"}:
        return "tasks run in interp's own loop (as --feedback self); --feedback takes only self here"
    if args.data is not None:
        return "the tasks are built in; --data does not apply to them"
    if any(v is not None and v < 1 for v in (args.limit, args.jobs, args.turns)):
        return "--limit, --jobs and --turns must be at least 1"
    return None


def _plan(args, settings) -> TaskPlan:
    from interp.eval.results import slug
    from interp.eval.tasks.files import sandbox_works
    from interp.secrets import runner_env_remove_for

    name = settings.model
    if name == LOCAL:  # named after the model file: results of two local models stay apart
        name = f"local-{Path(settings.local_model or 'model').stem}"
    out = Path(args.out) if args.out else Path("interp-eval") / slug(name)
    sandbox = sandbox_works()
    if not sandbox:
        sys.stderr.write("interp eval: bubblewrap is not usable here: the tasks' code runs without "
                         "the sandbox (limits only)\n")
    python = getattr(settings, "python", None)
    _warn_missing_packages(python)
    config = TaskConfig(turns=args.turns or DEFAULT_TURNS, sandbox=sandbox, python=python,
                        env_remove=runner_env_remove_for(settings))
    return TaskPlan(tasks=TASKS[:args.limit], out=out, model_name=name, jobs=args.jobs,
                    config=config)


def _warn_missing_packages(python: str | None) -> None:
    """One line when the Python that runs blocks lacks a package the tasks' solutions use."""
    from languages.protocol import RunnerConfig
    from languages.python import choose_python

    executable = choose_python(RunnerConfig(python=python), os.environ)[0]
    probe = ("import importlib.util as u\n"
             f"print(' '.join(n for n in {PACKAGES!r} if u.find_spec(n) is None))")
    try:
        done = subprocess.run([executable, "-c", probe], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        sys.stderr.write(f"interp eval: cannot start {executable} ({exc})\n")
        return
    missing = done.stdout.split()
    if missing:
        sys.stderr.write(f"interp eval: {executable} lacks {', '.join(missing)}; tasks whose "
                         "solutions use them will fail there (pip install 'interp[data]')\n")


def run_plan(plan: TaskPlan, model: Model, progress: Progress | None = None) -> TaskSummary:
    """Run the plan's tasks (skipping those already finished in its folder); the summary."""
    store = TaskStore(plan.out)
    earlier = store.load()
    records: dict[str, TaskRecord] = {t.id: earlier[t.id] for t in plan.tasks
                                      if t.id in earlier and earlier[t.id].finished}
    todo = [t for t in plan.tasks if t.id not in records]

    def tick() -> None:
        if progress is not None:
            progress(len(records), len(plan.tasks), sum(r.right for r in records.values()))

    tick()
    pool = ThreadPoolExecutor(max_workers=plan.jobs, thread_name_prefix="eval-task")
    pending = {pool.submit(run_task, t, model, plan.config, plan.model_name): t for t in todo}
    try:
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                task = pending.pop(future)
                records[task.id] = future.result()
                store.append(records[task.id])
                tick()
    finally:  # on Ctrl-C, never wait for a task still talking to the model
        pool.shutdown(wait=not pending, cancel_futures=True)
    return summarize(plan.model_name, [records[t.id] for t in plan.tasks if t.id in records])


@contextmanager
def _progress(enabled: bool) -> Iterator[Progress | None]:
    """A rich progress bar on stderr while the plan runs, as a Progress callable."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn

    with Bar(TextColumn(BENCHMARK), BarColumn(), MofNCompleteColumn(),
             TextColumn("right {task.fields[right]}"), TimeElapsedColumn(),
             console=Console(stderr=True), transient=False) as bar:
        row = bar.add_task(BENCHMARK, total=None, right=0)

        def update(done: int, total: int, right: int) -> None:
            bar.update(row, completed=done, total=total, right=right)

        yield update


def _print(summary: TaskSummary, plan: TaskPlan, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps({"benchmark": BENCHMARK, "model": plan.model_name,
                                     "out": str(plan.out), "summaries": [summary.to_dict()]}) + "\n")
        return
    from rich.console import Console

    console = Console()
    console.print(summary_table(summary))
    for line in notes(summary):
        console.print(line, markup=False, highlight=False)
    console.print(f"Results: {plan.out}/", markup=False, highlight=False)
