"""`--local` settings and wiring that need no model: flags, settings, keys, thread defaults."""

from __future__ import annotations

import pytest

from interp.config.local import local_config, no_key_found
from interp.config.models import ModelMaker
from interp.cli.main import optional_resume
from interp.config.settings import ConfigError, Settings, load_settings
from interp.models.calls import StreamedModel
from interp.models.local.server import default_threads, physical_cores
from gguf_samples import sample

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


@pytest.mark.parametrize("args, expected", [
    (["--local"], ["--local", ""]),
    (["--local", "-e", "x"], ["--local", "", "-e", "x"]),
    (["--local", "m.gguf", "-y"], ["--local", "m.gguf", "-y"]),
    (["-e", "--local"], ["-e", "--local"]),  # the task text, not the flag
    (["--resume", "--local"], ["--resume", "latest", "--local", ""]),
])
def test_local_takes_an_optional_path(args, expected):
    assert optional_resume(args) == expected


def test_local_settings_from_env_and_file(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('model = "local"\nlocal_model = "/m.gguf"\nlocal_threads = 3\n')
    env = {"INTERP_LOCAL_CONTEXT": "8192", "INTERP_LOCAL_TEMPERATURE": "0"}
    settings = load_settings({}, env, config)
    assert (settings.model, settings.local_model, settings.local_threads) == ("local", "/m.gguf", 3)
    assert (settings.local_context, settings.local_temperature) == (8192, 0.0)
    assert settings.warnings == ()


@pytest.mark.parametrize("name, value", [("INTERP_LOCAL_THREADS", "0"),
                                         ("INTERP_LOCAL_CONTEXT", "-5"),
                                         ("INTERP_LOCAL_TEMPERATURE", "9"),
                                         ("INTERP_LOCAL_THREADS", "two")])
def test_bad_local_settings_are_config_errors(name, value):
    with pytest.raises(ConfigError, match=name):
        load_settings({}, {name: value}, config_path=None)


def test_no_key_found_looks_at_every_provider_variable():
    empty = Settings()
    assert no_key_found(empty, {"PATH": "/bin", "INTERP_API_KEY": ""})
    assert not no_key_found(empty, {"OPENAI_API_KEY": "sk-1"})
    assert not no_key_found(empty, {"GEMINI_API_KEY": "g"})
    assert not no_key_found(empty, {"MISTRAL_API_KEY": "m"})  # any *_API_KEY counts
    assert no_key_found(empty, {"OPENAI_API_KEY": "  "})
    assert not no_key_found(Settings(api_key="k"), {})


def test_threads_default_to_physical_cores_at_most():
    assert 1 <= default_threads() <= physical_cores()


def test_local_config_follows_the_gguf_and_the_settings(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(sample(context=32768))
    config = local_config(Settings(model="local", local_model=str(path), local_threads=2))
    assert (config.threads, config.context, config.predict) == (2, 0, 4096)
    assert config.temperature == 0.0  # greedy by default: what interp eval measures
    assert local_config(Settings(model="local", local_model=str(path),
                                 local_temperature=0.7)).temperature == 0.7
    small = local_config(Settings(model="local", local_model=str(path), local_context=2048,
                                  local_temperature=0.0))
    assert (small.context, small.predict, small.temperature) == (2048, 512, 0.0)
    capped = local_config(Settings(model="local", local_model=str(path), max_tokens=60))
    assert capped.predict == 60  # --max-tokens caps a --local reply as any other


def test_model_maker_makes_one_local_model_and_others_by_name(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(sample())
    models = ModelMaker(Settings(model="local", local_model=str(path), local_threads=1))
    local = models()
    assert local is models("local") and local.name == "local"
    assert not local.server.alive()  # nothing starts until the first model call
    other = models("anthropic/claude-sonnet-4-5")
    assert isinstance(other, StreamedModel) and other.name == "anthropic/claude-sonnet-4-5"
    models.close()
