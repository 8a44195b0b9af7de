"""Shared fixtures: a scripted OpenAI-compatible server and a way to run the real `interp`."""

from __future__ import annotations

import pexpect
import pytest

from fake_openai import FakeOpenAI
from helpers import interp_cmd, make_interp_env, model_args
from pty_terminal import Term

pytest_plugins = ["local_fixtures"]  # --local: real GGUF models, the local_model tier


@pytest.fixture
def fake_server():
    """A FakeOpenAI server on 127.0.0.1 with an empty script."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def interp_env(tmp_path, monkeypatch):
    """Environment for a real `interp` process: private config/data dirs, no real API keys."""
    return make_interp_env(tmp_path)


@pytest.fixture
def spawn(interp_env, fake_server):
    """Start the real interp on the fake server: spawn(*extra_args, env={...})."""
    terms: list[Term] = []

    def start(*extra: str, env: dict | None = None) -> Term:
        cmd = interp_cmd() + model_args(fake_server) + list(extra)
        # TERM is a real terminal type; nothing answers prompt_toolkit's cursor-position
        # requests in a bare pty, so tell it not to ask (else it prints a warning and waits).
        full_env = dict(interp_env["env"], TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", **(env or {}))
        child = pexpect.spawn(cmd[0], cmd[1:], env=full_env, cwd=str(interp_env["cwd"]),
                              dimensions=(40, 120), encoding="utf-8", timeout=30)
        term = Term(child)
        terms.append(term)
        return term

    yield start
    for term in terms:
        if term.child.isalive():
            term.child.close(force=True)
