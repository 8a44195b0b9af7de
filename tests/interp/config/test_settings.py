import re
from pathlib import Path

import pytest

from interp.config.settings import (

    NO_MODEL_HELP,
    ConfigError,
    Settings,
    config_dir,
    data_dir,
    default_config_path,
    load_settings,
    no_model_help,
)

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_nothing_set(tmp_path):
    s = load_settings({}, environ={}, config_path=tmp_path / "missing.toml")
    assert s == Settings()
    assert s.model is None and s.max_turns == 20 and s.timeout == 600.0
    assert s.tools == "auto" and s.auto_approve is False and s.warnings == ()


def test_precedence_each_level_overrides_next(tmp_path):
    cfg = write(tmp_path / "config.toml", 'model = "file-model"\nmax_turns = 5\ntimeout = 30\napi_base = "http://file"\n')
    env = {"INTERP_MODEL": "env-model", "INTERP_MAX_TURNS": "7"}
    cli = {"model": "cli-model", "max_turns": None, "timeout": None}
    s = load_settings(cli, environ=env, config_path=cfg)
    assert s.model == "cli-model"  # CLI beats env and file
    assert s.max_turns == 7  # env beats file; CLI None means unset
    assert s.timeout == 30.0 and isinstance(s.timeout, float)  # file beats default
    assert s.api_base == "http://file"
    assert s.debug is False  # default


def test_env_parsing(tmp_path):
    env = {
        "INTERP_AUTO_APPROVE": "yes",
        "INTERP_TIMEOUT": "2.5",
        "INTERP_PYTHON": "/usr/bin/python3",
        "INTERP_TOOLS": "0",
        "INTERP_API_BASE": "",  # empty means unset
    }
    s = load_settings({}, environ=env, config_path=tmp_path / "none.toml")
    assert s.auto_approve is True and s.timeout == 2.5 and s.tools == "off"
    assert s.python == "/usr/bin/python3" and s.api_base is None


