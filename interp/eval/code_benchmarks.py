"""HumanEval, HumanEval+, MBPP and MBPP+ for `interp eval`: the modes (`--feedback`), the
problems, the plan and one progress bar per mode."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from interp.core import exits
from interp.eval.benchmark import Benchmark, EvalArgs, RunAborted
from interp.eval.data import BENCHMARKS, load_problems
from interp.eval.modes import MODES, ModeConfig
from interp.eval.report import LEAK_NOTE, notes, summary_table

SELF_TURNS = 4  # model calls per problem in the self and oracle modes, unless --max-turns says


def parse_modes(values: tuple[str, ...]) -> tuple[str, ...] | str:
    """`--feedback none,self --feedback oracle` -> ("none", "self", "oracle"); or the line
    that says what is wrong."""
    modes: list[str] = []
    for value in values or ("none",):
        for part in value.split(","):
            mode = part.strip().lower()
            if mode not in MODES:
                return f"--feedback takes {', '.join(MODES)}, not {part!r}"
            if mode not in modes:
                modes.append(mode)
    return tuple(modes)


def _bad_flags(args: EvalArgs) -> str | None:
    modes = parse_modes(args.feedback)
    if isinstance(modes, str):
        return modes
    if args.limit is not None and args.limit < 1 or args.jobs < 1:
        return "--limit and --jobs must be at least 1"
    if args.ids or args.levels:
        return "--ids and --level are for tasks and dabench"
    return None


def _problems(args: EvalArgs):
    return load_problems(args.benchmark, args.data)[:args.limit]


def _plan(args: EvalArgs, settings, problems):
    from interp.eval.batch import results_folder
    from interp.eval.isolation import bwrap_works
    from interp.eval.run import EvalPlan
    from interp.secrets import runner_env_remove_for

    out, name = results_folder(args.out, settings)
    config = ModeConfig(plus=args.benchmark.endswith("+"), turns=settings.max_turns or SELF_TURNS,
                        sandbox=bwrap_works(), env_remove=runner_env_remove_for(settings),
                        checks=settings.checks)
    if not config.sandbox:
        sys.stderr.write("interp eval: bubblewrap is not usable here: checks and the self mode's "
                         "code run without the sandbox (limits and guards only)\n")
    return EvalPlan(benchmark=args.benchmark, problems=tuple(problems),
                    modes=parse_modes(args.feedback), out=out, model_name=name, jobs=args.jobs,
                    mode_config=config)


@contextmanager
def _progress(plan, enabled: bool) -> Iterator:
    """One bar per mode on stderr while the plan runs, as run_plan's progress callable."""
    if not enabled:
        yield None
        return
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

        yield update


def _run(plan, model, progress) -> list:
    from interp.eval.run import NothingReached, run_plan

    try:
        return run_plan(plan, model, progress)
    except NothingReached as exc:
        raise RunAborted(f"no problem reached the model (recorded in {plan.out}/): {exc}",
                         exits.MODEL_ERROR) from None


def _leak_note(summaries: list) -> str | None:
    return LEAK_NOTE if any(s.leaks_tests for s in summaries) else None


CODE_BENCHMARKS = {name: Benchmark(name, _bad_flags, _problems, _plan, _progress, _run,
                                   summary_table, notes, _leak_note)
                   for name in BENCHMARKS}
