"""Shared fixtures: a scripted OpenAI-compatible server and a way to run the real `interp`."""

from __future__ import annotations

import pytest

from fake_openai import FakeOpenAI
from helpers import make_interp_env


@pytest.fixture
def fake_server():
    """A FakeOpenAI server on 127.0.0.1 with an empty script."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def interp_env(tmp_path, monkeypatch):
    """Environment for a real `interp` process: private config/data dirs, no real API keys."""
    return make_interp_env(tmp_path)
