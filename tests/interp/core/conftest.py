"""Fixtures for the Session tests: a fake server and sessions closed at teardown."""

from __future__ import annotations

import pytest

from fake_openai import FakeOpenAI
from session_kit import KEY

from interp.approval.decision import auto_approve
from interp.core.session import Session, SessionConfig
from interp.models.reach import model_for
from languages import Registry, RunnerConfig
from languages.python import PythonRunner
from languages.shell import ShellRunner


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def make_session(tmp_path):
    """make_session(server, approver=..., model=..., **config) -> Session (closed at teardown)."""
    made = []
    work = tmp_path / "work"
    work.mkdir()

    def make(server, approver=auto_approve, *, model: str = "fake-model", log=None,
             model_cls=model_for, api_base: str | None = None, **config):
        llm = model_cls(f"openai/{model}", api_base=api_base or server.api_base, api_key=KEY)
        config.setdefault("runner", RunnerConfig(cwd=str(work)))
        session = Session(llm, approver, config=SessionConfig(**config),
                          registry=Registry([PythonRunner, ShellRunner]), log=log)
        made.append(session)
        return session

    make.work = work
    yield make
    for session in made:
        session.close()
