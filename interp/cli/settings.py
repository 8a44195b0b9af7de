"""Typed settings: CLI > environment > config.toml > defaults.

Unknown keys in ``config.toml`` are never fatal. The ``[approval]`` table is passed on
as ``Settings.approval`` (``interp.policy`` checks it); other tables belong to other
parts of the program and are skipped without comment; unknown
top-level scalar keys (usually typos like ``modle``) are ignored and reported in
``Settings.warnings`` so the CLI can print them. Unknown CLI keys are ignored,
since the CLI may pass options that are not settings.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import platformdirs
from languages.process.sandbox import MODES as SANDBOX_MODES

APP_NAME = "interp"
ENV_PREFIX = "INTERP_"
APPROVAL_TABLE = "approval"

# Keys accepted in config.toml; `json` is an output mode, so it is CLI/env only.
FILE_KEYS = frozenset(
    {"model", "api_base", "api_key", "max_turns", "timeout", "auto_approve", "python", "tools", "debug",
     "sandbox", "network", "memory_limit", "process_limit", "pass_env", "output_dir",
     "request_timeout", "idle_timeout", "max_tokens",
     "gateway_url", "gateway_token_env", "kernel_start_timeout",
     "local_model", "local_threads", "local_context", "local_temperature",
     "instructions", "compact_at", "context_window", "checkpoints", "mentions"}
)
RUNNERS_TABLE = "runners"  # [runners] LANGUAGE = "RUNNER" (see languages.jupyter_choice)
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


@dataclass(frozen=True)
class Settings:
    """Resolved settings for one interp run."""

    model: str | None = None
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    auto_approve: bool = False
    max_turns: int = 20
    timeout: float = 600.0
    json: bool = False
    tools: str = "auto"  # auto (as litellm knows the model) | on | off (fenced blocks only)
    request_timeout: float = 600.0  # seconds to the model's first token
    idle_timeout: float = 120.0  # seconds between two tokens
    max_tokens: int = 8192  # cap on a reply's length; 0 sends none
    debug: bool = False
    python: str | None = None
    sandbox: str = "off"
    network: bool = False
    memory_limit: int | None = None  # MB per runner process; 0 turns it off; None = default
    process_limit: int | None = None  # processes per runner; 0 turns it off; None = default
    pass_env: tuple[str, ...] = ()
    output_dir: str | None = None  # where figures are saved; None = ./interp-output
    runners: tuple[str, ...] = ()  # "LANGUAGE=RUNNER" entries, in order; later ones win
    gateway_url: str | None = None  # the Jupyter gateway for LANGUAGE=gateway runners
    gateway_token_env: str | None = None  # the variable holding its token (never the token)
    kernel_start_timeout: float = 60.0  # seconds a kernel may take to start
    local_model: str | None = None  # --local PATH.gguf; None = the downloaded default
    local_threads: int | None = None  # None = physical cores not busy with other work
    local_context: int | None = None  # tokens; None = the model's trained context length
    local_temperature: float | None = None  # None = llama.cpp's default
    checkpoints: bool = True  # record the folder before each block (/rewind)
    instructions: bool = True  # read AGENTS.md files into the system prompt
    mentions: bool = True  # describe the files a task names to the model (as /file does)
    compact_at: int = 70  # compact the conversation at this % of the context window; 0: never
    context_window: int | None = None  # tokens, for a model interp cannot ask (None: asked)
    warnings: tuple[str, ...] = field(default=(), compare=False)
    # config.toml's [approval] table as read (checked by interp.policy, which knows languages)
    approval: Any = field(default=None, compare=False, repr=False)


_TYPES: dict[str, type] = {
    "model": str, "api_base": str, "api_key": str, "python": str,
    "auto_approve": bool, "json": bool, "tools": str, "debug": bool,
    "request_timeout": float, "idle_timeout": float, "max_tokens": int,
    "max_turns": int, "timeout": float, "sandbox": str, "network": bool,
    "memory_limit": int, "process_limit": int, "pass_env": tuple, "output_dir": str,
    "runners": tuple, "gateway_url": str, "gateway_token_env": str, "kernel_start_timeout": float,
    "local_model": str, "local_threads": int, "local_context": int, "local_temperature": float,
    "checkpoints": bool,
    "instructions": bool, "compact_at": int, "context_window": int, "mentions": bool,
}
TOOL_MODES = ("auto", "on", "off")
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
    kind = _TYPES[name]
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
    """Type- and range-check an already typed value (from TOML or the CLI)."""
    if name == "tools":
        return _tool_mode(value, source)
    kind = _TYPES[name]
    if kind is tuple and isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        raise ConfigError(f"{source}: expected {kind.__name__}, got {value!r}")
    if name == "max_turns" and value < 1:
        raise ConfigError(f"{source}: must be at least 1, got {value}")
    if name in ("timeout", "request_timeout", "idle_timeout", "kernel_start_timeout") \
            and not value > 0:
        raise ConfigError(f"{source}: must be a positive number of seconds, got {value}")
    if name == "max_tokens" and value < 0:
        raise ConfigError(f"{source}: must be 0 (no cap) or a positive number, got {value}")
    if name == "sandbox" and value not in SANDBOX_MODES:
        raise ConfigError(f"{source}: must be one of {', '.join(SANDBOX_MODES)}, got {value!r}")
    if name == "runners" and not all("=" in entry for entry in value):
        raise ConfigError(f"{source}: expected LANGUAGE=RUNNER entries, got {list(value)!r}")
    if name == "gateway_token_env" and not value.replace("_", "a").isalnum():
        raise ConfigError(f"{source}: expected the name of an environment variable, got {value!r}")
    if name in ("memory_limit", "process_limit") and value < 0:
        raise ConfigError(f"{source}: must be 0 (no limit) or a positive number, got {value}")
    if name in ("local_threads", "local_context", "context_window") and value < 1:
        raise ConfigError(f"{source}: must be at least 1, got {value}")
    if name == "compact_at" and not 0 <= value <= 95:
        raise ConfigError(f"{source}: must be a percentage from 0 (never) to 95, got {value}")
    if name == "local_temperature" and not 0 <= value <= 5:
        raise ConfigError(f"{source}: must be between 0 and 5, got {value}")
    return value


def _tool_mode(value: Any, source: str) -> str:
    """auto | on | off; true/false (and 1/0, yes/no) as before: true is auto, false is off."""
    if isinstance(value, bool):
        return "auto" if value else "off"
    text = str(value).strip().lower() if isinstance(value, str) else None
    if text in TOOL_MODES:
        return text
    if text in ("true", "1", "yes"):
        return "auto"
    if text in ("false", "0", "no"):
        return "off"
    raise ConfigError(f"{source}: must be one of {', '.join(TOOL_MODES)}, got {value!r}")


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
        if key == APPROVAL_TABLE:
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
    for name in _TYPES:
        var = ENV_PREFIX + name.upper()
        raw = environ.get(var)
        if raw is None:
            continue
        value = _parse_text(name, raw, var)
        if value is not None:
            values[name] = _check_value(name, value, var)
    return values


def _from_cli(cli: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, value in cli.items():
        if name in _TYPES and value is not None:
            values[name] = _check_value(name, value, "--" + name.replace("_", "-"))
    return values


def load_settings(
    cli: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    config_path: Path | None = None,
) -> Settings:
    """Merge CLI values (None = unset), INTERP_* variables, config.toml and defaults."""
    env = _environ(environ)
    path = default_config_path(env) if config_path is None else Path(config_path)
    merged, warnings = _from_file(path)
    sources = (dict(merged), _from_env(env), _from_cli(cli or {}))
    for values in sources[1:]:
        merged.update(values)
    # runner choices add up per language (file, then environment, then CLI): later ones win
    merged["runners"] = tuple(entry for values in sources for entry in values.get("runners", ()))
    known = {f.name for f in fields(Settings)}
    return Settings(**{k: v for k, v in merged.items() if k in known}, warnings=tuple(warnings))
