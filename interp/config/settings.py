"""Typed settings: CLI > environment > config.toml > defaults.

Unknown keys in ``config.toml`` are never fatal. The ``[approval]``, ``[mcp_servers]`` and
``[hooks]`` tables are passed on as read (``Settings.approval``, ``Settings.mcp_servers``,
``Settings.hooks``), for the parts that check them (``interp.approval.policy``,
``interp.mcp.client.config``, ``interp.hooks.config``); other tables belong to other
parts of the program and are skipped without comment; unknown
top-level scalar keys (usually typos like ``modle``) are ignored and reported in
``Settings.warnings`` so the CLI can print them. Unknown CLI keys are ignored,
since the CLI may pass options that are not settings.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import field, fields, make_dataclass
from pathlib import Path
from typing import Any

import platformdirs

from interp.config.options import BY_NAME, OPTIONS, Invalid, Option

APP_NAME = "interp"
APPROVAL_TABLE = "approval"
MCP_SERVERS_TABLE = "mcp_servers"  # [mcp_servers.NAME]: MCP servers whose tools the model uses
HOOKS_TABLE = "hooks"  # [[hooks.EVENT]]: commands run around blocks, tasks and sessions
# Tables passed on as read, each checked by the part that uses it.
PASSED_TABLES = (APPROVAL_TABLE, MCP_SERVERS_TABLE, HOOKS_TABLE)
RUNNERS_TABLE = "runners"  # [runners] LANGUAGE = "RUNNER" (see languages.jupyter.choice)
# Never read from config.toml, with the reason the user is told.
REFUSED_KEYS = {"gateway_token": "tokens are not read from config.toml (it is stored in plain "
                                 "text); put the gateway's token in INTERP_GATEWAY_TOKEN, or name "
                                 "another variable with gateway_token_env",
                "mcp_token": "tokens are not read from config.toml (it is stored in plain text); "
                             "put the token of `interp mcp --http` in INTERP_MCP_TOKEN"}

NO_MODEL_HELP = """\
No model is configured. Pick one with --model, for example:

  OpenAI:     export OPENAI_API_KEY=sk-...
              interp --model gpt-4o
  Anthropic:  export ANTHROPIC_API_KEY=sk-ant-...
              interp --model anthropic/claude-sonnet-4-5
  Ollama:     ollama pull llama3.1
              interp --model ollama/llama3.1
  No key:     interp --local        a model that runs on this machine
              (needs pip install 'interp[local]'; offers to download one)

Or set it once:

  environment:  export INTERP_MODEL=gpt-4o
  config file:  model = "gpt-4o"   in {config_path}
"""


class ConfigError(Exception):
    """Invalid configuration; the message names the source and the problem."""


def _field(option: Option) -> tuple[str, Any, Any]:
    kind = option.type if option.type is not tuple else tuple[str, ...]
    return (option.name, kind | None if option.default is None else kind,
            field(default=option.default, repr=not option.secret))


Settings = make_dataclass(
    "Settings",
    [_field(option) for option in OPTIONS]
    + [("warnings", tuple[str, ...], field(default=(), compare=False)),
       # config.toml's tables as read: [approval] (checked by interp.approval.policy, which
       # knows languages), [mcp_servers] (interp.mcp.client.config), [hooks] (interp.hooks)
       *[(name, Any, field(default=None, compare=False, repr=False)) for name in PASSED_TABLES]],
    frozen=True,
    namespace={"__doc__": "Resolved settings for one interp run (fields: interp.config.options).",
               "__module__": __name__})
FILE_KEYS = frozenset(option.name for option in OPTIONS if option.file)
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Directory holding config.toml; honours XDG_CONFIG_HOME from `environ` first."""
    xdg = _environ(environ).get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / APP_NAME
    return platformdirs.user_config_path(APP_NAME)


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Directory for saved data (sessions); honours XDG_DATA_HOME from `environ` first."""
    xdg = _environ(environ).get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / APP_NAME
    return platformdirs.user_data_path(APP_NAME)


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Path of the user's config.toml (it may not exist)."""
    return config_dir(environ) / "config.toml"


