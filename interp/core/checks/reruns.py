"""A check on a reply that proposes blocks, before they run: a block cut off at the length
limit. Greedy decoding writes the same reply again when asked the same way, so it is retracted
and the next call samples as the model declares (LocalModel: `runaway_sampling`).

Failed code proposed again unchanged is not a check: it runs again, and the loop guard
(interp/core/loop/repeats.py) says so and asks for the answer after three runs."""

from __future__ import annotations

from interp.core.checks.base import Request, TaskView

CUT_OFF_NOTE = ("Note: your last reply ran on to the length limit inside its code block, so it "
                "was not run. Write the code again, shorter, without repeating lines.")
CUT_OFF_NOTICE = ("The reply ran on to the length limit inside a code block; it was not run. "
                  "Asking again with sampling, repeats penalised.")


def cut_off(view: TaskView) -> Request | None:
    """A reply cut off at the length limit inside each of its blocks is not run (its code is
    incomplete); asked again, repeated text is penalised."""
    if ("runaway" not in view.samples or not view.proposed or view.reply.tool_calls
            or not all(p.cut_off for p in view.proposed)):
        return None
    return Request(CUT_OFF_NOTE, CUT_OFF_NOTICE, sampling="runaway")
