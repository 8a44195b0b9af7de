"""`interp eval BENCHMARK`: settings and flags to a plan, a progress bar, the summary."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from interp.core import exits
from interp.errors import UsageError
from interp.models.base import LOCAL
from interp.eval.data import DataError, load_problems
from interp.eval.modes import MODES, ModeConfig
from interp.eval.report import LEAK_NOTE, notes, summary_table
from interp.eval.results import slug
from interp.eval.setup import LoadLines, close, eval_model, fail, with_model


@dataclass(frozen=True)
class EvalArgs:
    """The flags of `interp eval`."""

    benchmark: str
    feedback: tuple[str, ...] = ("none",)
    limit: int | None = None
    jobs: int = 1
    out: str | None = None
    json: bool = False
    turns: int | None = None  # None: the benchmark's default (4 for HumanEval's self mode)
    data: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    ids: tuple[str, ...] = ()  # dabench: only these questions
    levels: tuple[str, ...] = ()  # dabench: only these levels


class EvalUsageError(Exception):
    """A bad flag value; the message is the one line to print."""


def parse_modes(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--feedback none,self --feedback oracle` -> ("none", "self", "oracle"), checked."""
    modes: list[str] = []
    for value in values or ("none",):
        for part in value.split(","):
            mode = part.strip().lower()
            if mode not in MODES:
                raise EvalUsageError(f"--feedback takes {', '.join(MODES)}, not {part!r}")
            if mode not in modes:
                modes.append(mode)
    return tuple(modes)


def run_eval_command(args: EvalArgs, cli: dict) -> int:
    """Run the benchmark; prints the table (or JSON); returns the exit status."""
    from interp.config.settings import ConfigError, load_settings

    if args.benchmark == "tasks":
        from interp.eval.tasks.command import run_tasks_command

        return run_tasks_command(args, cli)
    if args.benchmark == "dabench":
        from interp.eval.dabench.command import run_dabench_command

        return run_dabench_command(args, cli)
    if args.ids or args.levels:
        return fail("--ids and --level are dabench's")
    args = replace(args, turns=4) if args.turns is None else args
    try:
        modes = parse_modes(args.feedback)
        if args.limit is not None and args.limit < 1 or args.jobs < 1 or args.turns < 1:
            raise EvalUsageError("--limit, --jobs and --turns must be at least 1")
        settings = load_settings(cli)
        problems = load_problems(args.benchmark, args.data)[:args.limit]
    except (EvalUsageError, ConfigError, DataError) as exc:
        return fail(str(exc))
    settings = with_model(settings)
    if settings is None:
        return exits.USAGE
    lines = LoadLines()
    try:
        settings, model = eval_model(settings, args.temperature, args.max_tokens, lines)
    except UsageError as exc:
        return fail(str(exc).removeprefix("interp: "))
    plan = _plan(args, settings, problems, modes)
    from interp.eval.run import NothingReached

    try:
        summaries = _run(plan, model, show_progress=not args.json and sys.stderr.isatty())
    except KeyboardInterrupt:
        _abort(model, lines, f"interrupted; results so far are in {plan.out} "
               "(run the same command again to resume)", exits.INTERRUPTED)
    except NothingReached as exc:
        _abort(model, lines, f"no problem reached the model (recorded in {plan.out}/): {exc}",
               exits.MODEL_ERROR)
    finally:
        close(model)
    _print(summaries, plan, args.json)
    return exits.OK


def _plan(args: EvalArgs, settings, problems, modes):
    from interp.eval.isolation import bwrap_works
    from interp.eval.run import EvalPlan
    from interp.secrets import runner_env_remove_for

    name = settings.model
    if name == LOCAL:  # named after the model file: results of two local models stay apart
        name = f"local-{Path(settings.local_model or 'model').stem}"
    out = Path(args.out) if args.out else Path("interp-eval") / slug(name)
    config = ModeConfig(plus=args.benchmark.endswith("+"), turns=args.turns,
                        sandbox=bwrap_works(), env_remove=runner_env_remove_for(settings),
                        checks=settings.checks)
    if not config.sandbox:
        sys.stderr.write("interp eval: bubblewrap is not usable here: checks and the self mode's "
                         "code run without the sandbox (limits and guards only)\n")
    return EvalPlan(benchmark=args.benchmark, problems=tuple(problems), modes=modes, out=out,
                    model_name=name, jobs=args.jobs, mode_config=config)


def _abort(model, lines: LoadLines, message: str, code: int) -> None:
    """The model closed, one line, and out at once: worker threads may be waiting on the model,
    so they are not joined. The line comes last: a worker still solving a problem can start
    the local model's load again until the process exits, and `lines` drops that load's line."""
    close(model)
    lines.last(message)
    os._exit(code)


def _run(plan, model, show_progress: bool):
    from interp.eval.run import run_plan

    if not show_progress:
        return run_plan(plan, model)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bars: dict[str, int] = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("passed {task.fields[passed]}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=False) as progress:
        def update(mode: str, done: int, total: int, passed: int) -> None:
            if mode not in bars:
                bars[mode] = progress.add_task(f"{plan.benchmark} {mode}", total=total, passed=0)
            progress.update(bars[mode], completed=done, passed=passed)

        return run_plan(plan, model, update)


def _print(summaries, plan, as_json: bool) -> None:
    if as_json:
        payload = {"benchmark": plan.benchmark, "model": plan.model_name, "out": str(plan.out),
                   "summaries": [s.to_dict() for s in summaries]}
        if any(s.leaks_tests for s in summaries):
            payload["note"] = LEAK_NOTE
        sys.stdout.write(json.dumps(payload) + "\n")
        return
    from rich.console import Console

    console = Console()
    console.print(summary_table(summaries))
    for line in notes(summaries):
        console.print(line, markup=False, highlight=False)
    console.print(f"Results: {plan.out}/", markup=False, highlight=False)