def test_xdg_config_home_honoured(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert config_dir(env) == tmp_path / "xdg" / "interp"
    assert default_config_path(env) == tmp_path / "xdg" / "interp" / "config.toml"
    write(default_config_path(env), 'model = "from-xdg"\n')
    assert load_settings({}, environ=env).model == "from-xdg"


def test_xdg_data_home_honoured(tmp_path):
    assert data_dir({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "interp"
    assert data_dir({"XDG_DATA_HOME": "relative"}).is_absolute()  # relative is ignored


def test_malformed_toml_names_file(tmp_path):
    cfg = write(tmp_path / "config.toml", "model = \n[[[")
    with pytest.raises(ConfigError) as err:
        load_settings({}, environ={}, config_path=cfg)
    assert str(cfg) in str(err.value) and "invalid TOML" in str(err.value)


def test_non_utf8_toml_is_config_error(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_bytes(b'model = "\xff\xfe"\n')
    with pytest.raises(ConfigError, match="config.toml"):
        load_settings({}, environ={}, config_path=cfg)


def test_config_path_is_directory(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings({}, environ={}, config_path=tmp_path)


@pytest.mark.parametrize(
    "var,value,problem",
    [
        ("INTERP_MAX_TURNS", "ten", "integer"),
        ("INTERP_MAX_TURNS", "2.5", "integer"),
        ("INTERP_MAX_TURNS", "0", "at least 1"),
        ("INTERP_TIMEOUT", "soon", "number"),
        ("INTERP_TIMEOUT", "-1", "positive"),
        ("INTERP_AUTO_APPROVE", "maybe", "true/false"),
    ],
)
def test_bad_env_values_name_the_variable(tmp_path, var, value, problem):
    with pytest.raises(ConfigError) as err:
        load_settings({}, environ={var: value}, config_path=tmp_path / "none.toml")
    assert var in str(err.value) and problem in str(err.value)


@pytest.mark.parametrize(
    "text,problem",
    [
        ('max_turns = "10"', "expected int"),
        ("max_turns = true", "expected int"),
        ("timeout = -5", "positive"),
        ("auto_approve = 1", "expected bool"),
        ("model = 3", "expected str"),
    ],
)
def test_bad_file_values_name_file_and_key(tmp_path, text, problem):
    cfg = write(tmp_path / "config.toml", text + "\n")
    with pytest.raises(ConfigError) as err:
        load_settings({}, environ={}, config_path=cfg)
    key = text.split(" ")[0]
    assert str(cfg) in str(err.value) and key in str(err.value) and problem in str(err.value)


def test_bad_cli_value_names_option(tmp_path):
    with pytest.raises(ConfigError, match="--timeout"):
        load_settings({"timeout": -1.0}, environ={}, config_path=tmp_path / "none.toml")


def test_unknown_keys_and_tables(tmp_path):
    cfg = write(
        tmp_path / "config.toml",
        'modle = "typo"\nmodel = "m"\n[approval]\nmode = "strict"\n',
    )
    s = load_settings({"resume": "x", "model": None}, environ={"INTERP_FOO": "1"}, config_path=cfg)
    assert s.model == "m"
    assert len(s.warnings) == 1 and "'modle'" in s.warnings[0] and str(cfg) in s.warnings[0]


def test_api_key_not_in_repr(tmp_path):
    s = load_settings({}, environ={"INTERP_API_KEY": "sk-verysecret123"}, config_path=tmp_path / "x.toml")
    assert s.api_key == "sk-verysecret123"
    assert "sk-verysecret123" not in repr(s) and "api_key" not in repr(s)


def test_settings_frozen():
    with pytest.raises(AttributeError):
        Settings().model = "x"  # type: ignore[misc]


def test_no_model_help(tmp_path):
    for text in ("OPENAI_API_KEY", "gpt-4o", "anthropic/claude-sonnet-4-5", "ANTHROPIC_API_KEY",
                 "ollama/llama3.1", "INTERP_MODEL", "{config_path}"):
        assert text in NO_MODEL_HELP
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    assert str(tmp_path / "interp" / "config.toml") in no_model_help(env)


def test_instructions_compaction_and_window_settings(tmp_path):
    s = load_settings({}, environ={}, config_path=tmp_path / "missing.toml")
    assert s.instructions is True and s.compact_at == 70 and s.context_window is None
    cfg = write(tmp_path / "config.toml", "instructions = false\ncompact_at = 50\n"
                                          "context_window = 8192\n")
    s = load_settings({}, environ={}, config_path=cfg)
    assert (s.instructions, s.compact_at, s.context_window) == (False, 50, 8192)
    s = load_settings({"instructions": None}, environ={"INTERP_INSTRUCTIONS": "1",
                                                        "INTERP_COMPACT_AT": "0"}, config_path=cfg)
    assert s.instructions is True and s.compact_at == 0  # 0: never automatically
    assert load_settings({"instructions": False}, environ={"INTERP_INSTRUCTIONS": "1"},
                         config_path=cfg).instructions is False  # --no-instructions wins


@pytest.mark.parametrize("text, problem", [
    ("compact_at = 99\n", "compact_at: must be a percentage from 0 (never) to 95, got 99"),
    ("context_window = 0\n", "context_window: must be at least 1, got 0"),
    ("instructions = \"no\"\n", "instructions: expected bool"),
])
def test_bad_compaction_values_name_the_key(tmp_path, text, problem):
    cfg = write(tmp_path / "config.toml", text)
    with pytest.raises(ConfigError, match=re.escape(problem)):
        load_settings({}, environ={}, config_path=cfg)


def test_a_subcommand_s_defaults_sit_under_the_variables_and_the_file(tmp_path):
    """`interp eval` has its own defaults for the reply length and the model calls (the
    benchmark's), declared with the settings; the flags, variables and file still win."""
    plain = load_settings({}, environ={}, config_path=tmp_path / "none.toml")
    scored = load_settings({}, environ={}, config_path=tmp_path / "none.toml", command="eval")
    assert (plain.max_tokens, plain.max_turns) == (8192, 20)
    assert (scored.max_tokens, scored.max_turns) == (1024, None)
    (tmp_path / "c.toml").write_text("max_tokens = 2000\n")
    filed = load_settings({}, environ={"INTERP_MAX_TURNS": "6"}, config_path=tmp_path / "c.toml",
                          command="eval")
    assert (filed.max_tokens, filed.max_turns) == (2000, 6)
    flagged = load_settings({"max_tokens": 300}, environ={}, config_path=tmp_path / "c.toml",
                            command="eval")
    assert flagged.max_tokens == 300
