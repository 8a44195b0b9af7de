"""The settings' flags as Typer options, made from their declarations (interp.config.options).

A command decorated with `settings_flags(...)` gets the flags of those settings where its
`cli` parameter stands, and receives their values as `cli`: setting name -> value, None when
the flag was not given (a switch sets its value; it wins over the same setting's value flag).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Optional, get_type_hints

import typer

from interp.config.options import BY_NAME, OPTIONS, Flag, Option

WITH_FLAGS = tuple(option.name for option in OPTIONS if option.flags)
# Flags followed by a value (see main.optional_resume).
VALUE_FLAGS = frozenset(name for option in OPTIONS for flag in option.flags if flag.takes_value
                        for name in flag.names)


def _param_name(flag: Flag) -> str:
    return flag.names[-1].lstrip("-").replace("-", "_")


def _parameter(option: Option, flag: Flag, help: str | None,
               command: str | None) -> inspect.Parameter:
    """The Typer option of one flag, as a keyword parameter (its help with the default under
    `command`)."""
    text = (help or flag.help).format(default=option.default_for(command))
    if not flag.takes_value:
        kind: Any = bool
        default = typer.Option(False, *flag.names, help=text)
    else:
        kind = Optional[list[str]] if option.type is tuple else Optional[option.type]
        default = typer.Option(None, *flag.names, metavar=flag.metavar, help=text)
    return inspect.Parameter(_param_name(flag), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             default=default, annotation=kind)


def _value(option: Option, given: dict[str, Any]) -> Any:
    """The setting's value from its flags' values; None: not given."""
    value = None
    for flag in option.flags:
        raw = given[_param_name(flag)]
        if flag.takes_value and raw is not None:
            value = (tuple(raw) or None) if option.type is tuple else raw
    for flag in option.flags:
        if not flag.takes_value and given[_param_name(flag)]:
            value = flag.sets
    return value


def settings_flags(*names: str, help: dict[str, str] | None = None,
                   command: str | None = None) -> Callable:
    """Add the flags of the settings `names` (default: every setting with flags) to a Typer
    command; `help` words a flag differently for this command (setting name -> help);
    `command`: the subcommand, whose defaults the help gives."""
    chosen = [BY_NAME[name] for name in names or WITH_FLAGS]
    helps = help or {}

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)
        hints = get_type_hints(function)  # the command's own annotations, as types
        own = [p.replace(annotation=hints.get(p.name, p.annotation))
               for p in signature.parameters.values()]
        at = [p.name for p in own].index("cli")
        added = [_parameter(option, flag, helps.get(option.name), command)
                 for option in chosen for flag in option.flags]

        @functools.wraps(function)
        def with_settings(*args, **kwargs):
            given = {p.name: kwargs.pop(p.name) for p in added}
            cli = {option.name: _value(option, given) for option in chosen}
            return function(*args, cli=cli, **kwargs)

        parameters = own[:at] + added + own[at + 1:]
        with_settings.__signature__ = signature.replace(parameters=parameters)
        with_settings.__annotations__ = {p.name: p.annotation for p in parameters}
        del with_settings.__wrapped__  # Typer reads the signature above, not the command's
        return with_settings

    return decorate
