"""What the model is told about a block, rendered in one place from its BlockRecord."""

from __future__ import annotations

import os
import re
import sys

from languages import Result

from interp.core.blocks import BlockRecord
from interp.core.replies.fences import fence
from interp.core.replies.figures import plot_text
from interp.core.history import Entry
from interp.models.base import runs_here


def model_text(record: BlockRecord, plots: bool = False, chars: int | None = None) -> str:
    """What the model is told about one block: for a block that ran, its bounded output (at
    most `chars` characters of it; None: what the runner kept), with the text of each figure
    and table it showed (`plots`: what each figure plots, for a model that cannot see them),
    the files it changed, a hint for a missing data package, and how it ended; for one that
    did not, why."""
    if record.declined or record.denied:
        return describe_decline(record.reason, policy=record.denied)
    if not record.ran:
        return record.reason or "No result was recorded for this block."
    parts = []
    if record.edited:
        parts.append(f"The user edited the code before running it. The code that ran:\n"
                     f"{fence(record.code, record.language)}")
    printed = output_with_displays(record, chars)
    text = printed.rstrip("\n")
    parts.append(f"Output:\n{fence(text)}" if text else _no_output(printed.count("\n")))
    if record.language == "python" and record.status != "ok" and (
            hint := missing_package_hint(text, record.python)):
        parts.append(hint)
    if plots:
        parts += [plot_text(path, plot) for path, plot in record.plots.items()]
    if record.files is not None and record.files.text:
        parts.append(record.files.text)
    parts.append(f"Result: {record.result}.")
    return "\n".join(parts)


def report_text(records: list[BlockRecord], plots: bool = False,
                chars: int | None = None) -> str:
    """The one message that reports a reply's fenced blocks: a header per block, then its text."""
    return "\n\n".join(f"[Block {r.index}, {r.language or 'untagged'}]\n"
                        f"{model_text(r, plots, chars)}" for r in records)


def report_messages(records: list[BlockRecord], plots: bool = False,
                    chars: int | None = None) -> list[Entry]:
    """The entries that tell the model about a reply's blocks: a tool result per execute call
    and one user message for the fenced blocks (`plots`: with what each figure plots, for a
    model that cannot see them; `chars`: at most so many characters of each output). Each
    keeps the records of the blocks it reports (never sent) and the figures to show a vision
    model."""
    entries = [Entry({"role": "tool", "tool_call_id": r.call_id,
                      "content": model_text(r, plots, chars)},
                     output=True, blocks=(r,), images=tuple(r.figures))
               for r in records if r.call_id is not None]
    plain = [r for r in records if r.call_id is None]
    if plain:
        entries.append(Entry({"role": "user", "content": report_text(plain, plots, chars)},
                             output=True, blocks=tuple(plain),
                             images=tuple(p for r in plain for p in r.figures)))
    return entries


TASK_CHARS = 300  # a longer task is not restated after a report
ANSWER_CHECK = ("If the output above answers it, reply to the user with the answer (the values "
                "you found) and no code. If it does not, run more code.")
# The same, for a task that says how its answer is to be given (interp/core/checks/form.py).
FORM_CHECK = ("If the output above answers it, reply to the user with the answer in the form "
              "the task asks for ({form}), with the values you found, and no code. If it does "
              "not, run more code.")
FIX_REQUEST = "The code failed, so the task is not done yet. Fix the error and run the code again."


def _no_output(lines: int) -> str:
    """"No output.", or that `lines` empty lines were printed (print('') of an empty result)."""
    if not lines:
        return "No output."
    return f"Output: {lines} empty line{'s' if lines != 1 else ''} (nothing else was printed)."


