"""HandOver (interp/models/handover.py): a hosted provider that refuses interp's own first
request is handed to litellm for good, and the session says so with its own event. Real
servers on 127.0.0.1, real litellm."""

from __future__ import annotations

from fake_openai import FakeOpenAI
from fake_openai import Reply as FakeReply
from helpers import hang_guard
from languages import Registry, RunnerConfig
from languages.shell import ShellRunner

from interp.approval.decision import auto_approve
from interp.core import events as ev
from interp.core.session import Session, SessionConfig
from interp.models.base import HandedOver, Reply
from interp.models.handover import HandOver
from interp.models.reach import model_for

KEY = "sk-host-secret-1234"


def test_a_refused_host_is_handed_over_once_and_stays_with_litellm(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", KEY)
    with FakeOpenAI([FakeReply(status=400, error="property 'x' is unsupported", text="one"),
                     FakeReply(text="two")]) as server:
        model = model_for("groq/llama-3.3-70b-versatile", api_base=server.api_base)
        assert isinstance(model, HandOver) and model.direct and model.provider == "groq"
        with hang_guard():
            first = list(model.stream([{"role": "user", "content": "hi"}]))
            second = list(model.stream([{"role": "user", "content": "hi"}]))
    handed = [i for i in first if isinstance(i, HandedOver)]
    assert [(h.provider, h.status) for h in handed] == [("groq", 400)]
    assert "property 'x' is unsupported" in handed[0].detail and KEY not in handed[0].text
    assert first[-1] == Reply("one", (), first[-1].usage, "stop")
    assert not any(isinstance(i, HandedOver) for i in second) and second[-1].text == "two"
    assert not model.direct and len(server.requests) == 3


def test_the_session_streams_model_handed_over_not_a_retry(monkeypatch, tmp_path):
    monkeypatch.setenv("MISTRAL_API_KEY", KEY)
    with FakeOpenAI([FakeReply(status=400, error="Extra inputs are not permitted",
                               text="Done.")]) as server:
        model = model_for("mistral/mistral-large-latest", api_base=server.api_base)
        session = Session(model, auto_approve,
                          config=SessionConfig(runner=RunnerConfig(cwd=str(tmp_path))),
                          registry=Registry([ShellRunner]))
        try:
            with hang_guard():
                events = list(session.run("say done"))
        finally:
            session.close()
    kinds = [e.type for e in events]
    assert ev.MODEL_HANDED_OVER in kinds and ev.MODEL_RETRY not in kinds
    handed = next(e for e in events if e.type == ev.MODEL_HANDED_OVER).to_dict()
    assert handed["provider"] == "mistral" and handed["status"] == 400
    assert handed["text"].startswith("mistral refused interp's own request (400")
    assert kinds.index(ev.MODEL_HANDED_OVER) < kinds.index(ev.MESSAGE)
