"""`interp eval BENCHMARK`: the flags, then one run for every benchmark: its items, the
settings and the model, the run with a progress bar (Ctrl-C leaves the records to resume
from), the figures. Each benchmark declares its parts as a `Benchmark` (benchmark.py)."""

from __future__ import annotations

import json
import os
import sys

from interp.core import exits
from interp.eval.benchmark import Benchmark, EvalArgs, RunAborted
from interp.eval.setup import fail

__all__ = ["EvalArgs", "run_eval_command"]


def _benchmark(name: str) -> Benchmark | None:
    """The declaration of a benchmark by its name, imported only when it runs."""
    if name == "tasks":
        from interp.eval.tasks.command import TASKS_BENCHMARK

        return TASKS_BENCHMARK
    if name == "dabench":
        from interp.eval.dabench.command import DABENCH

        return DABENCH
    from interp.eval.code_benchmarks import CODE_BENCHMARKS

    return CODE_BENCHMARKS.get(name)


def run_eval_command(args: EvalArgs, cli: dict) -> int:
    """Run the benchmark; prints the table (or JSON); returns the exit status."""
    from interp.config.settings import ConfigError, load_settings
    from interp.errors import UsageError
    from interp.eval.data import BENCHMARKS, DataError
    from interp.eval.setup import LoadLines, close, eval_model, with_model

    bench = _benchmark(args.benchmark)
    if bench is None:
        return fail(f"unknown benchmark {args.benchmark!r}; choose one of tasks, dabench, "
                    f"{', '.join(BENCHMARKS)}")
    problem = bench.bad_flags(args)
    if problem:
        return fail(problem)
    try:
        settings = with_model(load_settings(cli, command="eval"))
        items = bench.items(args)
    except (ConfigError, DataError) as exc:
        return fail(str(exc))
    if settings is None:
        return exits.USAGE
    if not items:
        return fail("no item of the benchmark matches the flags")
    lines = LoadLines()
    try:
        settings, model = eval_model(settings, args.temperature, settings.max_tokens, lines)
    except UsageError as exc:
        return fail(str(exc).removeprefix("interp: "))
    plan = bench.plan(args, settings, items)
    try:
        with bench.progress(plan, not args.json and sys.stderr.isatty()) as progress:
            summaries = bench.run(plan, model, progress)
    except KeyboardInterrupt:
        _abort(model, lines, f"interrupted; results so far are in {plan.out} (run the same "
               "command again to resume)", exits.INTERRUPTED)
    except RunAborted as exc:
        _abort(model, lines, str(exc), exc.code)
    finally:
        close(model)
    _print(bench, summaries, plan, args.json)
    return exits.OK


def _abort(model, lines, message: str, code: int) -> None:
    """The model closed, one line, and out at once: worker threads may be waiting on the model,
    so they are not joined. The line comes last: a worker still solving a problem can start
    the local model's load again until the process exits, and `lines` drops that load's line."""
    from interp.eval.setup import close

    close(model)
    lines.last(message)
    os._exit(code)


def _print(bench: Benchmark, summaries: list, plan, as_json: bool) -> None:
    if as_json:
        payload = {"benchmark": bench.name, "model": plan.model_name, "out": str(plan.out),
                   "summaries": [s.to_dict() for s in summaries]}
        if note := bench.json_note(summaries):
            payload["note"] = note
        sys.stdout.write(json.dumps(payload) + "\n")
        return
    from rich.console import Console

    console = Console()
    console.print(bench.table(summaries))
    for line in bench.notes(summaries):
        console.print(line, markup=False, highlight=False)
    console.print(f"Results: {plan.out}/", markup=False, highlight=False)