def next_step(records: list[BlockRecord], task: str, form: str = "") -> str | None:
    """What the model is asked after its blocks' report, with its task restated (small models
    lose it behind long output): when the last block ran to the end, whether the output
    answers the task (else they run the same code again, or answer "Result: ok."); when it
    failed, to fix it (else they explain the error and stop). `form`: how the task says its
    answer is to be given (quoted in the question). A reply check may ask something else
    instead (interp/core/checks, report stage)."""
    considered = [r for r in records if r.status != "skipped"] or records  # not run on purpose
    last = considered[-1] if considered else None
    if last is None or not last.ran or last.status in ("interrupted", "timeout"):
        return None
    if last.status != "ok":
        return restated(task, FIX_REQUEST)
    return restated(task, FORM_CHECK.format(form=form) if form else ANSWER_CHECK)


def restated(task: str, ask: str) -> str:
    """`ask` after the task restated (a long task is not repeated)."""
    if long_task(task):
        return ask.replace("answers it", "answers your task")
    return f"Your task: {task.strip()}\n{ask}"


def long_task(task: str) -> bool:
    """A task of more than one line or TASK_CHARS (a prompt with code, not a question)."""
    return len(task) > TASK_CHARS or "\n" in task.strip()


def with_footer(entries: list[Entry], footer: str | None) -> list[Entry]:
    """The report entries with `footer` on a line of its own at the end of the last one."""
    if not footer or not entries:
        return entries
    last = entries[-1]
    return [*entries[:-1], last.with_content(f"{last.content}\n{footer}")]


def output_with_displays(record: BlockRecord, chars: int | None = None) -> str:
    """The bounded output (at most `chars` characters of it) followed by the text of each
    display, as the runner words it."""
    return Result(status=record.status, output=record.captured(),
                  displays=record.displays).model_text(chars)


LOCAL_OUTPUT_CHARS = 4000  # of a block's output, for a model run on this machine (below)


def output_chars(setting: int | None, model) -> int | None:
    """How many characters of a block's output the model is given: the `max_output` setting;
    unset, LOCAL_OUTPUT_CHARS for a model run on this machine (on a CPU it reads a prompt at
    tens of tokens a second, and a long output costs minutes a call: a printed table of
    numbers runs near a token a character), else None (what the runner kept: 16000)."""
    if setting is not None:
        return setting
    return LOCAL_OUTPUT_CHARS if runs_here(model) else None




# Modules data code often needs -> the package that provides them; "data" marks interp[data].
DATA_PACKAGES = {
    "pandas": ("pandas", True), "matplotlib": ("matplotlib", True),
    "openpyxl": ("openpyxl", True), "nbformat": ("nbformat", True),
    "numpy": ("numpy", False), "scipy": ("scipy", False), "seaborn": ("seaborn", False),
    "xlrd": ("xlrd", False), "pyarrow": ("pyarrow", False), "polars": ("polars", False),
    "plotly": ("plotly", False), "statsmodels": ("statsmodels", False),
    "tabulate": ("tabulate", False), "sklearn": ("scikit-learn", False),
    "PIL": ("pillow", False), "yaml": ("pyyaml", False),
}



_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")



def missing_package_hint(output: str, python: str | None = None) -> str:
    """A one-line install hint when `output` shows a known data package missing, else ""."""
    found = _MISSING.findall(output)
    if not found:
        return ""
    module = found[-1].split(".")[0]
    if module not in DATA_PACKAGES:
        return ""
    package, in_extra = DATA_PACKAGES[module]
    where = f" ({python})" if python else ""
    pip = f"{python} -m pip" if python else "pip"
    text = (f"Hint: {package} is not installed in the Python that runs the blocks{where}; "
            f"install it with `{pip} install {package}`")
    if in_extra and (python is None or _same_env(python, sys.executable)):
        text += " (or all of interp's data packages with `pip install 'interp[data]'`)"
    return text + ", or do without it."



def describe_decline(reason: str | None, policy: bool = False) -> str:
    """What the model is told when a block was not run."""
    who = "denied by policy" if policy else "declined by the user"
    return f"The block was {who} and did not run." + (f" Reason: {reason}" if reason else "")



def _same_env(python: str, other: str) -> bool:
    """Whether two interpreter paths live in the same bin directory (the same environment)."""
    return os.path.dirname(os.path.abspath(python)) == os.path.dirname(os.path.abspath(other))
