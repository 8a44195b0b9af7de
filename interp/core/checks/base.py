"""What every reply check shares: what it sees (`TaskView`), what it returns (`Request`), and
the `Check` protocol itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from interp.core.blocks import BlockRecord
from interp.models.base import Reply, Slot

# When a check runs: on a reply that proposes blocks, before they run ("proposed"); on a
# reply with nothing to run, which would be the answer ("answer"); on a reply's blocks once
# they ran, instead of asking whether the output answers the task ("report").
Stage = Literal["proposed", "answer", "report"]
# Which models a check is on for under `checks = auto`: every model ("any": it fires only on
# a fact it can see, so it cannot misfire), or models run on this machine ("here": measured
# to help the small local models, and able to ask for code a larger model would not need).
Scope = Literal["any", "here"]


@dataclass(frozen=True)
class Proposed:
    """A block a reply proposes (a Step, as a check needs it)."""

    language: str
    code: str
    cut_off: bool = False  # the reply ran on inside it (to the length limit, or repeating)


@dataclass(frozen=True)
class TaskView:
    """What a check sees: the task as typed, the reply, the blocks it proposes, this task's
    block records so far (`records`; at the report stage the reply's own are the last
    `new`), the working folder, the task's files the model saw only a preview of, and the
    texts the model was shown this task (the task's message, the reports)."""

    task: str
    reply: Reply
    proposed: tuple[Proposed, ...] = ()
    records: tuple[BlockRecord, ...] = ()
    new: int = 0  # how many of `records` the reply under check ran (report stage)
    root: str = "."
    previewed: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()  # files the task names that were not there when it began
    shown: tuple[str, ...] = ()
    tools: bool = False  # the execute tool is offered to the model
    fenced: bool = True  # fenced blocks run (not once the model has used the tool)
    languages: tuple[str, ...] = ("python",)  # the runners' languages
    samples: frozenset[str] = frozenset()  # the sampling the model declares: "retry", "runaway"

    @property
    def ran(self) -> tuple[BlockRecord, ...]:
        """This task's blocks that ran."""
        return tuple(r for r in self.records if r.ran)

    @property
    def latest(self) -> tuple[BlockRecord, ...]:
        """The records of the reply under check (report stage)."""
        return self.records[len(self.records) - self.new:] if self.new else ()


@dataclass(frozen=True)
class Request:
    """What a check asks: the message the model is sent, the line the person sees. At the
    answer and proposed stages the reply is retracted (`retracts`: not sent again, the
    request joins the message before it) unless the request builds on it; `sampling` asks
    the next call to sample as the model declares for "retry" or "runaway" replies. At the
    report stage the message ends the report instead of the usual question, or `block` is
    proposed first (the person approves it like any block) and the checks run again."""

    message: str
    notice: str
    retracts: bool = True
    sampling: Literal["retry", "runaway"] | None = None
    block: Proposed | None = None  # report stage: a block interp proposes itself (approved as any)
    # answer stage: the slots (`@mean[`) the restated answer is to hold, in order; a model
    # that can keep a reply to them (models.base.template_sampling) is held to them
    template: tuple[Slot, ...] = ()
    check: str = ""  # the name of the check that asked (filled in by the list that runs it)


class Check(Protocol):
    """A reply check: a name, a one-line reason, when it runs, which models `auto` turns it
    on for, how many times a task it may ask; called with what it sees, it returns a request
    or None."""

    name: str
    reason: str
    stage: Stage
    scope: Scope
    asks: int  # requests per task at most

    def __call__(self, view: TaskView) -> Request | None: ...


def listed(names: Sequence[str], last: str = "and") -> str:
    """Names as a sentence lists them: "a", "a and b", "a, b and c" (`last`: "or" offers
    them as choices)."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} " + names[-1]
