"""One DABench question through interp's own loop: a fresh folder holding its table, the
question as a person would type it, and the final answer scored."""

from __future__ import annotations

import shutil
import time

from interp.core import exits
from interp.core.history import provider_messages
from interp.eval.dabench.data import Question
from interp.eval.dabench.results import QuestionRecord
from interp.eval.dabench.scoring import score, values_shown
from interp.eval.folders import fixed_folder
from interp.eval.loop import LoopConfig, model_calls, run_loop, shown_text
from interp.models.base import Model



def task_text(question: Question) -> str:
    """The task as the person types it: the question, its constraints, the table, and the
    form the answer must take (the benchmark's format line)."""
    parts = [question.question]
    if question.constraints:
        parts.append(question.constraints)
    parts.append(f"The data is in {question.file_name}.")
    if question.format:
        parts.append(f"Give your final answer in exactly this format: {question.format}")
    return "\n".join(parts)


def run_question(question: Question, model: Model, config: LoopConfig,
                 model_name: str) -> QuestionRecord:
    """Run one question and score its final answer; a model error is recorded (and the
    question run again on a rerun)."""
    started = time.monotonic()
    text = task_text(question)
    with fixed_folder(f"dabench-{question.id}") as top:
        folder = top / "work"
        folder.mkdir()
        try:
            shutil.copyfile(question.table, folder / question.file_name)
            run = run_loop(text, model, config, folder)
        except Exception as exc:  # a broken runner or sandbox: recorded, tried again on a rerun
            error = f"{type(exc).__name__}: {exc}"
            return QuestionRecord(question.id, question.level, model_name, text, right=False,
                                  reason="harness error", error=error,
                                  seconds=round(time.monotonic() - started, 3))
    result = score(question.labels, run.answer)
    return QuestionRecord(
        task_id=question.id, level=question.level, model=model_name, task=text,
        right=result.right, formatted=result.formatted, shown_right=values_shown(question.labels, shown_text(run.messages)),
        subs=[[s.name, s.label, s.got, s.right] for s in result.subs],
        exit_code=run.exit_code, reason=run.reason, final_message=run.answer,
        model_calls=model_calls(run.messages), prompt_tokens=run.totals.prompt_tokens,
        completion_tokens=run.totals.completion_tokens,
        error=run.notice if run.exit_code == exits.MODEL_ERROR else None,
        seconds=round(time.monotonic() - started, 3), checks=list(run.checks),
        turns=provider_messages(run.messages[1:]))