def no_model_help(environ: Mapping[str, str] | None = None) -> str:
    """NO_MODEL_HELP with the real config file path filled in."""
    return NO_MODEL_HELP.format(config_path=default_config_path(environ))


def _parse_text(name: str, raw: str, source: str) -> Any:
    """Convert an environment string to the type of setting `name`; empty means unset."""
    kind = BY_NAME[name].type
    text = raw.strip()
    if not text:
        return None
    if kind is tuple:
        return tuple(part.strip() for part in text.split(",") if part.strip())
    if kind is str:
        return text
    if kind is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ConfigError(f"{source}: expected true/false (or 1/0), got {raw!r}")
    try:
        return kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise ConfigError(f"{source}: expected {noun}, got {raw!r}") from None


def _check_value(name: str, value: Any, source: str) -> Any:
    """Type- and range-check an already typed value (from TOML, the CLI or parsed text)."""
    option = BY_NAME[name]
    kind = option.type
    if option.typed:
        if kind is tuple and isinstance(value, list | tuple) \
                and all(isinstance(v, str) for v in value):
            value = tuple(value)
        elif kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
            raise ConfigError(f"{source}: expected {kind.__name__}, got {value!r}")
    try:
        return option.check(value) if option.check else value
    except Invalid as exc:
        raise ConfigError(f"{source}: {exc}") from None


def _from_file(path: Path) -> tuple[dict[str, Any], list[str]]:
    """Read settings from config.toml; a missing file means no settings."""
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc.strerror or exc}") from None
    except ValueError as exc:  # TOMLDecodeError and UnicodeDecodeError
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    values: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in data.items():
        if key in PASSED_TABLES:
            values[key] = value
        elif key == RUNNERS_TABLE:
            values[key] = _runners_table(value, f"{path}: [{key}]")
        elif key in REFUSED_KEYS:
            warnings.append(f"{path}: {key} ignored: {REFUSED_KEYS[key]}")
        elif key in FILE_KEYS:
            values[key] = _check_value(key, value, f"{path}: {key}")
        elif not isinstance(value, dict):
            warnings.append(f"{path}: unknown key {key!r} ignored")
    return values, warnings


def _runners_table(table: Any, source: str) -> tuple[str, ...]:
    """[runners] python = "gateway" -> ("python=gateway",)."""
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ConfigError(f"{source}: expected a table of LANGUAGE = \"RUNNER\" strings")
    return tuple(f"{language}={runner}" for language, runner in table.items())


def _from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for option in OPTIONS:
        raw = environ.get(option.env)
        if raw is None:
            continue
        value = _parse_text(option.name, raw, option.env)
        if value is not None:
            values[option.name] = _check_value(option.name, value, option.env)
    return values


def _from_cli(cli: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, value in cli.items():
        if name in BY_NAME and value is not None:
            values[name] = _check_value(name, value, BY_NAME[name].flag_source)
    return values


def load_settings(
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_path: Path | None = None,
    command: str | None = None,
) -> Settings:
    """Merge CLI values (None = unset), INTERP_* variables, config.toml and defaults (those of
    the subcommand `command`, where a setting declares one)."""
    env = _environ(environ)
    path = default_config_path(env) if config_path is None else Path(config_path)
    from_file, warnings = _from_file(path)
    sources = (from_file, _from_env(env), _from_cli(cli or {}))
    merged = {option.name: option.default_for(command) for option in OPTIONS
              if option.command_defaults}
    for values in sources:
        merged.update(values)
    # runner choices add up per language (file, then environment, then CLI): later ones win
    merged["runners"] = tuple(entry for values in sources for entry in values.get("runners", ()))
    known = {f.name for f in fields(Settings)}
    return Settings(**{k: v for k, v in merged.items() if k in known}, warnings=tuple(warnings))
