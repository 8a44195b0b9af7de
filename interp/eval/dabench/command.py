"""`interp eval dabench --data DIR`: the DABench questions through interp's loop, scored the
benchmark's way (the command itself: interp/eval/command.py)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from interp.eval.batch import (Progress, progress_bar, results_folder, run_resumable,
                               warn_missing_packages)
from interp.eval.benchmark import Benchmark
from interp.eval.dabench.attempt import run_question
from interp.eval.dabench.data import LEVELS, Question, load_questions, select
from interp.eval.dabench.results import BENCHMARK, DabenchSummary, QuestionStore, notes, summarize, summary_table
from interp.eval.loop import LoopConfig
from interp.models.base import Model

DEFAULT_TURNS = 8
# What the questions' natural solutions import (statistics, tests, regressions, clustering).
PACKAGES = ("pandas", "numpy", "scipy", "sklearn")


@dataclass(frozen=True)
class DabenchPlan:
    """What to run: the questions, where the records go, and how each runs."""

    questions: tuple[Question, ...]
    out: Path
    model_name: str
    jobs: int = 1
    config: LoopConfig = LoopConfig()


def _bad_flags(args) -> str | None:
    """The one line to print for a flag that does not fit DABench, else None."""
    modes = {m.strip().lower() for value in args.feedback for m in value.split(",")}
    if modes - {"self"}:
        return ("dabench runs in interp's own loop (as --feedback self); --feedback takes only "
                "self here")
    if args.data is None:
        return ("dabench reads InfiAgent-DABench's files from a folder: pass --data DIR (holding "
                "da-dev-questions.jsonl, da-dev-labels.jsonl and da-dev-tables/)")
    if any(v is not None and v < 1 for v in (args.limit, args.jobs)):
        return "--limit and --jobs must be at least 1"
    unknown = [level for level in args.levels if level not in LEVELS]
    if unknown:
        return f"--level takes {', '.join(LEVELS)}, not {unknown[0]!r}"
    return None


def _questions(args) -> list[Question]:
    return select(load_questions(args.data), args.ids, args.levels, args.limit)


def _plan(args, settings, questions: list[Question]) -> DabenchPlan:
    from interp.eval.tasks.files import sandbox_works
    from interp.secrets import runner_env_remove_for

    out, name = results_folder(args.out, settings)
    sandbox = sandbox_works()
    if not sandbox:
        sys.stderr.write("interp eval: bubblewrap is not usable here: the questions' code runs "
                         "without the sandbox (limits only)\n")
    python = getattr(settings, "python", None)
    warn_missing_packages(python, PACKAGES, "pip install pandas scipy scikit-learn",
                          "questions")
    config = LoopConfig(turns=settings.max_turns or DEFAULT_TURNS, sandbox=sandbox, python=python,
                        env_remove=runner_env_remove_for(settings), checks=settings.checks)
    return DabenchPlan(questions=tuple(questions), out=out, model_name=name, jobs=args.jobs,
                       config=config)


def run_plan(plan: DabenchPlan, model: Model, progress: Progress | None = None) -> DabenchSummary:
    """Run the plan's questions (skipping those already finished in its folder); the summary."""
    records = run_resumable(plan.questions, lambda q: q.id,
                            lambda q: run_question(q, model, plan.config, plan.model_name),
                            QuestionStore(plan.out), plan.jobs, progress)
    return summarize(plan.model_name, records)


DABENCH = Benchmark(BENCHMARK, _bad_flags, _questions, _plan,
                    lambda plan, enabled: progress_bar(BENCHMARK, enabled),
                    lambda plan, model, progress: [run_plan(plan, model, progress)],
                    lambda summaries: summary_table(summaries[0]),
                    lambda summaries: notes(summaries[0]))
