"""Tool calls that a model wrote as text, and tool-call arguments that are not valid JSON.

Small and local models often answer a tool offer with the call as text: a fenced
```json {"name": "execute", "arguments": {...}}```, Qwen/Hermes `<tool_call>{...}</tool_call>`,
Llama's `<function=execute>{...}</function>`, Mistral's `[TOOL_CALLS] [...]`, or the bare JSON
object. These are read back into calls; one that cannot be read is reported, so that the task
never ends with a call left unrun.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass
from typing import Any

from interp.core.replies.fences import parse_blocks

TOOL_NAME = "execute"
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(.*?)\s*(?:</function>|$)", re.S)
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*(.*)$", re.S)
_CALL_FENCES = frozenset({"json", "tool_call", "tool_code", "function_call", ""})
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")
_TRIPLE_QUOTED = re.compile(r'"""\n?(.*?)"""', re.S)  # Python strings in "JSON" from small models
_NAMED = re.compile(r'"name"\s*:\s*"([\w.-]+)"')
# Names small models give the tool: read as `execute` (a language name as the language).
ALIASES = frozenset({"execute", "run", "run_code", "execute_code", "code_interpreter", "python",
                     "bash", "shell", "sh", "javascript", "js", "node"})


@dataclass(frozen=True)
class TextCall:
    """A tool call found in a reply's text: `arguments` is None when it could not be read."""

    name: str
    arguments: dict | None
    raw: str


def text_calls(text: str) -> list[TextCall]:
    """The tool calls written as text in a reply, in order ([] when there are none)."""
    if not text or not text.strip():
        return []
    tagged = [_from_tagged(body) for body in _TAGGED.findall(text)]
    if tagged:
        return [call for group in tagged for call in group]
    functions = _FUNCTION_TAG.findall(text)
    if functions:
        return [TextCall(name, _object(body), body) for name, body in functions]
    mistral = _MISTRAL.search(text)
    if mistral:
        return _from_tagged(mistral.group(1))
    blocks = parse_blocks(text)
    calls: list[TextCall] = []
    for block in blocks:
        if block.language in _CALL_FENCES:
            calls += _from_json(block.code, strict=True)
    if calls:
        return calls
    bare = text.strip()
    sole = blocks[0].code if len(blocks) == 1 and blocks[0].language in _CALL_FENCES and \
        bare.startswith("```") and bare.endswith("```") else bare
    if sole[:1] not in ("{", "["):
        return []
    return _from_json(sole, strict=True) or _made_up(sole)


def _made_up(body: str) -> list[TextCall]:
    """A reply that is nothing but a call of a function other than `execute`, written as JSON
    ({"name": "summarise_sales", "arguments": {...}}): a call, so that it is not taken for the
    answer (plain data such as {"name": "Ada"} has no arguments and is left alone)."""
    value = _load(body)
    items = value if isinstance(value, list) else [value]
    calls = [_call_of(item) for item in items if _call_shaped(item)]
    return calls if calls and len(calls) == len(items) else []


def _call_shaped(item: Any) -> bool:
    """A function call's shape: a name and its arguments, or OpenAI's {"function": {...}}."""
    if isinstance(item, dict) and isinstance(item.get("function"), dict):
        item = item["function"]
    return isinstance(item, dict) and isinstance(item.get("name"), str) and any(
        isinstance(item.get(key), (dict, str)) for key in _ARGUMENT_KEYS)


def _from_tagged(body: str) -> list[TextCall]:
    """Inside an explicit tool-call marker: a call even when unreadable or misnamed."""
    calls = _from_json(body, strict=False)
    return calls or [TextCall(TOOL_NAME, None, body)]


def _from_json(body: str, *, strict: bool) -> list[TextCall]:
    """Calls in a JSON text (an object or a list of them). `strict`: only calls of the
    execute tool, or its bare arguments (JSON data that merely looks similar is left alone);
    a text naming the tool that cannot be read is an unreadable call."""
    value = _load(body)
    if value is None:
        named = _NAMED.search(body)
        return [TextCall(named.group(1), None, body)] if named and (
            not strict or named.group(1) in ALIASES) else []
    items = value if isinstance(value, list) else [value]
    calls = [call for item in items if (call := _call_of(item)) is not None]
    if strict:
        calls = [call for call in calls if call.name in ALIASES]
    return calls if calls and len(calls) == len(items) else []


def _call_of(item: Any) -> TextCall | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # OpenAI's shape
        item = item["function"]
    name = item.get("name")
    if isinstance(name, str):
        raw = next((item[key] for key in _ARGUMENT_KEYS if key in item), None)
        arguments = _object(raw) if isinstance(raw, str) else raw
        arguments = arguments if isinstance(arguments, dict) else None
        if name not in ALIASES and _execute_shaped(arguments):  # a made-up name, our arguments
            name = TOOL_NAME
        return TextCall(name, arguments, json.dumps(item))
    if isinstance(item.get("code"), str):  # the arguments alone
        return TextCall(TOOL_NAME, item, json.dumps(item))
    return None


def _execute_shaped(arguments: dict | None) -> bool:
    """The execute tool's arguments: a `language` and a `code` string."""
    return bool(arguments) and isinstance(arguments.get("code"), str) and \
        isinstance(arguments.get("language"), str)


def _object(text: str) -> dict | None:
    value = _load(text)
    return value if isinstance(value, dict) else None


def _load(text: str) -> Any:
    """JSON, leniently: Python triple-quoted strings become JSON strings, and a text cut off
    is closed."""
    for candidate in dict.fromkeys((text, _TRIPLE_QUOTED.sub(
            lambda m: json.dumps(textwrap.dedent(m.group(1)).strip("\n")), text))):
        try:
            return json.loads(candidate)
        except ValueError:
            repaired = repair_json(candidate)
            if repaired is not None:
                return json.loads(repaired)
    return None


def repair_json(text: str) -> str | None:
    """`text` with its unclosed strings, objects and arrays closed (a reply cut off inside a
    tool call), if that makes it valid JSON; else None."""
    stack, in_string, escaped = [], False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack or stack.pop() != char:
                return None
    tail = text[:-1] if escaped else text
    tail += '"' if in_string else ""
    for candidate in (tail, tail.rstrip().rstrip(",")):
        closed = candidate + "".join(reversed(stack))
        try:
            json.loads(closed)
        except ValueError:
            continue
        return closed
    return None


def valid_arguments(arguments: str) -> str:
    """Tool-call arguments that every API accepts back: the JSON object as sent, repaired if
    it was cut off, else an empty object."""
    try:
        if isinstance(json.loads(arguments or "{}"), dict):
            return arguments or "{}"
    except ValueError:
        repaired = repair_json(arguments or "")
        if repaired is not None and isinstance(json.loads(repaired), dict):
            return repaired
    return "{}"
