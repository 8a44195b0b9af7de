"""Every setting, declared once: its type, default, flags, and checks.

One `Option` drives the `Settings` field, the `INTERP_*` variable, the config.toml key, the
check of its value (`settings.py`) and its flags on the command line (`interp/cli/flags.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from languages.process.sandbox import MODES as SANDBOX_MODES

from interp.core.replies.tool_choice import TOOL_MODES

ENV_PREFIX = "INTERP_"


class Invalid(ValueError):
    """A value a setting does not take; the message says why (the caller names the source)."""


@dataclass(frozen=True)
class Flag:
    """A command-line flag of a setting: it takes a value, or (a switch) sets `sets`."""

    names: tuple[str, ...]
    help: str
    metavar: str | None = None
    sets: Any = None  # a switch's value (True, False, "off"); None: the flag takes a value

    @property
    def takes_value(self) -> bool:
        """Whether the flag is followed by a value."""
        return self.sets is None


@dataclass(frozen=True)
class Option:
    """One setting: name, type, default, what it means, where it may come from, its check."""

    name: str
    type: type  # str, int, float, bool or tuple (of str)
    default: Any
    doc: str
    flags: tuple[Flag, ...] = ()
    file: bool = True  # read from config.toml
    check: Callable[[Any], Any] | None = None  # the value, normalized; Invalid if it is not
    typed: bool = True  # False: `check` alone takes any value (no type check first)
    secret: bool = False  # kept out of repr
    # (subcommand, its default): what the setting is when neither a flag, a variable nor the
    # file gives it, for that subcommand (`interp eval`'s shorter replies, for one)
    command_defaults: tuple[tuple[str, Any], ...] = ()

    def default_for(self, command: str | None) -> Any:
        """The default under `command` (None: the `interp` command itself)."""
        return dict(self.command_defaults).get(command, self.default)

    @property
    def env(self) -> str:
        """The environment variable, INTERP_NAME."""
        return ENV_PREFIX + self.name.upper()

    @property
    def flag_source(self) -> str:
        """How a command-line value is named in errors."""
        return "--" + self.name.replace("_", "-")


def at_least(low: int) -> Callable[[Any], Any]:
    """A check: `low` or more."""
    def check(value):
        if value < low:
            raise Invalid(f"must be at least {low}, got {value}")
        return value
    return check


def positive_seconds(value: float) -> float:
    """A check: a positive number of seconds."""
    if not value > 0:
        raise Invalid(f"must be a positive number of seconds, got {value}")
    return value


def zero_or_more(zero_means: str) -> Callable[[Any], Any]:
    """A check: 0 (which means `zero_means`) or a positive number."""
    def check(value):
        if value < 0:
            raise Invalid(f"must be 0 ({zero_means}) or a positive number, got {value}")
        return value
    return check


def one_of(choices: tuple[str, ...]) -> Callable[[Any], Any]:
    """A check: one of `choices`."""
    def check(value):
        if value not in choices:
            raise Invalid(f"must be one of {', '.join(choices)}, got {value!r}")
        return value
    return check


def between(low: float, high: float, words: str) -> Callable[[Any], Any]:
    """A check: from `low` to `high`, described as `words` ({low} and {high} filled in)."""
    def check(value):
        if not low <= value <= high:
            raise Invalid(f"{words.format(low=low, high=high)}, got {value}")
        return value
    return check


def variable_name(value: str) -> str:
    """A check: the name of an environment variable."""
    if not value.replace("_", "a").isalnum():
        raise Invalid(f"expected the name of an environment variable, got {value!r}")
    return value


def tool_mode(value: Any) -> str:
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
    raise Invalid(f"must be one of {', '.join(TOOL_MODES)}, got {value!r}")


def reply_checks(value: Any) -> str | tuple[str, ...]:
    """auto | on | off, or the names of reply checks, comma-separated (interp/core/checks)."""
    from interp.core.checks.catalog import parse_setting  # only when a value is given

    if not isinstance(value, str):
        raise Invalid(f"must be auto, on, off or check names, got {value!r}")
    try:
        return parse_setting(value)
    except ValueError as exc:
        raise Invalid(str(exc)) from None


def _on(*names: str, help: str) -> tuple[Flag, ...]:
    return (Flag(names, help, sets=True),)


def _value(*names: str, help: str, metavar: str | None = None) -> tuple[Flag, ...]:
    return (Flag(names, help, metavar),)


SECONDS = positive_seconds
# In the order `interp --help` lists the flags; settings with no flag follow.
OPTIONS: tuple[Option, ...] = (
    Option("auto_approve", bool, False, "run blocks without asking",
           _on("-y", "--auto-approve", help="Run blocks without asking.")),
    Option("model", str, None, "any litellm model string",
           _value("--model", help="Any litellm model string.")),
    Option("local_model", str, None, "--local PATH.gguf; None = the downloaded default",
           _value("--local", metavar="[PATH.gguf]",
                  help="Run a GGUF model on this machine with llama.cpp (default: the "
                  "downloaded Qwen2.5-Coder-1.5B); needs interp[local].")),
    Option("api_base", str, None, "the model's endpoint", _value("--api-base",
                                                                 help="Model endpoint URL.")),
    Option("api_key", str, None, "the model's key", _value("--api-key", help="Model API key."),
           secret=True),
    Option("max_turns", int, 20, "model calls per task (interp eval: the benchmark's own: 4 "
           "for HumanEval's self mode, 8 for tasks and dabench)",
           _value("--max-turns", help="Model calls per task."), check=at_least(1),
           command_defaults=(("eval", None),)),
    Option("timeout", float, 600.0, "seconds a block may run",
           _value("--timeout", help="Per-block limit in seconds."), check=SECONDS),
    Option("json", bool, False, "JSON Lines events on stdout (an output mode: not in the file)",
           _on("--json", help="JSON Lines events on stdout."), file=False),
    Option("tools", str, "auto", "auto (as litellm knows the model) | on | off (fenced blocks "
           "only)",
           (Flag(("--tools",), "Offer the model the execute tool: auto (if litellm knows it "
                 "supports tools; default), on, or off (fenced code blocks only).",
                 "|".join(TOOL_MODES)),
            Flag(("--no-tools",), "The same as --tools off.", sets="off")),
           check=tool_mode, typed=False),
    Option("request_timeout", float, 600.0, "seconds to the model's first token",
           _value("--request-timeout", metavar="SECONDS",
                  help="Longest wait for the model's first token (default {default:g})."),
           check=SECONDS),
    Option("idle_timeout", float, 120.0, "seconds between two tokens",
           _value("--idle-timeout", metavar="SECONDS",
                  help="Longest wait between two tokens of a reply (default {default:g})."),
           check=SECONDS),
    Option("max_tokens", int, 8192, "cap on a reply's length; 0 sends none",
           _value("--max-tokens", metavar="N", help="Cap on the length of a reply in tokens "
                  "(default {default}; 0: no cap)."), check=zero_or_more("no cap"),
           command_defaults=(("eval", 1024),)),
    Option("max_output", int, None, "characters of a block's output the model is given, from "
           "its start and end; None: 4000 for a model run on this machine, 16000 for others",
           _value("--max-output", metavar="CHARS", help="Most characters of a block's output "
                  "the model is given, from its start and end (default: 4000 for a model run "
                  "on this machine, 16000 for others); all of it stays in the session."),
           check=at_least(200)),
    Option("sandbox", str, "off", "where code runs: " + ", ".join(SANDBOX_MODES),
           _value("--sandbox", metavar="|".join(SANDBOX_MODES),
                  help="Run code inside bubblewrap (Linux)."), check=one_of(SANDBOX_MODES)),
    Option("network", bool, False, "network access inside the sandbox",
           _on("--network", help="Allow network access in the sandbox.")),
    Option("pass_env", tuple, (), "variables runners see even if they hold a model's key",
           _value("--pass-env", metavar="NAME", help="Let runners see this variable even if "
                  "it holds the model's key (repeatable).")),
    Option("python", str, None, "the interpreter of Python blocks",
           _value("--python", metavar="PATH",
                  help="Python interpreter for python blocks (default: the active "
                  "virtualenv's Python, else the one interp runs in).")),
    Option("output_dir", str, None, "where figures are saved; None = ./interp-output",
           _value("--output-dir", metavar="PATH",
                  help="Folder for saved figures (default ./interp-output).")),
    Option("runners", tuple, (), '"LANGUAGE=RUNNER" entries, in order; later ones win '
           "(config.toml: the [runners] table)",
           _value("--runner", metavar="LANG=RUNNER", help="Where LANG's blocks run: builtin, "
                  "jupyter[:KERNEL] (a local kernel) or gateway[:KERNEL] (repeatable)."),
           file=False),
    Option("gateway_url", str, None, "the Jupyter gateway for LANGUAGE=gateway runners",
           _value("--gateway-url", metavar="URL", help="Jupyter gateway for LANG=gateway "
                  "runners (token in $INTERP_GATEWAY_TOKEN).")),
    Option("checkpoints", bool, True, "record the folder before each block (/rewind)",
           (Flag(("--no-checkpoints",), "Do not record the folder before each block "
                 "(/rewind and interp rewind need those records).", sets=False),)),
    Option("instructions", bool, True, "read AGENTS.md files into the system prompt",
           (Flag(("--no-instructions",), "Read no AGENTS.md files (also "
                 "INTERP_INSTRUCTIONS=0, instructions = false).", sets=False),)),
    Option("skills", bool, True, "list the skills (.agents/skills folders) in the system prompt",
           (Flag(("--no-skills",), "Read no skills (also INTERP_SKILLS=0, skills = false).",
                 sets=False),)),
    Option("checks", str, "auto", "the reply checks: auto (all for models run here, those that "
           "cannot misfire for others) | on | off | names, comma-separated",
           _value("--checks", metavar="auto|on|off|NAME,...",
                  help="Reply checks that send an answer back (default auto: all of them for a "
                  "model run on this machine, those that cannot misfire for others)."),
           check=reply_checks, typed=False),
    Option("debug", bool, False, "show tracebacks", _on("--debug", help="Show tracebacks.")),
    Option("memory_limit", int, None, "MB per runner process; 0 turns it off; None = default",
           check=zero_or_more("no limit")),
    Option("process_limit", int, None, "processes per runner; 0 turns it off; None = default",
           check=zero_or_more("no limit")),
    Option("gateway_token_env", str, None, "the variable holding the gateway's token (never "
           "the token)", check=variable_name),
    Option("kernel_start_timeout", float, 60.0, "seconds a kernel may take to start",
           check=SECONDS),
    Option("local_threads", int, None, "None = physical cores not busy with other work",
           check=at_least(1)),
    Option("local_context", int, None, "tokens; None = the model's trained context length",
           check=at_least(1)),
    Option("local_temperature", float, 0.0, "0 = greedy, as interp's benchmarks measure it",
           check=between(0, 5, "must be between {low} and {high}")),
    Option("mentions", bool, True, "describe the files a task names to the model (as /file "
           "does)"),
    Option("compact_at", int, 70, "compact the conversation at this % of the context window; "
           "0: never", check=between(0, 95, "must be a percentage from {low} (never) to {high}")),
    Option("models", tuple, (), "more models an editor's model picker offers (interp acp), "
           "after `model`"),
    Option("context_window", int, None, "tokens, for a model interp cannot ask (None: asked)",
           check=at_least(1)),
)
BY_NAME: dict[str, Option] = {option.name: option for option in OPTIONS}
