"""The reply checks, listed once in the order they run, each with its reason; which are on
for a model (`checks = auto | on | off | NAME,...`); and the per-task list that runs them
and remembers how often each asked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from interp.core.checks import answers, form, installs, reports, reruns
from interp.core.checks.base import Check, Request, Scope, Stage, TaskView
from interp.models.base import runs_here

MODES = ("auto", "on", "off")


@dataclass(frozen=True)
class ListedCheck:
    """A check of the list: its function, name, reason, stage, scope, asks per task, and
    whether its request asks for the final answer."""

    name: str
    reason: str
    stage: Stage
    scope: Scope
    run: Callable[[TaskView], Request | None]
    asks: int = 1
    closes: bool = False  # its request asks for the final answer: the list takes the reply
    no_answer: bool = False  # it finds no answer at all: it holds that reply too

    def __call__(self, view: TaskView) -> Request | None:
        return self.run(view)


# In the order they run. Each reason is the general one that earns its place (docs/checks.md
# has what each was measured to do).
CHECKS: tuple[ListedCheck, ...] = (
    ListedCheck("repeat-failed", "code that failed, proposed again unchanged, fails again",
                "proposed", "here", reruns.repeat_failed, asks=1),
    ListedCheck("cut-off", "a block cut off at the length limit is incomplete code",
                "proposed", "here", reruns.cut_off, asks=4),
    ListedCheck("untagged-code", "code in a fence without a language tag does not run",
                "answer", "any", answers.untagged_code),
    ListedCheck("run-first", "an answer about files seen only in preview is a guess",
                "answer", "here", answers.run_first),
    ListedCheck("named-file-missing", "a file the task names and that is not there yet may be "
                "what it asks for", "answer", "here", answers.named_file_missing),
    ListedCheck("acknowledged", "\"ok.\" after the output, to a question, is no answer",
                "answer", "any", answers.acknowledged, no_answer=True),
    ListedCheck("unseen-numbers", "numbers no output showed were made up or worked out in "
                "the head", "answer", "here", answers.unseen_numbers),
    ListedCheck("nan-answer", "a value given as NaN is a selection with no rows or missing "
                "values, not a result", "answer", "here", answers.nan_answer),
    ListedCheck("answer-format", "the task says how to give the answer", "answer", "any",
                form.answer_format),
    ListedCheck("missing-package", "a module pip can install is missing: install it",
                "report", "any", installs.missing_package),
    ListedCheck("failing-streak", "a small model rarely fixes code that failed three times "
                "in a row", "report", "here", reports.failing_streak, closes=True),
    ListedCheck("only-installed", "installing packages does not do the task", "report", "any",
                reports.only_installed),
    ListedCheck("own-expectation", "prints that differ from the code's own comments are "
                "wrong", "report", "any", reports.own_expectation),
    ListedCheck("printed-nothing", "a question whose code printed nothing has no output to "
                "answer from", "report", "here", reports.printed_nothing),
    ListedCheck("copied-script", "a copy of a script run in the session leaves the file "
                "unchanged", "report", "any", reports.copied_script),
)
NAMES = tuple(check.name for check in CHECKS)


def parse_setting(value: str) -> tuple[str, ...] | str:
    """A `checks` setting: one of MODES, or check names separated by commas (exactly
    those); ValueError naming what is not a check."""
    text = value.strip().lower()
    if text in MODES:
        return text
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [name for name in names if name not in NAMES]
    if unknown or not names:
        raise ValueError(f"must be auto, on, off or check names ({', '.join(NAMES)}), "
                         f"not {unknown[0] if unknown else value!r}")
    return names


def active(setting: str | tuple[str, ...], model) -> tuple[ListedCheck, ...]:
    """The checks on for `model` under `setting`: auto = every check for a model that runs
    here, only those of scope "any" (they cannot misfire) for others; on = all; off = none;
    names = exactly those."""
    if setting == "off":
        return ()
    if setting == "on":
        return CHECKS
    if setting == "auto":
        here = runs_here(model)
        return tuple(c for c in CHECKS if here or c.scope == "any")
    return tuple(c for c in CHECKS if c.name in setting)


class TaskChecks:
    """The checks on for this task, run stage by stage; each asks at most its `asks` times
    a task. The answer that replies to a request for the final answer (a check that
    `closes`) is taken as it comes by the list's checks (asked for its form, a model that
    could not do the task writes values it never computed), but for those that find no
    answer at all (a copy of interp's report); those the person asked for (an output schema,
    Stop hooks) still hold it. Once the final answer was asked for (by a check, or by the loop
    guard after failing repeats), no check asks for it again: a further failure ends the task
    (TurnChecks.gave_up)."""

    def __init__(self, checks: tuple[Check, ...]) -> None:
        self.checks = checks  # the list's (ListedCheck), then those the person asked for
        self.asked: dict[str, int] = {}
        self.closing = False  # the last request asked for the final answer
        # what asked for the final answer this task (a check that closes, or the loop guard)
        # and how many blocks had run: asked once, it is not asked again
        self.closed: tuple[str, int] | None = None

    def answer_asked(self, by: str, ran: int) -> None:
        """The final answer was asked for by `by` (not a check of the list: the loop guard)
        after `ran` blocks had run; kept unless a check asked first."""
        if self.closed is None:
            self.closed = (by, ran)

    def first(self, stage: Stage, view: TaskView) -> Request | None:
        """The first request of a check of `stage` that may still ask, or None; counted."""
        closing, self.closing = self.closing and stage == "answer", False
        for check in self.checks:
            if (check.stage != stage or self.asked.get(check.name, 0) >= check.asks
                    or (closing and check.name in NAMES and not check.no_answer)
                    or (self.closed is not None and getattr(check, "closes", False))):
                continue
            request = check(view)
            if request is not None:
                self.asked[check.name] = self.asked.get(check.name, 0) + 1
                closes = check.name in NAMES and check.closes
                self.closing = closing or closes
                self.closed = (check.name, len(view.ran)) if closes else self.closed
                return replace(request, check=check.name)
        return None
