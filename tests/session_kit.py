"""Helpers for tests of the library Session against the fake OpenAI server."""

from __future__ import annotations

from helpers import hang_guard as shared_guard

from interp.approval.decision import RUN, Decision, Proposal
from interp.core import events as ev
from interp.core.session import Session
from interp.models.reach import model_for


KEY = "sk-test-123456"


GUARD = 60.0  # seconds; a hang guard only


def hang_guard(seconds: float = GUARD):
    """The shared hang guard, worded for a session."""
    return shared_guard(seconds, "no task.finished")


class Person:
    """Stands in for the person at the approval question: records what it was asked (and
    why, `Proposal.why`), answers `answer`."""

    def __init__(self, answer: Decision = RUN) -> None:
        self.answer = answer
        self.asked: list[Proposal] = []

    def __call__(self, proposal: Proposal) -> Decision:
        self.asked.append(proposal)
        return self.answer


def run(session: Session, task: str, on_event=None) -> list[ev.Event]:
    """All events of one task except the streamed deltas; the last one is task.finished."""
    out = []
    with hang_guard():
        for item in session.run(task):
            if on_event is not None:
                on_event(item)
            if item.type != ev.MESSAGE_DELTA:
                out.append(item)
    assert out[-1].type == "task.finished"
    return out


def of(events, kind):
    return [e.body() for e in events if e.type == kind]


def finished(events):
    """How the task ended: its exit code and reason (the answer it carries: `answer`)."""
    body = events[-1].body()
    return {"exit_code": body["exit_code"], "reason": body["reason"]}


def answer(events):
    """The final answer task.finished carries, or None."""
    return events[-1].body().get("answer")


def contents(request: dict) -> list[str]:
    return [m.get("content") or "" for m in request["messages"]]


def py(code: str) -> str:
    return f"```python\n{code}\n```"


class SamplingClient:
    """interp's real client for a model, taking a call's `sampling` as LocalModel does: into
    that request's parameters. Subclasses declare what the model declares (`retry_sampling`,
    `template_sampling`, ...)."""

    def __init__(self, name, **options) -> None:
        self.inner = model_for(name, **options)
        self.name = self.inner.name

    def stream(self, messages, tools=None, *, sampling=None):
        self.inner.params = dict(sampling or {})
        return self.inner.stream(messages, tools)

    def __getattr__(self, name):
        return getattr(self.inner, name)
