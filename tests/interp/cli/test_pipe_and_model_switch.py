"""A closed output pipe ends interp quietly; /model never sends the configured API base and
key to another provider. The real `interp` in a subprocess against the fake OpenAI server."""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest

from helpers import interp_cmd, model_args

from interp.config.models import switch_model
from interp.config.settings import Settings


def test_json_into_head_exits_quietly(fake_server, interp_env):
    code = "import time\nfor i in range(200):\n    print(i, flush=True)\n    time.sleep(0.01)"
    fake_server.script([f"```python\n{code}\n```", "Done."])
    cmd = shlex.join(interp_cmd() + ["--json", "-y", "-e", "count", *model_args(fake_server)])
    proc = subprocess.run(["bash", "-c", f"{cmd} 2>err.txt | head -2; echo \"${{PIPESTATUS[0]}}\""],
                          capture_output=True, text=True, cwd=interp_env["cwd"],
                          env=interp_env["env"], timeout=120)
    lines = proc.stdout.splitlines()
    assert [json.loads(line)["type"] for line in lines[:2]] == ["session.started", "notice"]
    assert lines[2] == "141"  # as if killed by SIGPIPE
    err = (interp_env["cwd"] / "err.txt").read_text()
    assert "BrokenPipe" not in err and "unexpected error" not in err and "Exception" not in err


def settings(**values) -> Settings:
    return Settings(**{"model": "openai/fake", "api_base": "http://127.0.0.1:9/v1",
                       "api_key": "sk-secret-1", **values})


@pytest.mark.fast
def test_switching_provider_drops_the_api_base_and_key():
    model, note = switch_model(settings(), "anthropic/claude-3-5-haiku-20241022")
    assert model.api_base is None and model._api_key is None
    assert note.startswith("The API base and API key given for openai are not sent to anthropic")


@pytest.mark.fast
def test_same_provider_keeps_them():
    model, note = switch_model(settings(), "gpt-4o")
    assert (model.api_base, model._api_key, note) == ("http://127.0.0.1:9/v1", "sk-secret-1", None)


@pytest.mark.fast
def test_nothing_to_reset_without_a_base_or_key():
    model, note = switch_model(settings(api_base=None, api_key=None), "anthropic/claude-x")
    assert note is None and model.name == "anthropic/claude-x"


@pytest.mark.fast
def test_unknown_provider_is_treated_as_another_one():
    model, note = switch_model(settings(api_base=None), "no-such-provider-model")
    assert model._api_key is None and note.startswith("The API key given for openai is not sent")
