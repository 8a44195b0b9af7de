"""Shared fixtures: a scripted OpenAI-compatible server and a way to run the real `interp`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake_server():
    """A FakeOpenAI server on 127.0.0.1 with an empty script."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def interp_env(tmp_path, monkeypatch):
    """Environment for a real `interp` process: private config/data dirs, no real API keys."""
    return make_interp_env(tmp_path)


def make_interp_env(tmp_path: Path) -> dict:
    """What the interp_env fixture returns, for any directory (e.g. a module-scoped one)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("INTERP_") and not k.endswith("_API_KEY")}
    env.update({
        "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True", "NO_COLOR": "1", "COLUMNS": "100",
        "PYTHONUNBUFFERED": "1",
    })
    env.pop("EDITOR", None)
    env.pop("VISUAL", None)
    work = tmp_path / "work"
    work.mkdir()
    return {"env": env, "cwd": work, "data": tmp_path / "data"}


def interp_cmd() -> list[str]:
    """The installed `interp` script next to this interpreter, or `python -m interp`."""
    script = Path(sys.executable).with_name("interp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "interp"]


def model_args(server: FakeOpenAI, name: str = "fake-model") -> list[str]:
    """Flags that point interp at the fake server."""
    return ["--model", f"openai/{name}", "--api-base", server.api_base, "--api-key", "sk-test-123456"]


def run_interp(args: list[str], interp_env: dict, *, input: str | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the real `interp` to completion with stdin not a terminal."""
    return subprocess.run(interp_cmd() + args, input=input or "", capture_output=True, text=True,
                          env=interp_env["env"], cwd=interp_env["cwd"], timeout=timeout)
