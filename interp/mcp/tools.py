"""The tools the server offers (names, descriptions, JSON Schemas) and the checked requests
their arguments become; bad arguments raise ToolInputError with the one line the client gets."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from languages import Registry

RUN_CODE, INTERRUPT, RESET, LIST_LANGUAGES = "run_code", "interrupt", "reset", "list_languages"
MAX_CODE_CHARS = 1_000_000  # a longer block is refused: it is a mistake, not a program


class ToolInputError(Exception):
    """A call the server cannot act on; the message says why, in one line."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool as listed to the client."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool = False
    destructive: bool = False


@dataclass(frozen=True)
class RunCode:
    """run_code: a block to run; `timeout` in seconds, None for the server's limit."""

    language: str  # the canonical name
    code: str
    timeout: float | None = None


@dataclass(frozen=True)
class Interrupt:
    """interrupt: stop the block that is running."""


@dataclass(frozen=True)
class Reset:
    """reset: restart one language's runner, or every runner (None)."""

    language: str | None = None


@dataclass(frozen=True)
class ListLanguages:
    """list_languages: what can run here."""


Request = RunCode | Interrupt | Reset | ListLanguages


def tool_specs(registry: Registry, timeout: float) -> list[ToolSpec]:
    """The four tools, their schemas naming this server's languages and time limit."""
    names = registry.names()
    aliases = sorted({alias for name in names for alias in registry.resolve(name).aliases})
    known = f"One of: {', '.join(names)}" + (f" (also accepted: {', '.join(aliases)})"
                                            if aliases else "") + "."
    limit = f"{timeout:g}"
    return [
        ToolSpec(RUN_CODE, "Run code", (
            "Run a block of code in a persistent interpreter on the user's machine and return "
            "its output. State is kept between calls of the same language: variables, imports, "
            "functions, the shell's working directory and exported variables. Output is "
            "bounded: a long output is cut in the middle, and the note says where the full "
            "text was saved. The result also says how the block ended (exit status or error), "
            "which files it created, changed or deleted in the working directory, and shows "
            "each figure it made (matplotlib) as an image and each table (pandas) as text. "
            "The user's approval rules apply: a block may be refused, with the reason."),
                 {"type": "object", "properties": {
                     "language": {"type": "string", "enum": names,
                                  "description": f"The language of the code. {known}"},
                     "code": {"type": "string", "description": "The code to run.",
                              "maxLength": MAX_CODE_CHARS},
                     "timeout": {"type": "number", "exclusiveMinimum": 0,
                                 "description": f"Seconds before the block is interrupted "
                                                f"(default and most: {limit})."}},
                  "required": ["language", "code"], "additionalProperties": False},
                 destructive=True),
        ToolSpec(INTERRUPT, "Interrupt", (
            "Interrupt the block that is running (as Ctrl-C would). The interpreter keeps "
            "its state; the interrupted run_code call returns what the block printed."),
                 {"type": "object", "properties": {}, "additionalProperties": False}),
        ToolSpec(RESET, "Reset", (
            "Restart the interpreter of one language, or of every language when none is "
            "given: its variables and other state are lost. Use it when an interpreter is "
            "stuck or its state is broken."),
                 {"type": "object", "properties": {
                     "language": {"type": "string", "enum": names,
                                  "description": f"The language to restart (default: all). "
                                                 f"{known}"}},
                  "additionalProperties": False}, destructive=True),
        ToolSpec(LIST_LANGUAGES, "List languages", (
            "List the languages run_code accepts, what runs each one, which interpreters "
            "are running in this session, and the limits that apply (time-out, sandbox)."),
                 {"type": "object", "properties": {}, "additionalProperties": False},
                 read_only=True),
    ]


def parse_call(name: str, arguments: Any, registry: Registry, timeout: float) -> Request:
    """The request a tool call makes, checked; ToolInputError says what is wrong."""
    args = {} if arguments is None else arguments
    if not isinstance(args, dict):
        raise ToolInputError(f"{name}: the arguments must be an object")
    if name == RUN_CODE:
        _only(name, args, ("language", "code", "timeout"))
        code = args.get("code")
        if not isinstance(code, str):
            raise ToolInputError(f"run_code: `code` must be a string, not {_kind(code)}")
        if len(code) > MAX_CODE_CHARS:
            raise ToolInputError(f"run_code: the code is {len(code):,} characters long; the "
                                 f"limit is {MAX_CODE_CHARS:,}")
        if not code.strip():
            raise ToolInputError("run_code: `code` is empty")
        return RunCode(_language(args.get("language"), registry, required=True), code,
                       _timeout(args.get("timeout"), timeout))
    if name == RESET:
        _only(name, args, ("language",))
        return Reset(_language(args.get("language"), registry, required=False))
    if name in (INTERRUPT, LIST_LANGUAGES):
        _only(name, args, ())
        return Interrupt() if name == INTERRUPT else ListLanguages()
    raise ToolInputError(f"unknown tool {name!r}; the tools are {RUN_CODE}, {INTERRUPT}, "
                         f"{RESET} and {LIST_LANGUAGES}")


def _only(name: str, args: dict, allowed: tuple[str, ...]) -> None:
    extra = sorted(key for key in args if key not in allowed)
    if extra:
        takes = f"takes only {', '.join(allowed)}" if allowed else "takes no arguments"
        raise ToolInputError(f"{name}: unknown argument {extra[0]!r}; it {takes}")


def _language(value: Any, registry: Registry, required: bool) -> str | None:
    if value is None and not required:
        return None
    available = ", ".join(registry.names())
    if not isinstance(value, str) or not value.strip():
        raise ToolInputError(f"`language` must be one of {available}")
    if value not in registry:
        raise ToolInputError(f"unknown language {value!r}; available: {available}")
    return registry.canonical(value)


def _timeout(value: Any, limit: float) -> float | None:
    """The block's limit: the one asked for, never more than the server's."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or value <= 0:
        raise ToolInputError(f"run_code: `timeout` must be a positive number of seconds, not "
                             f"{value!r}")
    return min(float(value), limit)


def _kind(value: Any) -> str:
    return {type(None): "null", bool: "a boolean", int: "a number", float: "a number",
            list: "an array", dict: "an object"}.get(type(value), type(value).__name__)
