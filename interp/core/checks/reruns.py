"""Checks on a reply that proposes blocks, before they run: code that already failed, proposed
again unchanged, and a block cut off at the length limit. Greedy decoding writes the same
reply again when asked the same way, so both are retracted and the next call samples as the
model declares (LocalModel: `retry_sampling`, `runaway_sampling`)."""

from __future__ import annotations

from interp.core.checks.base import Request, TaskView
from interp.core.checks.installs import installed_nothing, only_installs
from interp.core.blocks import failing_line
from interp.models.base import REPEATING

RESAMPLE_NOTE = ("Note: your last reply proposed the code of block {index} again, which "
                 "failed{where}; it was not run. Write changed code that avoids that error.")
RESAMPLE_NOTICE = ("The model proposed the code of block {index} again, which {what}; it was "
                   "not run. Asking again with sampling.")
UNCHANGED_NOTE = ("Note: your last reply proposed the code of block {index} again, which "
                  "installed nothing (it was all installed already); it was not run. Write "
                  "changed code that avoids the error before it.")
CUT_OFF_NOTE = ("Note: your last reply ran on to the length limit inside its code block, so it "
                "was not run. Write the code again, shorter, without repeating lines.")
CUT_OFF_NOTICE = ("The reply ran on to the length limit inside a code block; it was not run. "
                  "Asking again with sampling, repeats penalised.")
STOPPED_NOTE = ("Note: your last reply kept repeating itself inside its code block, so it was "
                "stopped and not run. Write the code again, shorter, without repeating lines.")
STOPPED_NOTICE = ("The reply kept repeating itself inside a code block and was stopped; it was "
                  "not run. Asking again with sampling, repeats penalised.")


def repeat_failed(view: TaskView) -> Request | None:
    """A reply whose blocks all propose code that failed this task, with nothing but failures
    run since, is not run: it would fail again. An install that installed nothing changed
    nothing: it counts as a failure, not as a change."""
    if "retry" not in view.samples or not view.proposed or view.reply.tool_calls:
        return None
    failed: dict[tuple[str, str], int] = {}
    for record in view.ran:
        if record.status == "error" or _changed_nothing(record):
            failed[(record.language, record.code.strip())] = record.index
        else:
            failed.clear()  # what ran since may have changed what the failed code meets
    indices = [failed.get((p.language, p.code.strip())) for p in view.proposed]
    if None in indices:
        return None
    index = indices[-1]
    record = next(r for r in view.ran if r.index == index)
    if record.status != "error":
        return Request(UNCHANGED_NOTE.format(index=index), RESAMPLE_NOTICE.format(
            index=index, what="installed nothing"), sampling="retry")
    line = failing_line(record.code, record.output_text(), index)
    where = f" on line {line[0]}: `{line[1]}`" if line else ""
    return Request(RESAMPLE_NOTE.format(index=index, where=where),
                   RESAMPLE_NOTICE.format(index=index, what="failed"), sampling="retry")


def _changed_nothing(record) -> bool:
    return only_installs(record.language, record.code) and installed_nothing(record.output_text())


def cut_off(view: TaskView) -> Request | None:
    """A reply cut off inside each of its blocks, at the length limit or stopped repeating
    itself, is not run (its code is incomplete); asked again, repeated text is penalised."""
    if ("runaway" not in view.samples or not view.proposed or view.reply.tool_calls
            or not all(p.cut_off for p in view.proposed)):
        return None
    if view.reply.finish_reason == REPEATING:
        return Request(STOPPED_NOTE, STOPPED_NOTICE, sampling="runaway")
    return Request(CUT_OFF_NOTE, CUT_OFF_NOTICE, sampling="runaway")
