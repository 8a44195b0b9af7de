"""Checks on a reply's blocks once they ran, in place of the report's usual question whether
the output answers the task: blocks that only installed packages, a Python block whose prints
differ from what its own comments expect, blocks that failed several times in a row, a block
that printed nothing for a question, and a copy of a script the task names run in the session
while the file stays unchanged."""

from __future__ import annotations

from pathlib import Path

from interp.core.blocks import FAILED
from interp.core.checks.base import Request, TaskView
from interp.bounded import read_at_most
from interp.core.checks.expectations import mismatch_note, mismatches
from interp.core.checks.unprinted import printing, question_words, unprinted
from interp.core.replies.fences import fence
from interp.core.checks.installs import after_installs
from interp.core.files.mentions import mentioned_names
from interp.core.replies.report import long_task, output_with_displays

SILENT_NOTE = "Block {index} printed nothing, so no output answers the task yet."
SILENT_UNNAMED = (" Print the values it asks for and run the code again (state only values you "
                  "see printed).")
SILENT_NAMED = (" The session keeps its variables: reply with this ```python block to print the "
                "values the task asks for (not run yet), then answer from its output:\n{code}")
MIN_LINES = 3  # a script shorter than this is not recognised in a block
SCRIPT_BYTES = 1024 * 1024  # a larger script is not compared
STREAK = 3  # failed blocks in a row after which the model is asked to stop writing code
STREAK_REQUEST = ("Blocks {first} to {last} all failed, so another fix is unlikely to work. Do "
                  "not write more code: reply now with your final answer to the task from what "
                  "the outputs showed, or say what went wrong.")
RUN_WITH = {".py": "python3", ".js": "node", ".mjs": "node", ".cjs": "node", ".sh": "bash"}


def only_installed(view: TaskView) -> Request | None:
    """Blocks that only installed packages do not do the task; when pip says everything was
    installed already, the error before was not a missing package."""
    ask = after_installs(view.latest)
    if ask is None:
        return None
    return Request(ask, "The blocks only installed packages; asking the model to run the code "
                   "that does the task.", retracts=False)


def own_expectation(view: TaskView) -> Request | None:
    """A Python block that ran to the end and printed other than its own comments (or its
    docstrings' examples) expect, for calls the task shows, has not done what the person
    meant: the model is shown the difference instead of being asked whether the output
    answers the task. A comment on a call the task never shows is the model's guess: not
    held against the code."""
    last = _last_ran(view)
    if last is None or last.status != "ok" or last.language != "python":
        return None
    found = [m for m in mismatches(last.code, last.output_text()) if m.shown_in(view.task)]
    if not found:
        return None
    return Request(mismatch_note(found), "The block printed other than its own comments "
                   "expect; telling the model.", retracts=False)


def failing_streak(view: TaskView) -> Request | None:
    """STREAK blocks that failed in a row, the last of them just now: the model is asked for
    its answer, or what went wrong, instead of another fix (the last STREAK all the same code
    are the loop guard's, which asks the same). The 1.5B local model made no task right after
    three failures in a row (docs/checks.md), and each further fix cost a call and a run."""
    streak = 0
    for record in view.ran:
        streak = streak + 1 if record.status in FAILED else 0
    failed = view.ran[len(view.ran) - streak:]
    if (streak < STREAK or _last_ran(view) is None  # nothing of this reply ran
            or len({r.code.strip() for r in failed[-STREAK:]}) < 2):  # the loop guard's
        return None
    return Request(STREAK_REQUEST.format(first=failed[0].index, last=failed[-1].index),
                   f"{streak} blocks in a row failed; asking the model for its answer or what "
                   "went wrong.", retracts=False)


def printed_nothing(view: TaskView) -> Request | None:
    """A one-line question whose Python blocks printed nothing has no output to answer from:
    the model is told so, with a block that prints the values the code computed that the
    question names (small models otherwise state values they never saw)."""
    latest = view.latest
    last = _last_ran(view)
    if (last is None or last.status != "ok" or last.language != "python"
            or long_task(view.task) or not question_words(view.task)
            or any(output_with_displays(r).strip() for r in latest)):
        return None
    names = unprinted(last.code, view.task)
    message = SILENT_NOTE.format(index=last.index) + (
        SILENT_NAMED.format(code=fence(printing(names), "python")) if names else SILENT_UNNAMED)
    return Request(message, f"Block {last.index} printed nothing; telling the model.",
                   retracts=False)


def copied_script(view: TaskView) -> Request | None:
    """A block that ran most lines of a script the task names, while the script itself did not
    change, ran a copy in the session: the model is told the file is unchanged."""
    changed = {name for r in view.latest if r.files for name in (*r.files.created,
                                                                  *r.files.modified)}
    names = [n for n in mentioned_names(view.task, view.root)
             if Path(n).suffix.lower() in RUN_WITH and n not in changed]
    for record in view.latest:
        if not record.ran:
            continue
        for name in names:
            if _holds_most(record.code, Path(view.root) / name):
                run = f"{RUN_WITH[Path(name).suffix.lower()]} {name}"
                return Request(f"Note: this code ran in the session, and {name} itself is "
                               f"unchanged. If the task is to change {name}, save the new code "
                               f"to it (a ```bash block with `cat > {name} <<'EOF'`, the code, "
                               f"then `EOF`) and run it with `{run}`.",
                               f"The block ran a copy of {name}, which is unchanged; telling "
                               "the model.", retracts=False)
    return None


def _last_ran(view: TaskView):
    ran = [r for r in view.latest if r.ran]
    return ran[-1] if ran else None


def _lines(text: str) -> set[str]:
    return {line.strip() for line in text.splitlines() if line.strip()}


def _holds_most(code: str, script: Path) -> bool:
    """Whether a block holds most lines of `script` (one of at least MIN_LINES, of at most
    SCRIPT_BYTES: a larger one is not read)."""
    try:
        wanted = _lines(read_at_most(script, SCRIPT_BYTES).decode("utf-8", "replace"))
    except OSError:
        return False
    return len(wanted) >= MIN_LINES and len(wanted & _lines(code)) * 2 >= len(wanted)
